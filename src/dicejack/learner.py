"""The handout's counting learner, to the letter, compiled and as a plain Python reference.

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

Traces (`learn --trace`, `--explain`) live in :mod:`dicejack.trace`, which replays games in
:func:`play_one_python`; its names (:func:`trace`, :func:`replay_trace`, :class:`Choice`, ...)
stay reachable here, loaded on first use.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from dicejack.formulas import (
    LearnerError,
    action_probabilities,
    check_m,
    check_tables,
    estimates,
    learned_tables,
    move_probabilities,
    tied_best,
)
from dicejack.game import CONTINUES, MOVER_WINS, Game, outcome, roll_total

__all__ = [
    "LearnerError",
    "LearnRun",
    "Session",
    "TIE_BREAKS",
    "ENGINES",
    "LEARNER_BYTES_LIMIT",
    "CDF_ENTRIES_LIMIT",
    "GAMES_LIMIT",
    "GAMES_PER_SECOND",
    "check_games_limit",
    "duration_text",
    "learn",
    "resume",
    "action_probabilities",
    "learned_tables",
    "tied_best",
    "record_game",
    "updated_counts",
    "check_m",
    "frozen_counts",
    "check_table_sizes",
    "play_one_python",
    "run_target",
]

#: Names defined in :mod:`dicejack.trace` (which imports this module), reachable here too
#: (``learner.trace``, ``from dicejack.learner import Choice``), though not in ``__all__``.
TRACE_NAMES = frozenset(
    {"Choice", "CountUpdate", "TracedMove", "TracedGame", "replay_game", "trace", "replay_trace"}
)


def __getattr__(name: str) -> Any:
    """``learner.trace`` etc.: the trace names, from :mod:`dicejack.trace` on first use."""
    if name in TRACE_NAMES:
        import dicejack.trace

        return getattr(dicejack.trace, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's names and the ones it serves on first use (tab completion)."""
    return sorted({*globals(), *TRACE_NAMES})


#: How J is chosen among actions that share the best f_J.
TIE_BREAKS = ("lowest", "random")
#: "numba": the compiled loop in :mod:`dicejack.kernels`; "python": the plain reference here.
ENGINES = ("numba", "python")
#: Largest memory the learner's two int64 tables plus snapshots may take.
LEARNER_BYTES_LIMIT = 8 * 2**30
#: Largest exact dice-sum CDF table (n_dice + 1) * (n_dice * n_sides + 1) the learner builds.
CDF_ENTRIES_LIMIT = 2**22
#: Most games one run may be asked for: 10**12, about two days on one core at the rate below
#: (and far below int64, whose overflow would corrupt the counts).
GAMES_LIMIT = 10**12
#: Learner games per second on one core, the handout's game (measured; for time estimates only).
GAMES_PER_SECOND = 6_000_000
#: Largest seed stored in run files (a non-negative int64).
SEED_LIMIT = 2**63


# ---------------------------------------------------------------------------------- checks
def check_count(name: str, value: object) -> int:
    """A whole number >= 0 (games, checkpoints); LearnerError otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise LearnerError(f"{name} must be a whole number, got {value!r}")
    if value < 0:
        raise LearnerError(f"{name} must be >= 0, got {value}")
    return int(value)


def duration_text(seconds: float) -> str:
    """A rough duration for the user: '40 minutes', '3 days', '5,300 years'."""
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("hours", 3600),
                       ("minutes", 60)):
        if seconds >= 2 * size:
            amount = seconds / size
            return f"{amount:,.0f} {unit}" if amount < 1e15 else f"{amount:.1e} {unit}"
    return f"{seconds:.0f} seconds"


def check_games_limit(games: int, name: str = "games", limit: int = GAMES_LIMIT) -> int:
    """`games` if it is at most `limit`; else a LearnerError naming the size and the time it
    would take at :data:`GAMES_PER_SECOND`."""
    if games > limit:
        try:
            shown = f"{float(games):.3g}" if games >= 10**6 else str(games)
            took = f"about {duration_text(games / GAMES_PER_SECOND)}"
        except OverflowError:
            shown, took = f"~1e{int(games.bit_length() * 0.30103)}", "longer than the universe"
        raise LearnerError(
            f"{name} {shown} is more than the limit of {limit:.0e} games (it would take {took} "
            f"at {GAMES_PER_SECOND:,} games/s)"
        )
    return games


def check_seed(seed: object) -> int:
    """A seed in 0..2**63-1 (None draws a fresh one); LearnerError otherwise."""
    if seed is None:
        return int(np.random.SeedSequence().entropy % SEED_LIMIT)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise LearnerError(f"seed must be a whole number, got {seed!r}")
    if not 0 <= seed < SEED_LIMIT:
        raise LearnerError(f"seed must be in 0..2**63-1, got {seed}")
    return int(seed)


def _check_choice(name: str, value: str, allowed: Sequence[str]) -> str:
    if value not in allowed:
        raise LearnerError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
    return value


def check_table_sizes(game: Game, need: int, name: str, tables: str = "tables") -> None:
    """A learner's limits: `need` bytes of `tables` within :data:`LEARNER_BYTES_LIMIT` and the
    game's exact dice-sum CDF within :data:`CDF_ENTRIES_LIMIT`; else a LearnerError naming the
    learner (`name`, e.g. "the learner") and its `tables`."""
    if need > LEARNER_BYTES_LIMIT:
        raise LearnerError(
            f"game too large for {name}: its {tables} need {need / 2**30:.1f} GiB, over the "
            f"{LEARNER_BYTES_LIMIT / 2**30:.0f} GiB limit"
        )
    entries = (game.n_dice + 1) * (game.n_dice * game.n_sides + 1)
    if entries > CDF_ENTRIES_LIMIT:
        raise LearnerError(
            f"NDice={game.n_dice} is too large for {name}'s exact dice-sum tables "
            f"((NDice+1)*(NDice*NSides+1) = {entries} entries, limit {CDF_ENTRIES_LIMIT})"
        )


def _check_game_size(game: Game, snapshots: int = 0) -> None:
    """The handout learner's own limits: its tables in memory and the dice-sum CDF it samples."""
    need = (3 + 2 * snapshots) * game.table_bytes  # win, lose, f cache; snapshots
    tables = "win/lose tables and snapshots" if snapshots else "win/lose tables"
    check_table_sizes(game, need, "the learner", tables)


