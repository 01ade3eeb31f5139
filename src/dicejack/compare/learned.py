"""What a caller hands `compare`, as one `Learned`: printed tables (best J, estimate), the raw
counts (win, lose), any learner's run or tables."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dicejack.compare.truth import CompareError
from dicejack.game import Game


@dataclass(frozen=True, eq=False)
class Learned:
    """A learned table as the handout prints it: best J per state and its estimated win chance.

    best: (L, L) int64, 0 where the state has no data; probability: (L, L) float64, -1 where there
    is no estimate; has_data: best in 1..K. source: where it came from (for messages).
    """

    best: np.ndarray
    probability: np.ndarray
    has_data: np.ndarray
    source: str = ""

    @property
    def has_estimate(self) -> np.ndarray:
        """States with data and an estimate (a finite number other than -1)."""
        p = self.probability
        return self.has_data & np.isfinite(p) & (p != -1)


def learned_from_tables(
    game: Game,
    best: Any,
    probability: Any,
    *,
    no_data: Any = None,
    source: str = "",
) -> Learned:
    """A :class:`Learned` from the two printed arrays (any program's output).

    Cells of `best` outside 1..K, or marked in the optional `no_data` mask, have no data.
    """
    shape = game.shape
    best_a = np.asarray(best)
    prob_a = np.asarray(probability, dtype=np.float64)
    for name, a in (("policy", best_a), ("probability", prob_a)):
        if a.shape != shape:
            dims = "x".join(map(str, a.shape)) or "scalar"
            raise CompareError(
                f"the {name} table is {dims}, but LTarget={game.low} needs "
                f"{game.low}x{game.low}: tables from another game?"
            )
    if not np.issubdtype(best_a.dtype, np.integer):
        best_f = np.asarray(best_a, dtype=np.float64)
        whole = np.isfinite(best_f) & (best_f == np.round(best_f))
        best_a = np.where(whole, best_f, 0).astype(np.int64)
    best_a = best_a.astype(np.int64)
    has = (best_a >= 1) & (best_a <= game.n_dice)
    if no_data is not None:
        mask = np.asarray(no_data, dtype=bool)
        if mask.shape != shape:
            raise CompareError(f"the no-data mask must be {game.low}x{game.low}")
        has &= ~mask
    best_a = np.where(has, best_a, 0)
    prob_a = np.where(has, prob_a, -1.0)
    for a in (best_a, prob_a, has):
        a.setflags(write=False)
    return Learned(best=best_a, probability=prob_a, has_data=has, source=source)


def learned_from_counts(game: Game, win: Any, lose: Any, *, source: str = "") -> Learned:
    """A :class:`Learned` from the learner's WinCount/LoseCount tables, through
    :func:`dicejack.learners.formulas.learned_tables` (best J by estimate among J with data)."""
    from dicejack.learners import formulas

    win = np.asarray(win)
    lose = np.asarray(lose)
    if win.shape != game.table_shape or lose.shape != game.table_shape:
        raise CompareError(
            f"count tables have shape {win.shape} and {lose.shape}, but {game} needs "
            f"{game.table_shape}: a run from another game?"
        )
    best, prob = formulas.learned_tables(win, lose)
    return learned_from_tables(game, best, prob, source=source)


def as_learned(game: Game, obj: Any) -> Learned:
    """Accept a :class:`Learned`, a counting run (anything with game/win/lose), any other run
    with ``tables`` = (best, probability) (and optionally ``game`` and ``label``), or a pair:
    (best, probability), each (L, L), or the raw counts (win, lose), each (L, L, K+1)."""
    if isinstance(obj, Learned):
        if obj.best.shape != game.shape:
            raise CompareError(f"the learned table is not {game.low}x{game.low}")
        return obj
    if hasattr(obj, "win") and hasattr(obj, "lose"):
        run_game = getattr(obj, "game", None)
        if run_game is not None and run_game != game:
            raise CompareError(f"the run is from another game ({run_game}), not {game}")
        label = f"run m={obj.m:g} games={obj.games} seed={obj.seed}" if hasattr(obj, "m") else ""
        return learned_from_counts(game, obj.win, obj.lose, source=label)
    if hasattr(obj, "best") and hasattr(obj, "probability"):  # a learners.Tables (checkpoint)
        return learned_from_tables(game, obj.best, obj.probability)
    if hasattr(obj, "tables"):  # any learner's run (dicejack.learners): (best, probability)
        run_game = getattr(obj, "game", None)
        if run_game is not None and run_game != game:
            raise CompareError(f"the run is from another game ({run_game}), not {game}")
        best, probability = obj.tables
        return learned_from_tables(game, best, probability, source=str(getattr(obj, "label", "")))
    if isinstance(obj, (tuple, list)) and len(obj) == 2:
        return _learned_from_pair(game, obj[0], obj[1])
    raise CompareError(
        f"cannot compare a {type(obj).__name__}; pass a run, (best, probability) or (win, lose)"
    )


def _learned_from_pair(game: Game, first: Any, second: Any) -> Learned:
    """(best, probability), each (L, L), or the raw counts (win, lose), each (L, L, K+1)."""
    a, b = np.asarray(first), np.asarray(second)
    if a.ndim == b.ndim == 2:
        return learned_from_tables(game, a, b)
    if a.ndim == b.ndim == 3:
        return learned_from_counts(game, a, b)
    low, k1 = game.low, game.n_dice + 1
    raise CompareError(
        f"got arrays of shape {a.shape} and {b.shape}; pass (best, probability), each "
        f"{low}x{low}, or the counts (win, lose), each of shape ({low}, {low}, {k1})"
    )
