"""The handout's counting learner's session and runs: learn, resume, and what a run holds.

Self-play of `games` games from <0,0>, player A first. Two int64 tables ``win`` and ``lose`` of
shape (low, low, n_dice + 1) count, for every (X, Y, J) a mover played, how often that mover went
on to win or lose the game (column J = 0 stays 0). In state <X, Y>, with K = n_dice:

- f_J = win/(win + lose) for J = 1..K, 0.5 where win + lose = 0;
- B = argmax_J f_J, the lowest J on ties (``tie_break="random"``: uniform among the tied J);
- g = sum of f_J over J != B, in increasing J; T = sum over J = 0..K of win + lose;
- p_B = (T f_B + M) / (T f_B + K M);  p_J = (1 - p_B) (T f_J + M) / (g T + (K - 1) M), J != B;
- J is drawn with the handout's cumulative rule: u_i = p_0 + ... + p_i (p_0 = 0), one uniform x,
  the first i < K with x < u_i, else K;
- the roll total of J dice is drawn with one more uniform from the exact J-dice distribution
  (:attr:`Game.sum_cdf_table`): the smallest total t with x < P(total <= t).

At a game's end every (X, Y, J) of the winner adds 1 to ``win``, every one of the loser to ``lose``.

Corner cases the handout leaves open, decided here (each has a test):

- M must be a finite float >= 0 (and K*M finite); anything else is a :class:`LearnerError`.
- n_dice = 1: the only action is J = 1, so p = (0, 1); g = 0 and the p_J formula never applies.
- T f_B + K M = 0 (only when M = 0 and T = 0, or M = 0 and every f_J = 0): 0/0, no preference;
  the choice falls back to uniform, p_J = 1/K.
- g T + (K - 1) M = 0 with K >= 2 (M = 0 and g = 0 while T f_B > 0): then p_B = 1 exactly, so
  the remainder 1 - p_B is 0 and p_J = 0 for J != B (pure greedy), without dividing 0 by 0.
- Floats: p_J for J != B is evaluated as q (T f_J + M) with q = (1 - p_B)/(g T + (K - 1) M)
  computed once per move; the compiled loop evaluates every expression in the same order.
- Random numbers, per move and in this order: one uniform for the tie only when
  ``tie_break="random"`` and two or more J share the maximum f (index floor(u * n) among the tied
  J, in increasing order); one uniform for J (drawn even when K = 1); one uniform for the total.
  All come from ``Generator.random()`` of the one PCG64 generator, so the compiled loop and the
  Python reference give identical tables, however the run is chunked, checkpointed or resumed.

Counts must stay below 2**53 for f_J to be exact divisions; that is far beyond any run.

The compiled loop is :mod:`dicejack.learners.handout.kernel`, its plain reference
:mod:`dicejack.learners.handout.reference`; traces (`learn --trace`, `--explain`) are
:mod:`dicejack.learners.handout.trace`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from dicejack.game import Game
from dicejack.learners.base import roll_guide
from dicejack.learners.checks import (
    LearnerError,
    check_choice,
    check_count,
    check_games_limit,
    check_seed,
    check_table_sizes,
)
from dicejack.learners.formulas import check_m, check_tables, learned_tables
from dicejack.learners.handout.reference import self_play_python
from dicejack.learners.playing import play_to, run_target
from dicejack.runtime import interrupts

__all__ = ["LearnRun", "Session", "TIE_BREAKS", "ENGINES", "learn", "resume", "frozen_counts"]


#: How J is chosen among actions that share the best f_J.
TIE_BREAKS = ("lowest", "random")


#: "numba": the compiled loop in :mod:`dicejack.learners.handout.kernel`; "python": the plain
#: reference here.
ENGINES = ("numba", "python")



def _check_game_size(game: Game, snapshots: int = 0) -> None:
    """The handout learner's own limits: its tables in memory and the dice-sum CDF it samples."""
    need = (3 + 2 * snapshots) * game.table_bytes  # win, lose, f cache; snapshots
    tables = "win/lose tables and snapshots" if snapshots else "win/lose tables"
    check_table_sizes(game, need, "the learner", tables)


