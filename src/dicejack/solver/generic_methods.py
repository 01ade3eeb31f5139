"""The solve's methods on the cyclic levels (:mod:`dicejack.solver.generic_levels`) besides the
default compiled path (:mod:`dicejack.solver.generic_sweeps`): synchronous sweeps of
``Q = R + T @ V`` (scipy.sparse) level by level until no value changes by more than a tolerance
(``method="value-iteration"``), and policy iteration (``method="policy-iteration"``: a
policy's values by a sparse linear solve, then improved; for two players Hoffman and Karp's,
the minimiser's best response solved exactly inside every step of the maximiser). A level
without cycles takes one backup whatever the method.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dicejack.games.space import StateSpace
from dicejack.solver.generic_levels import Levels
from dicejack.solver.solution import SolverError

__all__ = ["sweep_levels", "levels_policy_iteration", "DEFAULT_TOLERANCE", "MAX_SWEEPS"]

#: Value iteration stops a level when no value changed by more than this in a sweep.
DEFAULT_TOLERANCE = 1e-13
#: The most sweeps one cyclic level may take before the solve is called not converging.
MAX_SWEEPS = 100_000


# ------------------------------------------------------------------------------- the sweeps
def _rewards(space: StateSpace, rows: np.ndarray | None = None) -> np.ndarray | float:
    """Player 0's reward per row (of `rows`, or of every row); 0.0 for a game without."""
    if space.reward is None:
        return 0.0
    return space.reward if rows is None else space.reward[rows]


def sweep_levels(
    space: StateSpace,
    levels: Levels,
    tolerance: float,
    weights: np.ndarray | None = None,
    fixed: np.ndarray | None = None,
) -> tuple[np.ndarray, int]:
    """Values of every state, level by level (value iteration: module docstring): states where
    `fixed` is True average their rows' Q by `weights`; the others maximise (player 0) or
    minimise (player 1).
    Returns (values, sweeps)."""
    return _sweep_levels_from(space, levels, tolerance, weights, fixed, space.payoff.copy())


def _sweep_levels_from(
    space: StateSpace,
    levels: Levels,
    tolerance: float,
    weights: np.ndarray | None,
    fixed: np.ndarray | None,
    v: np.ndarray,
) -> tuple[np.ndarray, int]:
    """:func:`sweep_levels` on the values `v` (changed in place and returned)."""
    sign_state = np.where(space.player == 1, -1.0, 1.0)
    sign_row = sign_state[space.row_state]
    sweeps = 0
    for h, members in enumerate(levels.states):
        if not len(members):
            continue
        matrix, starts, rows = levels.matrices[h], levels.starts[h], levels.rows[h]
        s_sign, r_sign = sign_state[members], sign_row[rows]
        fix = None if fixed is None else fixed[members]
        w = None if weights is None else weights[rows]
        reward = _rewards(space, rows)
        for _ in range(MAX_SWEEPS):
            q = matrix @ v + reward
            new = s_sign * np.maximum.reduceat(r_sign * q, starts)
            if fix is not None and fix.any():
                new = np.where(fix, np.add.reduceat(w * q, starts), new)
            change = float(np.max(np.abs(new - v[members])))
            v[members] = new
            sweeps += 1
            if not levels.cyclic[h] or change <= tolerance:
                break
        else:
            raise SolverError(
                f"value iteration on {space.label} did not converge in {MAX_SWEEPS} sweeps of "
                f"one level (last change {change:.3g}): does every game end with probability 1?"
            )
    return v, sweeps


# ----------------------------------------------------------------------------- policy iteration
def levels_policy_iteration(
    space: StateSpace,
    levels: Levels,
    weights: np.ndarray | None = None,
    fixed: np.ndarray | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
) -> tuple[np.ndarray, int]:
    """Values by policy iteration on every cyclic level (one backup on the others); states
    where `fixed` is True play `weights`. Returns (values, policy evaluations made)."""
    v = space.payoff.copy()
    sign_state = np.where(space.player == 1, -1.0, 1.0)
    sign_row = sign_state[space.row_state]
    if fixed is None:
        fixed = np.zeros(space.n_states, dtype=bool)
    evaluations = 0
    for h, members in enumerate(levels.states):
        if not len(members):
            continue
        matrix, starts, rows = levels.matrices[h], levels.starts[h], levels.rows[h]
        if not levels.cyclic[h]:
            q = matrix @ v + _rewards(space, rows)
            new = sign_state[members] * np.maximum.reduceat(sign_row[rows] * q, starts)
            fix = fixed[members]
            if fix.any():
                new = np.where(fix, np.add.reduceat(weights[rows] * q, starts), new)
            v[members] = new
            evaluations += 1
            continue
        evaluations += _policy_iteration_level(space, levels, h, v, sign_state, sign_row,
                                               weights, fixed, tolerance)
    return v, evaluations


