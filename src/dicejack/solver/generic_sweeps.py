"""The generic solver's default path: value iteration in place (Gauss-Seidel), level by level,
compiled (numba), each cyclic level swept to a floating-point fixed point and given an error
bound (DESIGN.md, "Games beyond the handout's").

Within a level the states are swept in descending index order, each state's new value used at
once by the states after it (Gauss-Seidel): breadth-first enumeration numbers a state's
successors after it, so one sweep carries a value down a whole chain of moves (Pig's turn
totals) and only the level's real cycles (two pigs in a row) take repeated sweeps. A level
without cycles takes one sweep (backward induction). A cyclic level is swept until no value
changes by more than a few units in the last place (:data:`FIXED_POINT_ULPS`). Then the
whole solution is bounded:

    |error| <= 2 * T * (rho + ulp)

where rho is the Bellman residual ``max |backup(V) - V|`` over every state, computed afresh
(plus one unit in the last place for the rounding of that backup), and T the greatest expected
number of moves to the end of the game under the greedy pair of policies (``t = 1 + P t``,
swept the same way from below until a sweep adds less than 1e-6 of it; the factor 2 covers
what the sweeps did not reach). The values solve the greedy pair's equations with residual
rho, so they are within T * rho of that pair's values; the greedy pair is optimal once no
action changes, which is what a fixed point means. The bound is
:attr:`GameSolution.error_bound`: a printed digit is right when moving the value by the bound
does not change it.

Each kernel is a plain Python function (``*_plain``, the reference, run by the tests on small
games) compiled by numba without a change (``_gauss_seidel`` etc.); tests hold the two equal.
"""

from __future__ import annotations

import numpy as np

__all__ = ["sweep_levels_in_place", "FIXED_POINT_ULPS", "MAX_SWEEPS"]

#: A cyclic level is at its fixed point when no value changes by more than this many units
#: in the last place of the level's largest value (|V| at least 1).
FIXED_POINT_ULPS = 4
#: The most sweeps of one level (values, then expected moves) before giving up.
MAX_SWEEPS = 200_000
_EPS = float(np.finfo(np.float64).eps)


def _gauss_seidel_plain(order, row_start, indptr, indices, data, reward, sign, v, stop,
                        max_sweeps):
    """Sweep the states `order` (in that order) in place, each to its best row's value
    (player 0 maximises, sign 1; player 1 minimises, sign -1), until no value changes by more
    than `stop`; returns (sweeps, last change)."""
    sweeps = 0
    change = np.inf
    while sweeps < max_sweeps:
        change = 0.0
        for i in range(order.shape[0]):
            s = order[i]
            best = -np.inf
            for r in range(row_start[s], row_start[s + 1]):
                q = reward[r]
                for e in range(indptr[r], indptr[r + 1]):
                    q += data[e] * v[indices[e]]
                q *= sign[s]
                if q > best:
                    best = q
            new = sign[s] * best
            d = abs(new - v[s])
            if d > change:
                change = d
            v[s] = new
        sweeps += 1
        if change <= stop:
            break
    return sweeps, change


def _residual_plain(order, row_start, indptr, indices, data, reward, sign, v, greedy):
    """The largest |backup(v) - v| over `order` (v unchanged: Jacobi), and each state's first
    best row written to greedy[s]."""
    worst = 0.0
    for i in range(order.shape[0]):
        s = order[i]
        best = -np.inf
        for r in range(row_start[s], row_start[s + 1]):
            q = reward[r]
            for e in range(indptr[r], indptr[r + 1]):
                q += data[e] * v[indices[e]]
            q *= sign[s]
            if q > best:
                best = q
                greedy[s] = r
        d = abs(sign[s] * best - v[s])
        if d > worst:
            worst = d
    return worst


def _moves_plain(order, indptr, indices, data, greedy, t, max_sweeps):
    """Expected moves to the end of the game from each state of `order` under the rows
    `greedy` (t = 1 + P t, the successors' t final or on the level), swept in place until a
    sweep adds less than 1e-6 of the largest; returns sweeps."""
    sweeps = 0
    while sweeps < max_sweeps:
        change = 0.0
        top = 0.0
        for i in range(order.shape[0]):
            s = order[i]
            r = greedy[s]
            x = 1.0
            for e in range(indptr[r], indptr[r + 1]):
                x += data[e] * t[indices[e]]
            d = abs(x - t[s])
            if d > change:
                change = d
            t[s] = x
            if x > top:
                top = x
        sweeps += 1
        if change <= 1e-6 * top:
            break
    return sweeps


def _compiled(plain):
    from numba import njit

    return njit(cache=True, nogil=True)(plain)


_KERNELS: dict[str, object] = {}


def _kernel(name: str, compiled: bool):
    """The kernel `name` (gauss_seidel, residual, moves): compiled (numba), or the plain
    reference."""
    plain = {"gauss_seidel": _gauss_seidel_plain, "residual": _residual_plain,
             "moves": _moves_plain}[name]
    if not compiled:
        return plain
    if name not in _KERNELS:
        _KERNELS[name] = _compiled(plain)
    return _KERNELS[name]


def sweep_levels_in_place(space, levels, v: np.ndarray,
                          compiled: bool = True) -> tuple[int, float]:
    """Optimal values of `space` level by level into `v` (payoffs at terminal states on entry),
    as the module docstring says; returns (sweeps, error bound). SolverError when a cyclic
    level does not settle (a game that need not end)."""
    from dicejack.solver.solution import SolverError

    t = space.transitions
    graph = (space.row_start, t.indptr, t.indices, t.data,
             space.reward if space.reward is not None else np.zeros(space.n_rows),
             np.where(space.player == 1, -1.0, 1.0))
    gauss_seidel = _kernel("gauss_seidel", compiled)
    sweeps = 0
    orders = [members[::-1].copy() for members in levels.states]
    for h, order in enumerate(orders):
        if not len(order):
            continue
        cyclic = levels.cyclic[h]
        stop = FIXED_POINT_ULPS * _EPS * max(1.0, float(np.max(np.abs(v[order]))))
        done, change = gauss_seidel(order, *graph, v, stop if cyclic else np.inf,
                                    MAX_SWEEPS if cyclic else 1)
        sweeps += done
        if cyclic and change > stop:
            raise SolverError(f"value iteration on {space.label} did not settle in {MAX_SWEEPS} "
                              f"sweeps of one level (last change {change:.3g}): does every "
                              "game end with probability 1?")
    return sweeps, _error_bound(space, levels, orders, graph, v, compiled)


def _error_bound(space, levels, orders, graph, v, compiled) -> float:
    """2 * (the largest expected number of moves to the end under the greedy pair) * (the
    Bellman residual, computed afresh, plus one unit in the last place for its rounding)."""
    live = np.flatnonzero(~space.terminal)
    if not len(live):
        return 0.0
    greedy = np.zeros(space.n_states, dtype=np.int64)
    rho = _kernel("residual", compiled)(live, *graph, v, greedy)
    moves = np.zeros(space.n_states)
    row_start, indptr, indices, data = graph[:4]
    for h, order in enumerate(orders):
        if len(order):
            _kernel("moves", compiled)(order, indptr, indices, data, greedy, moves,
                                       MAX_SWEEPS if levels.cyclic[h] else 1)
    scale = max(1.0, float(np.max(np.abs(v))))
    return 2.0 * float(np.max(moves)) * (float(rho) + _EPS * scale)
