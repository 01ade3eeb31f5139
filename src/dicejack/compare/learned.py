"""What a caller hands `compare`, as one `Learned`, through explicit constructors that never
guess: printed tables (best J, estimate), the raw counts (win, lose), q-values (with visits), a
policy alone (a callable (x, y) -> J, a table of J, an action distribution, or an object a
framework bridge registered, e.g. an OpenSpiel policy once :mod:`dicejack.envs.openspiel` is
imported), any learner's run or tables. Arrays that look like something else (q-values handed
as counts) are refused with the constructor to use."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dicejack.compare.truth import CompareError
from dicejack.games.handout_rules import Game


@dataclass(frozen=True, eq=False)
class Learned:
    """A learned table as the handout prints it: best J per state and its estimated win chance.

    best: (L, L) int64, 0 where the state has no data; probability: (L, L) float64, -1 where there
    is no estimate; has_data: best in 1..K. source: where it came from (for messages).
    distribution: for a mixed policy, its (L, L, K+1) action distribution (best is then its most
    likely J), which the policy metrics use instead of the greedy policy; else None.
    """

    best: np.ndarray
    probability: np.ndarray
    has_data: np.ndarray
    source: str = ""
    distribution: np.ndarray | None = None

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
    if not (_whole_counts(win) and _whole_counts(lose)):
        raise CompareError(
            "(L, L, K+1) arrays are read as the counts (win, lose), but these hold fractions or "
            "negative numbers: for q-values (with visits) use "
            "compare.learned_from_q(game, q, visits)"
        )
    best, prob = formulas.learned_tables(win, lose)
    return learned_from_tables(game, best, prob, source=source)


def learned_from_q(
    game: Game, q: Any, visits: Any = None, *, returns: bool = False, source: str = ""
) -> Learned:
    """A :class:`Learned` from a tabular agent's q-values (L, L, K+1), through
    :func:`dicejack.compare.frameworks.greedy_tables`: the best J among those visited (every J
    without `visits`) and its q as the estimate. `returns`: q holds values in [-1, 1] (win +1,
    loss -1, as OpenSpiel and most RL code keep them) rather than win probabilities."""
    from dicejack.compare.frameworks import greedy_tables, value_to_probability

    q_a = np.asarray(q, dtype=np.float64) if returns else q
    best, probability = greedy_tables(game, value_to_probability(q_a) if returns else q_a, visits)
    return learned_from_tables(game, best, probability, source=source)


#: Readers of framework policies that dicejack's bridges register (see
#: :func:`register_policy_reader`): (test, read) pairs, read(game, obj) -> (L, L, K+1) distribution.
_POLICY_READERS: list[tuple[Callable[[Any], bool], Callable[[Game, Any], np.ndarray]]] = []


def register_policy_reader(
    test: Callable[[Any], bool], read: Callable[[Game, Any], np.ndarray]
) -> None:
    """Teach :func:`learned_from_policy` a framework's policy objects: `test(obj)` says whether
    it is one, `read(game, obj)` gives its (L, L, K+1) action distribution. Bridges above compare
    (:mod:`dicejack.envs.openspiel`) register on import, so compare never imports them."""
    _POLICY_READERS.append((test, read))


def learned_from_policy(
    game: Game, policy: Any, *, zero_based: bool = False, source: str = ""
) -> Learned:
    """A :class:`Learned` from a policy alone, with no estimates (the probability metrics are
    then NaN, "not available"): a callable (x, y) -> J, an (L, L) table of J (-1 or NaN = no
    data), an (L, L, K+1) action distribution (a row of NaN = no data), a Solution, or a
    registered framework policy (an OpenSpiel policy once :mod:`dicejack.envs.openspiel` is
    imported). J counts from 1: a 0 is refused as a 0-based policy, unless `zero_based` (a
    table or callable of actions 0..K-1, J = action + 1)."""
    from dicejack.solver.solution import SolverError, no_data_mask, policy_distribution

    for test, read in _POLICY_READERS:
        if test(policy):
            policy = read(game, policy)
            break
    else:
        if hasattr(policy, "action_probabilities"):
            raise CompareError(
                "this looks like an OpenSpiel policy: import dicejack.envs.openspiel first (pip "
                "install '.[openspiel]' in a clone of dicejack), so that compare can read it"
            )
    try:
        dist = policy_distribution(game, policy, zero_based=zero_based)
    except SolverError as exc:
        raise CompareError(str(exc)) from exc
    pure = np.isclose(dist[:, :, 1:].max(axis=2), 1.0)
    best = np.argmax(dist[:, :, 1:], axis=2).astype(np.int64) + 1
    has = ~no_data_mask(game, policy)
    best = np.where(has, best, 0)
    out = learned_from_tables(game, best, np.full(game.shape, -1.0), source=source)
    if pure.all() and np.array_equal(out.has_data, has):
        return out
    dist.setflags(write=False)
    return Learned(out.best, out.probability, has, source, distribution=dist)


def as_learned(game: Game, obj: Any, *, zero_based: bool = False) -> Learned:
    """Accept a :class:`Learned`, a counting run (anything with game/win/lose), any other run
    with ``tables`` = (best, probability) (and optionally ``game`` and ``label``), a pair:
    (best, probability), each (L, L), or the raw counts (win, lose), each (L, L, K+1), or a
    policy alone (:func:`learned_from_policy`; `zero_based` for a table or callable of actions
    0..K-1)."""
    if isinstance(obj, Learned):
        if obj.best.shape != game.shape:
            raise CompareError(f"the learned table is not {game.low}x{game.low}")
        return obj
    if hasattr(obj, "win") and hasattr(obj, "lose"):
        run_game = getattr(obj, "game", None)
        if run_game is not None and run_game != game:
            raise CompareError(f"the run is from another game ({run_game}), not {game}")
        label = getattr(obj, "label", "")
        if not isinstance(label, str):
            label = ""
        if not label and hasattr(obj, "m"):  # the handout's own run (handout.HandoutRun)
            tie = getattr(obj, "tie_break", None)
            label = (f"handout m={obj.m:g}" + (f" tie_break={tie}" if tie else "")
                     + f" seed={obj.seed} games={obj.games}")  # as learners.Run.label
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
    if callable(obj) or any(test(obj) for test, _ in _POLICY_READERS) or (
        hasattr(obj, "action_probabilities")
    ):
        return learned_from_policy(game, obj, zero_based=zero_based)
    if isinstance(obj, np.ndarray) and obj.shape in (game.shape, game.table_shape):
        return learned_from_policy(game, obj, zero_based=zero_based)
    raise CompareError(
        f"cannot compare a {type(obj).__name__}; pass a run, (best, probability), (win, lose), "
        "a policy, or use learned_from_q / learned_from_policy"
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


def _whole_counts(a: np.ndarray) -> bool:
    """Non-negative whole numbers, as WinCount/LoseCount are."""
    if np.issubdtype(a.dtype, np.integer):
        return bool(a.size == 0 or a.min() >= 0)
    f = np.asarray(a, dtype=np.float64)
    return bool(np.all(np.isfinite(f)) and np.all(f >= 0) and np.all(f == np.round(f)))