# ---------------------------------------------------------------------------- runs
@dataclass(frozen=True, eq=False)
class LearnRun:
    """A learning run's result: the tables after `games` games, and all it takes to resume.

    win, lose: int64 (low, low, n_dice + 1), read-only. snapshots: {games: (win, lose)} at the
    requested checkpoints. rng_state: the PCG64 ``bit_generator.state`` after `games` games.
    """

    game: Game
    m: float
    games: int
    seed: int
    win: np.ndarray
    lose: np.ndarray
    rng_state: Mapping[str, Any]
    tie_break: str = "lowest"
    moves: int = 0
    snapshots: Mapping[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    @cached_property
    def tables(self) -> tuple[np.ndarray, np.ndarray]:
        """(best_dice, win_probability): see :func:`learned_tables`."""
        best, prob = learned_tables(self.win, self.lose)
        best.setflags(write=False)
        prob.setflags(write=False)
        return best, prob

    def best_dice(self) -> np.ndarray:
        """LxL best number of dice per state (0 where unvisited)."""
        return self.tables[0]

    def win_probability(self) -> np.ndarray:
        """LxL estimated win probability of the best J (-1 where unvisited)."""
        return self.tables[1]

    def generator(self) -> np.random.Generator:
        """A fresh Generator positioned where this run stopped."""
        bitgen = np.random.PCG64()
        bitgen.state = dict(self.rng_state)
        return np.random.Generator(bitgen)


def _kernel_caches(
    win: np.ndarray, lose: np.ndarray, cdf: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The compiled loop's helpers: f cache ([.., 0] = T, [.., j] = f_j) and roll-search guide.

    f_j = win/(win+lose) here is the same correctly rounded float64 division as in the loops.
    """
    w = win.astype(np.float64)
    d = w + lose
    with np.errstate(invalid="ignore", divide="ignore"):
        fcache = np.where(d > 0, w / np.where(d > 0, d, 1.0), 0.5)
    fcache[..., 0] = d.sum(axis=-1)
    return np.ascontiguousarray(fcache), roll_guide(cdf)


def frozen_counts(a: np.ndarray) -> np.ndarray:
    """A read-only int64 copy of a count table (as LearnRun holds its tables)."""
    a = np.array(a, dtype=np.int64, copy=True)
    a.setflags(write=False)
    return a


class Session:
    """A learning run in progress: mutable tables and generator, advanced by :meth:`play`.

    The compiled loop updates the tables, the game/move counters and the generator in place, one
    whole game at a time, so the session is consistent whenever Python regains control (the CLI
    relies on this to save a run on Ctrl-C). With engine="python" an interrupt may land mid-game.
    """

    def __init__(
        self,
        game: Game,
        m: float = 100.0,
        seed: int | None = None,
        *,
        tie_break: str = "lowest",
        engine: str = "numba",
        start: LearnRun | None = None,
    ) -> None:
        if not isinstance(game, Game):
            raise LearnerError(f"game must be a Game, got {type(game).__name__}")
        self.engine = check_choice("engine", engine, ENGINES)
        if start is not None:
            if start.game != game:
                raise LearnerError(f"the run to resume is from a different game ({start.game})")
            m, seed, tie_break = start.m, start.seed, start.tie_break
        self.game = game
        self.m = check_m(m, game.n_dice)
        self.seed = check_seed(seed)
        self.tie_break = check_choice("tie_break", tie_break, TIE_BREAKS)
        _check_game_size(game)
        self._cdf = np.ascontiguousarray(game.sum_cdf_table, dtype=np.float64)
        self._counters = np.zeros(2, dtype=np.int64)  # games, moves
        if start is None:
            self.win = np.zeros(game.table_shape, dtype=np.int64)
            self.lose = np.zeros(game.table_shape, dtype=np.int64)
            self.rng = np.random.default_rng(self.seed)
        else:
            win, lose = check_tables(start.win, start.lose)
            if win.shape != game.table_shape:
                raise LearnerError(f"run tables have shape {win.shape}, not {game.table_shape}")
            self.win = np.array(win, dtype=np.int64, order="C", copy=True)
            self.lose = np.array(lose, dtype=np.int64, order="C", copy=True)
            self.rng = start.generator()
            self._counters[:] = (start.games, start.moves)
        self.snapshots: dict[int, tuple[np.ndarray, np.ndarray]] = (
            dict(start.snapshots) if start is not None else {}
        )
        if self.engine == "numba":
            self._fcache, self._guide = _kernel_caches(self.win, self.lose, self._cdf)

    @property
    def played(self) -> int:
        """Games played so far (including those of the run this session resumed)."""
        return int(self._counters[0])

    @property
    def moves(self) -> int:
        """Moves played so far."""
        return int(self._counters[1])

    def play(self, games: int) -> None:
        """Play `games` more games (chunking never changes the result)."""
        games = check_games_limit(check_count("games", games))
        if games == 0:
            return
        random_ties = self.tie_break == "random"
        g = self.game
        if self.engine == "numba":
            with interrupts.atomic():  # a signal inside an import can hang the next one
                from dicejack.learners import pcg
                from dicejack.learners.handout import kernel
            pcg.stepping(
                self.rng, kernel.loop_for(g.n_dice, random_ties), self.win, self.lose,
                self._fcache, self._counters, self._cdf, self._guide, g.low, g.high, self.m,
                games, random_ties,
            )
        else:
            self_play_python(
                self.win, self.lose, self._counters, self._cdf, g.low, g.high, self.m, games,
                self.rng, random_ties,
            )

    def snapshot(self) -> None:
        """Keep a copy of the current tables under the current game count."""
        self.snapshots[self.played] = (frozen_counts(self.win), frozen_counts(self.lose))

    def result(self) -> LearnRun:
        """The run so far, as a frozen :class:`LearnRun` (copies)."""
        return LearnRun(
            game=self.game,
            m=self.m,
            games=self.played,
            seed=self.seed,
            win=frozen_counts(self.win),
            lose=frozen_counts(self.lose),
            rng_state=self.rng.bit_generator.state,
            tie_break=self.tie_break,
            moves=self.moves,
            snapshots=dict(sorted(self.snapshots.items())),
        )

    def run_to(
        self,
        games: int,
        checkpoints: Iterable[int] = (),
        progress: Callable[[Session], None] | None = None,
        chunk_seconds: float | None = None,
    ) -> LearnRun:
        """Play until `games` games in total, snapshotting at each checkpoint; return the run.

        With chunk_seconds, games are played in chunks sized to last about that long and
        progress(session) is called after each; chunking never changes the result.
        """
        games, marks = run_target(games, self.played, checkpoints)
        _check_game_size(self.game, len(self.snapshots) + len(marks))
        play_to(self, marks, games, progress, chunk_seconds)
        return self.result()


def learn(
    game: Game,
    m: float = 100.0,
    games: int = 100_000,
    seed: int | None = None,
    *,
    checkpoints: Iterable[int] = (),
    tie_break: str = "lowest",
    engine: str = "numba",
) -> LearnRun:
    """Self-play `games` games from scratch; snapshots of the tables at each checkpoint.

    seed=None draws a fresh seed (recorded in the run). engine="python" runs the reference loop:
    identical tables, about 100x slower.
    """
    session = Session(game, m, seed, tie_break=tie_break, engine=engine)
    return session.run_to(games, checkpoints)


def resume(
    run: LearnRun, games: int, *, checkpoints: Iterable[int] = (), engine: str = "numba"
) -> LearnRun:
    """Continue `run` to `games` games in total; equals a straight run of that many games."""
    session = Session(run.game, engine=engine, start=run)
    return session.run_to(games, checkpoints)

