"""What the counting learners share (mc-epsilon, ucb, thompson, and in part the handout's own
:class:`dicejack.learners.handout.Handout`): the handout's WinCount/LoseCount tables, their
greedy tables, their state, and the checks of a state to restore.

Each counting learner differs only in how it picks J in a state (its `play_compiled` and
`play_reference` loops); it counts, estimates and reports exactly as the handout's learner does
(:func:`dicejack.learners.formulas.learned_tables`), so differences in what they learn come from the
explore rule alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from dicejack.games.handout_rules import Game
from dicejack.learners.base import (
    SelfPlaying,
    Tables,
    check_learner_size,
    generator_from_text,
    readonly,
    roll_tables,
    state_array,
    state_int,
)
from dicejack.learners.checks import LearnerError
from dicejack.learners.formulas import learned_tables

__all__ = ["CountingLearner", "check_counts", "count_tables", "f_cache"]


def check_counts(
    game: Game, state: Mapping[str, Any], games: int, moves: int
) -> tuple[np.ndarray, np.ndarray]:
    """(win, lose) of a state, checked: int (L, L, K+1), >= 0, column J = 0 zero, <0,0> passed
    once per game (T(0,0) = games) and one count per move (sum = moves); LearnerError if not."""
    win = state_array(state, "win", game.table_shape, "iu")
    lose = state_array(state, "lose", game.table_shape, "iu")
    for name, table in (("win", win), ("lose", lose)):
        if table.size and (table.min() < 0 or table[..., 0].any()):
            raise LearnerError(f"the learner state's {name} has negative counts or column J=0")
    win = np.array(win, dtype=np.int64, order="C")
    lose = np.array(lose, dtype=np.int64, order="C")
    if int(win[0, 0].sum() + lose[0, 0].sum()) != games:
        raise LearnerError(f"the learner state's tables record a number of games other than "
                           f"{games}")
    if int(win.sum() + lose.sum()) != moves:
        raise LearnerError(f"the learner state's tables record a number of moves other than "
                           f"{moves}")
    return win, lose


def count_tables(win: np.ndarray, lose: np.ndarray) -> Tables:
    """The handout's output arrays from the counts, with the moves made from each state."""
    best, prob = learned_tables(win, lose)
    visits = (win[..., 1:] + lose[..., 1:]).sum(axis=-1)
    return Tables(readonly(best), readonly(prob), readonly(visits))


def f_cache(win: np.ndarray, lose: np.ndarray) -> np.ndarray:
    """The compiled loops' cache: [.., 0] = T as a float, [.., j] = the handout's f_j (the same
    correctly rounded division as the loops)."""
    w = win.astype(np.float64)
    d = w + lose
    with np.errstate(invalid="ignore", divide="ignore"):
        f = np.where(d > 0, w / np.where(d > 0, d, 1.0), 0.5)
    f[..., 0] = d.sum(axis=-1)
    return np.ascontiguousarray(f)


class CountingLearner(SelfPlaying):
    """A learner that keeps the handout's win/lose counts; subclasses choose J.

    ``Cls(game, seed=None, *, engine="numba", **params)``; engine "python" runs the plain
    reference loop (identical tables, about 100x slower). win, lose: the counts (int64
    (L, L, K+1)); rng: the generator; counters: [games, moves]; cdf, guide: the roll tables
    (:func:`~dicejack.learners.base.roll_tables`); fcache: the compiled loop's f cache
    (:func:`f_cache`). The loops update these arrays in place.
    """

    #: The keys of :meth:`state` (a run file holds exactly these; others are refused unread).
    STATE_KEYS = ("win", "lose", "games", "moves", "rng_state")

    #: float64 tables of the game's per-action shape the learner holds (memory check).
    TABLES = 3

    def __init__(
        self, game: Game, seed: int | None = None, *, engine: str = "numba", **params: Any
    ) -> None:
        self.setup(game, seed, params, engine)
        check_learner_size(game, self.TABLES, self.NAME)
        self.cdf, self.guide = roll_tables(game)
        self.win = np.zeros(game.table_shape, dtype=np.int64)
        self.lose = np.zeros(game.table_shape, dtype=np.int64)
        self.rng = np.random.default_rng(self.seed)
        self.counters = np.zeros(2, dtype=np.int64)  # games, moves
        self.refresh_caches()

    def refresh_caches(self) -> None:
        """Rebuild the compiled loop's caches from the counts."""
        self.fcache = f_cache(self.win, self.lose) if self.engine == "numba" else None

    def tables(self) -> Tables:
        """Best J (by the handout's estimate, among the J tried), its estimate, visits."""
        return count_tables(self.win, self.lose)

    def state(self) -> dict[str, Any]:
        """win, lose (copies), games, moves and rng_state (JSON text)."""
        return {"win": self.win.copy(), "lose": self.lose.copy(), **self.progress_state()}

    @classmethod
    def restore(
        cls, game: Game, seed: int, params: Mapping[str, Any], state: Mapping[str, Any], *,
        engine: str = "numba",
    ) -> CountingLearner:
        """The learner that `state` (from :meth:`state`) describes; LearnerError if the state is
        not one this learner could have reached."""
        obj = cls(game, seed, engine=engine, **params)
        games, moves = state_int(state, "games"), state_int(state, "moves")
        obj.win, obj.lose = check_counts(game, state, games, moves)
        obj.rng = generator_from_text(state.get("rng_state"))
        obj.counters[:] = (games, moves)
        obj.refresh_caches()
        return obj