# ------------------------------------------------------------------ the counts' update
def record_game(
    win: np.ndarray | list,
    lose: np.ndarray | list,
    moves: Sequence[tuple[int, int, int]],
    winner: str,
) -> None:
    """Update the counts in place after one finished game (the handout's table update).

    moves alternate A, B, A, ... from A; each (X, Y, J) of the winner adds 1 to win[X, Y, J], each
    of the loser 1 to lose[X, Y, J]. Works on numpy tables and on nested lists.
    """
    for won, x, y, j in updated_counts(moves, winner):
        (win if won else lose)[x][y][j] += 1


def updated_counts(
    moves: Sequence[tuple[int, int, int]], winner: str
) -> list[tuple[bool, int, int, int]]:
    """The cells a finished game increments, in move order: (True for WinCount, X, Y, J).

    moves alternate A, B, A, ... from A: the winner's moves count in WinCount, the loser's in
    LoseCount (the handout's update; :func:`record_game` applies it).
    """
    if winner not in ("A", "B"):
        raise LearnerError(f"winner must be 'A' or 'B', got {winner!r}")
    w = 0 if winner == "A" else 1
    return [(i % 2 == w, x, y, j) for i, (x, y, j) in enumerate(moves)]


# ----------------------------------------------------------------- reference self-play
def play_one_python(
    win: list, lose: list, cdf_rows: list[list[float]], low: int, high: int, k: int, m: float,
    rng: np.random.Generator, random_ties: bool, choices: list[tuple[Any, ...]] | None = None,
) -> tuple[list[tuple[int, int, int, int]], str]:
    """One self-play game on nested-list tables (not updated): moves (X, Y, J, total), winner.

    With a `choices` list, each move's computation is appended to it as the fields of a
    :class:`dicejack.trace.Choice`, in order (the numbers below, as they are; recording draws
    nothing and changes nothing).
    """
    moves: list[tuple[int, int, int, int]] = []
    a = b = 0
    mover = 0
    while True:
        wrow = win[a][b]
        lrow = lose[a][b]
        f, total, best = estimates(wrow, lrow, k)
        tie_draw = None
        if random_ties:
            tied = [j for j in range(1, k + 1) if f[j] == f[best]]
            if len(tied) > 1:
                n = len(tied)
                tie_draw = rng.random()
                best = tied[min(int(tie_draw * n), n - 1)]
        p = move_probabilities(f, total, best, k, m)
        # The handout's sampler: u_i cumulative, first i with x < u_i, else K.
        x = rng.random()
        j = k
        u = p[0]
        for i in range(1, k):
            u += p[i]
            if x < u:
                j = i
                break
        roll_draw = rng.random()
        t = roll_total(cdf_rows[j], roll_draw)
        if choices is not None:
            choices.append((
                a, b, tuple(int(v) for v in wrow), tuple(int(v) for v in lrow), tuple(f), total,
                best, tuple(jj for jj in range(1, k + 1) if f[jj] == f[best]), tie_draw,
                tuple(p), x, j, roll_draw,
            ))
        moves.append((a, b, j, t))
        new = a + t
        result = outcome(new, low, high)
        if result != CONTINUES:
            return moves, "AB"[mover if result == MOVER_WINS else 1 - mover]
        a, b = b, new
        mover = 1 - mover


