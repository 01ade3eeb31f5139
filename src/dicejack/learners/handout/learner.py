"""The handout's counting learner (the learner ``handout``) and its run: the rules it plays by.

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
:mod:`dicejack.learners.handout.reference_loop`; traces (`learn --trace`, `--explain`) are
:mod:`dicejack.learners.handout.trace`. The learner runs in the harness like every other
(:class:`dicejack.learners.harness.Session`); its run, :class:`HandoutRun`, is a
:class:`~dicejack.learners.base.Run` that also shows its counts, M and tie-break.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from dicejack.games.handout_rules import Game
from dicejack.learners.base import (
    Param,
    Run,
    SelfPlaying,
    Tables,
    generator_from_text,
    roll_guide,
    state_int,
)
from dicejack.learners.checks import LearnerError, check_table_sizes
from dicejack.learners.counting import check_counts, count_tables
from dicejack.learners.formulas import check_m
from dicejack.learners.handout.reference_loop import self_play_python
from dicejack.runtime import interrupts

__all__ = ["Handout", "HandoutRun", "TIE_BREAKS", "ENGINES"]


#: How J is chosen among actions that share the best f_J.
TIE_BREAKS = ("lowest", "random")


#: "numba": the compiled loop in :mod:`dicejack.learners.handout.kernel`; "python": the plain
#: reference of :mod:`dicejack.learners.handout.reference_loop`.
ENGINES = ("numba", "python")


class HandoutRun(Run):
    """A :class:`~dicejack.learners.base.Run` of the handout's learner, which also shows what the
    handout names: the counts (``win``, ``lose``: WinCount and LoseCount, int64
    (low, low, n_dice + 1), read-only), ``m``, ``tie_break`` and the generator's ``rng_state``."""

    @property
    def win(self) -> np.ndarray:
        """WinCount after `games` games."""
        return self._state("win")

    @property
    def lose(self) -> np.ndarray:
        """LoseCount after `games` games."""
        return self._state("lose")

    @property
    def m(self) -> float:
        """M, the explore/exploit constant."""
        return float(self.params["m"])

    @property
    def tie_break(self) -> str:
        """How B is chosen among tied f_J (lowest or random)."""
        return str(self.params["tie_break"])

    @property
    def rng_state(self) -> dict[str, Any]:
        """The PCG64 ``bit_generator.state`` after `games` games."""
        return json.loads(self._state("rng_state"))

    def generator(self) -> np.random.Generator:
        """A fresh Generator positioned where this run stopped."""
        return generator_from_text(self._state("rng_state"))

    def _state(self, key: str) -> Any:
        """state[key]; the handout's learner always exports its state (LearnerError if not)."""
        if self.state is None or key not in self.state:
            raise LearnerError(f"this handout run has no {key} in its state")
        return self.state[key]


def _check_game_size(game: Game) -> None:
    """The handout learner's own limits: its tables in memory and the dice-sum CDF it samples."""
    check_table_sizes(game, 3 * game.table_bytes, "the learner", "win/lose tables")


class Handout(SelfPlaying):
    """The handout's counting learner: ``Handout(game, seed=None, *, engine="numba", m=100.0,
    tie_break="lowest")``. win and lose are its count tables (int64, updated in place by the
    loops one whole game at a time, so the learner is consistent whenever Python regains
    control); its runs are :class:`HandoutRun`.
    """

    NAME = "handout"
    #: The keys of :meth:`state` (a run file holds exactly these; others are refused unread).
    STATE_KEYS = ("win", "lose", "games", "moves", "rng_state")
    SUMMARY = "the handout's counting learner (p_J explore rule)"
    PARAMS = (
        Param("m", 100.0, "M, the handout's explore/exploit constant", low=0.0),
        Param("tie_break", "lowest", "B among tied f_J", kind="choice", choices=TIE_BREAKS),
    )
    RUN_TYPE: ClassVar[type[Run]] = HandoutRun

    def __init__(
        self, game: Game, seed: int | None = None, *, engine: str = "numba", **params: Any
    ) -> None:
        self.setup(game, seed, params, engine)
        self.params["m"] = check_m(self.params["m"], game.n_dice)
        _check_game_size(game)
        self._cdf = np.ascontiguousarray(game.sum_cdf_table, dtype=np.float64)
        self.counters = np.zeros(2, dtype=np.int64)  # games, moves
        self.win = np.zeros(game.table_shape, dtype=np.int64)
        self.lose = np.zeros(game.table_shape, dtype=np.int64)
        self.rng = np.random.default_rng(self.seed)
        self._caches: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def m(self) -> float:
        """M, the explore/exploit constant."""
        return float(self.params["m"])

    @property
    def tie_break(self) -> str:
        """How B is chosen among tied f_J."""
        return str(self.params["tie_break"])

    def play_compiled(self, games: int) -> None:
        """`games` games of the compiled loop (:mod:`dicejack.learners.handout.kernel`)."""
        with interrupts.atomic():  # a signal inside an import can hang the next one
            from dicejack.learners import pcg
            from dicejack.learners.handout import kernel
        if self._caches is None:
            self._caches = _kernel_caches(self.win, self.lose, self._cdf)
        random_ties, g = self.tie_break == "random", self.game
        pcg.stepping(
            self.rng, kernel.loop_for(g.n_dice, random_ties), self.win, self.lose,
            self._caches[0], self.counters, self._cdf, self._caches[1], g.low, g.high, self.m,
            games, random_ties,
        )

    def play_reference(self, games: int) -> None:
        """`games` games of the plain reference loop (identical tables, about 100x slower)."""
        self._caches = None  # the f cache follows the counts only in the compiled loop
        self_play_python(
            self.win, self.lose, self.counters, self._cdf, self.game.low, self.game.high,
            self.m, games, self.rng, self.tie_break == "random",
        )

    def tables(self) -> Tables:
        """The handout's two output arrays (:func:`~dicejack.learners.formulas.learned_tables`),
        and the visits."""
        return count_tables(self.win, self.lose)

    def state(self) -> dict[str, Any]:
        """win, lose (copies), games, moves and rng_state (JSON text)."""
        return {"win": self.win.copy(), "lose": self.lose.copy(), **self.progress_state()}

    @classmethod
    def restore(
        cls, game: Game, seed: int, params: Mapping[str, Any], state: Mapping[str, Any], *,
        engine: str = "numba",
    ) -> Handout:
        """The learner that `state` (from :meth:`state`) describes; LearnerError if the counts
        do not add up to its games and moves or the generator state is not PCG64's."""
        obj = cls(game, seed, engine=engine, **params)
        games, moves = state_int(state, "games"), state_int(state, "moves")
        obj.win, obj.lose = check_counts(game, state, games, moves)
        obj.rng = generator_from_text(state.get("rng_state"))
        obj.counters[:] = (games, moves)
        return obj

    @classmethod
    def at(cls, run: Run, *, engine: str = "numba") -> Handout:
        """The learner positioned where `run` (a run of the handout's learner) stopped."""
        return cls.restore(run.game, run.seed, run.params, run.state or {}, engine=engine)


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