def _level_split(space: StateSpace, members: np.ndarray, matrix: Any, rows: np.ndarray,
                 v: np.ndarray) -> tuple[Any, np.ndarray]:
    """Level `members`' rows (`matrix`, one row per action) split into (the part that stays
    on the level, as a sparse matrix over its states; the rest with the rewards, as a number
    per row from the values `v` of the lower levels)."""
    from scipy import sparse

    m = len(members)
    local = np.full(space.n_states, -1, dtype=np.int64)
    local[members] = np.arange(m)
    coo = matrix.tocoo()
    inside = local[coo.col] >= 0
    inner = sparse.csr_matrix((coo.data[inside], (coo.row[inside], local[coo.col[inside]])),
                              shape=(len(rows), m))
    outside = np.asarray(sparse.csr_matrix(
        (coo.data[~inside], (coo.row[~inside], coo.col[~inside])), shape=(len(rows), len(v))
    ) @ v) + _rewards(space, rows)
    return inner, outside


def _policy_iteration_level(space: StateSpace, levels: Levels, h: int, v: np.ndarray,
                            sign_state: np.ndarray, sign_row: np.ndarray,
                            weights: np.ndarray | None, fixed: np.ndarray,
                            tolerance: float) -> int:
    """Policy iteration on level h, writing its values into `v`; the evaluations made. Fixed
    states play `weights`; with both players free, Hoffman-Karp (player 1's best response by
    policy iteration inside every step of player 0). A policy pair whose linear system is
    singular (a game that need not end) falls back to value iteration on the level."""
    import warnings

    from scipy import sparse
    from scipy.sparse.linalg import MatrixRankWarning, spsolve

    members, matrix, starts = levels.states[h], levels.matrices[h], levels.starts[h]
    rows = levels.rows[h]
    m = len(members)
    counts = np.diff(np.append(starts, len(rows)))
    inner, outside = _level_split(space, members, matrix, rows, v)
    player = space.player[members]
    fix = fixed[members]
    owner = np.repeat(np.arange(m), counts)
    fixed_rows = np.repeat(fix, counts)
    r_sign = sign_row[rows]
    evaluations = 0

    def evaluate(choice: np.ndarray) -> np.ndarray | None:
        nonlocal evaluations
        w = np.zeros(len(rows))
        if fixed_rows.any():
            w[fixed_rows] = weights[rows[fixed_rows]]
        free = np.flatnonzero(~fix)
        w[starts[free] + choice[free]] = 1.0
        pick = sparse.csr_matrix((w, (owner, np.arange(len(rows)))), shape=(m, len(rows)))
        a = (sparse.identity(m, format="csc") - (pick @ inner).tocsc())
        evaluations += 1
        with warnings.catch_warnings():
            warnings.simplefilter("error", MatrixRankWarning)
            try:
                values = np.atleast_1d(spsolve(a, pick @ outside))
            except (MatrixRankWarning, RuntimeError):
                return None
        return values if np.all(np.isfinite(values)) else None

    def improve(choice: np.ndarray, values: np.ndarray, who: int) -> bool:
        """Switch `who`'s free states to a strictly better action (ties keep the old one)."""
        q = r_sign * (inner @ values + outside)
        top = np.maximum.reduceat(q, starts)
        current = q[starts + choice]
        better = (top > current + 1e-12) & (player == who) & ~fix
        if not better.any():
            return False
        for i in np.flatnonzero(better):
            seg = q[starts[i]:starts[i] + counts[i]]
            choice[i] = int(np.argmax(seg >= top[i] - 1e-15))
        return True

    free_players = [p for p in (0, 1) if np.any((player == p) & ~fix)]
    choice = np.zeros(m, dtype=np.int64)
    values: np.ndarray | None = None
    for _outer in range(10_000):
        for _inner in range(10_000):  # the last free player's best response to the rest
            values = evaluate(choice)
            if values is None or not free_players or not improve(choice, values,
                                                                  free_players[-1]):
                break
        if values is None or len(free_players) < 2 or not improve(choice, values,
                                                                  free_players[0]):
            break
    else:  # pragma: no cover - finite in theory
        raise SolverError("policy iteration did not settle")
    if values is None:  # a game that need not end under some policies: value iteration here
        single = Levels(levels.height, [members], [rows], [starts], [True], [matrix])
        fixed_all = np.zeros(space.n_states, dtype=bool)
        fixed_all[members] = fix
        swept, sweeps = _sweep_levels_from(space, single, tolerance, weights, fixed_all, v)
        v[members] = swept[members]
        return evaluations + sweeps
    v[members] = values
    return evaluations