def _self_play_python(
    win: np.ndarray, lose: np.ndarray, counters: np.ndarray, cdf: np.ndarray, low: int,
    high: int, m: float, games: int, rng: np.random.Generator, random_ties: bool,
) -> None:
    """The reference loop: same contract as ``kernels.learner_self_play``, plain Python."""
    k = win.shape[2] - 1
    wl, ll = win.tolist(), lose.tolist()
    cdf_rows = cdf.tolist()
    try:
        for _ in range(games):
            moves, winner = play_one_python(wl, ll, cdf_rows, low, high, k, m, rng, random_ties)
            record_game(wl, ll, [mv[:3] for mv in moves], winner)
            counters[0] += 1
            counters[1] += len(moves)
    finally:
        win[...] = wl
        lose[...] = ll


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


def roll_guide(cdf: np.ndarray) -> np.ndarray:
    """The compiled loops' start points for drawing a roll total with one uniform x:
    guide[j, floor(x * G)] is where the search for the first t with x < cdf[j, t] begins; the
    kernels correct it both ways, so the total is exactly :func:`dicejack.game.roll_total`'s.
    4 buckets per possible total (fewer steps after the guess), within a size cap."""
    buckets = cdf.shape[1] * (4 if cdf.size * 4 <= CDF_ENTRIES_LIMIT else 1)
    levels = np.arange(buckets) / buckets
    guide = np.stack([np.searchsorted(row, levels, side="right") for row in cdf])
    return np.ascontiguousarray(np.minimum(guide, cdf.shape[1] - 1).astype(np.int64))


def frozen_counts(a: np.ndarray) -> np.ndarray:
    """A read-only int64 copy of a count table (as LearnRun holds its tables)."""
    a = np.array(a, dtype=np.int64, copy=True)
    a.setflags(write=False)
    return a


def checkpoint_marks(checkpoints: Iterable[int], played: int, games: int) -> list[int]:
    """The checkpoints, sorted without repeats; LearnerError unless each lies in played..games."""
    marks = sorted({check_count("checkpoint", c) for c in checkpoints})
    bad = [c for c in marks if not played <= c <= games]
    if bad:
        raise LearnerError(
            f"checkpoints must lie in {played}..{games}, got {', '.join(map(str, bad))}"
        )
    return marks


def run_target(
    games: int, played: int, checkpoints: Iterable[int] = ()
) -> tuple[int, list[int]]:
    """(games, marks) for a session that has `played` games and is to play to `games` in total:
    `games` a whole number within :data:`GAMES_LIMIT` and at least `played`, the checkpoints as
    :func:`checkpoint_marks` gives them; LearnerError otherwise."""
    games = check_games_limit(check_count("games", games))
    if games < played:
        raise LearnerError(f"the run already has {played} games; games must be >= that")
    return games, checkpoint_marks(checkpoints, played, games)


def play_to(
    session: Any,
    marks: Sequence[int],
    games: int,
    progress: Callable[[Any], None] | None = None,
    chunk_seconds: float | None = None,
) -> None:
    """Play `session` (anything with ``played``, ``play(n)`` and ``snapshot()``) to `games` games,
    with a snapshot at each mark. With chunk_seconds, games go in chunks sized to last about that
    long, progress(session) after each; chunking never changes what is learnt."""
    chunk = 1_000 if chunk_seconds is not None else None
    for target in [*marks, games]:
        while session.played < target:
            left = target - session.played
            step = left if chunk is None else min(left, chunk)
            started = time.perf_counter()
            session.play(step)
            if chunk_seconds is not None:
                took = max(time.perf_counter() - started, 1e-6)
                chunk = max(1, min(10 * step, int(step * chunk_seconds / took)))
            if progress is not None:
                progress(session)
        if target in marks:
            session.snapshot()


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
        self.engine = _check_choice("engine", engine, ENGINES)
        if start is not None:
            if start.game != game:
                raise LearnerError(f"the run to resume is from a different game ({start.game})")
            m, seed, tie_break = start.m, start.seed, start.tie_break
        self.game = game
        self.m = check_m(m, game.n_dice)
        self.seed = check_seed(seed)
        self.tie_break = _check_choice("tie_break", tie_break, TIE_BREAKS)
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
            from dicejack import kernels

            kernels.learner_self_play(
                self.win, self.lose, self._fcache, self._counters, self._cdf, self._guide,
                g.low, g.high, self.m, games, self.rng, random_ties,
            )
        else:
            _self_play_python(
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
