"""The generic solver's default path: value iteration in place (Gauss-Seidel), one strongly
connected component at a time, compiled (numba), each cyclic component swept to a
floating-point fixed point, and an error bound (DESIGN.md, "Games beyond the handout's").

The strongly connected components of the state graph (Tarjan's, compiled) are solved one at a
time, each after the components it leads to; a component's states are swept in an order that
puts successors first but for the edges that close cycles (:data:`SMALL_COMPONENT`), each new
value used at once by the states after it (Gauss-Seidel), so one sweep carries values down a
whole chain of moves (Pig's turn totals) and only real cycles (two pigs in a row) take repeated
sweeps. A component without a cycle takes one backup (backward induction). A cyclic one is
swept until no value changes by more than a few units in the last place
(:data:`FIXED_POINT_ULPS`). Then the whole solution is bounded:

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

__all__ = ["solve_in_place", "components", "FIXED_POINT_ULPS", "MAX_SWEEPS"]

#: A cyclic component is at its fixed point when no value changes by more than this many units
#: in the last place of its largest value (|V| at least 1).
FIXED_POINT_ULPS = 4
#: The most sweeps of one component (values, then expected moves) before giving up.
MAX_SWEEPS = 200_000
_EPS = float(np.finfo(np.float64).eps)
#: Components up to this many states are swept in depth-first finishing order (successors
#: first, but for the edges that close cycles); larger ones in descending index order (a
#: breadth-first number's successors come after it; memory is read in order).
SMALL_COMPONENT = 1 << 15


def _components_plain(row_start, indptr, indices, members, comp_start):
    """Tarjan's strongly connected components of the state graph (iterative), each written
    to `members` as it completes: a component comes after every component it leads to (the
    terminal states first), its states in the order :data:`SMALL_COMPONENT` says.
    comp_start[c] is where component c begins; returns the number of components."""
    n = row_start.shape[0] - 1
    index = np.full(n, -1, dtype=np.int32)
    low = np.zeros(n, dtype=np.int32)
    stack = np.empty(n, dtype=np.int32)
    on_stack = np.zeros(n, dtype=np.bool_)
    call_node = np.empty(n, dtype=np.int32)
    call_edge = np.empty(n, dtype=np.int64)
    finish = np.empty(n, dtype=np.int32)
    counter, top, n_comp, filled, finished = 0, 0, 0, 0, 0
    for root in range(n):
        if index[root] >= 0:
            continue
        index[root] = counter
        low[root] = counter
        counter += 1
        stack[top] = root
        top += 1
        on_stack[root] = True
        call_node[0] = root
        call_edge[0] = indptr[row_start[root]]
        depth = 1
        while depth > 0:
            v = call_node[depth - 1]
            e = call_edge[depth - 1]
            if e < indptr[row_start[v + 1]]:
                call_edge[depth - 1] = e + 1
                w = indices[e]
                if index[w] < 0:
                    index[w] = counter
                    low[w] = counter
                    counter += 1
                    stack[top] = w
                    top += 1
                    on_stack[w] = True
                    call_node[depth] = w
                    call_edge[depth] = indptr[row_start[w]]
                    depth += 1
                elif on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
                continue
            depth -= 1
            finish[v] = finished
            finished += 1
            if depth > 0 and low[v] < low[call_node[depth - 1]]:
                low[call_node[depth - 1]] = low[v]
            if low[v] == index[v]:
                comp_start[n_comp] = filled
                while True:
                    top -= 1
                    w = stack[top]
                    on_stack[w] = False
                    members[filled] = w
                    filled += 1
                    if w == v:
                        break
                first = comp_start[n_comp]
                part = members[first:filled]
                if filled - first > SMALL_COMPONENT:  # descending index: in memory order
                    members[first:filled] = np.sort(part)[::-1]
                elif filled - first > 1:  # the order the depth-first search left them in
                    members[first:filled] = part[np.argsort(finish[part])]
                n_comp += 1
    comp_start[n_comp] = filled
    return n_comp


def _gauss_seidel_plain(n_comp, comp_start, members, row_start, indptr, indices, data, reward,
                        rewarded, sign, v, ulps, max_sweeps, weights, fixed, played):
    """Each component in turn (members as :func:`_components_plain` leaves them), its states
    set to their best row's value in place (player 0 maximises, sign 1; player 1 minimises,
    sign -1), or, with `played` where fixed[s], to their rows' values averaged by `weights`;
    a component with a cycle swept again until no value changes by more than `ulps` units in
    the last place of its largest (at least 1). Returns (sweeps, the first component that did
    not settle in `max_sweeps` or -1, the number of components with a cycle)."""
    eps = np.finfo(np.float64).eps
    sweeps = 0
    n_cyclic = 0
    for c in range(n_comp):
        a, b = comp_start[c], comp_start[c + 1]
        if b - a == 1 and row_start[members[a]] == row_start[members[a] + 1]:
            continue
        cyclic = b - a > 1
        if not cyclic:
            s = members[a]
            for e in range(indptr[row_start[s]], indptr[row_start[s + 1]]):
                if indices[e] == s:
                    cyclic = True
        n_cyclic += cyclic
        done = 0
        while True:
            change = 0.0
            big = 1.0
            for i in range(a, b):
                s = members[i]
                if row_start[s] == row_start[s + 1]:
                    continue
                best = -np.inf
                mean = 0.0
                average = played and fixed[s]
                for r in range(row_start[s], row_start[s + 1]):
                    q = 0.0
                    for e in range(indptr[r], indptr[r + 1]):
                        q += data[e] * v[indices[e]]
                    if rewarded:
                        q += reward[r]
                    if average:
                        mean += weights[r] * q
                    elif sign[s] * q > best:
                        best = sign[s] * q
                new = mean if average else sign[s] * best
                change = max(change, abs(new - v[s]))
                big = max(big, abs(new))
                v[s] = new
            done += 1
            if not cyclic or change <= ulps * eps * big:
                break
            if done >= max_sweeps:
                return sweeps + done, c, n_cyclic
        sweeps += done
    return sweeps, -1, n_cyclic


def _residual_plain(order, row_start, indptr, indices, data, reward, rewarded, sign, v, greedy):
    """The largest |backup(v) - v| over `order` (v unchanged: Jacobi), and each state's first
    best row written to greedy[s]."""
    worst = 0.0
    for i in range(order.shape[0]):
        s = order[i]
        best = -np.inf
        for r in range(row_start[s], row_start[s + 1]):
            q = 0.0
            for e in range(indptr[r], indptr[r + 1]):
                q += data[e] * v[indices[e]]
            if rewarded:
                q += reward[r]
            q *= sign[s]
            if q > best:
                best = q
                greedy[s] = r
        d = abs(sign[s] * best - v[s])
        if d > worst:
            worst = d
    return worst


def _moves_plain(n_comp, comp_start, members, row_start, indptr, indices, data, greedy, t,
                max_sweeps):
    """Expected moves to the end of the game from every state under the rows `greedy`
    (t = 1 + P t; 0 at terminal states), component by component as :func:`_gauss_seidel_plain`
    sweeps, until a sweep adds less than 1e-6 of the component's largest."""
    for c in range(n_comp):
        a, b = comp_start[c], comp_start[c + 1]
        done = 0
        while done < max_sweeps:
            change = 0.0
            top = 0.0
            for i in range(a, b):
                s = members[i]
                if row_start[s] == row_start[s + 1]:
                    continue
                r = greedy[s]
                x = 1.0
                for e in range(indptr[r], indptr[r + 1]):
                    x += data[e] * t[indices[e]]
                change = max(change, abs(x - t[s]))
                top = max(top, x)
                t[s] = x
            done += 1
            if change <= 1e-6 * top:
                break


def _compiled(plain):
    from numba import njit

    return njit(cache=True, nogil=True)(plain)


_KERNELS: dict[str, object] = {}


def _kernel(name: str, compiled: bool):
    """The kernel `name` (gauss_seidel, residual, moves): compiled (numba), or the plain
    reference."""
    plain = {"components": _components_plain, "gauss_seidel": _gauss_seidel_plain,
             "residual": _residual_plain, "moves": _moves_plain}[name]
    if not compiled:
        return plain
    if name not in _KERNELS:
        _KERNELS[name] = _compiled(plain)
    return _KERNELS[name]


def components(space, compiled: bool = True) -> tuple[int, np.ndarray, np.ndarray]:
    """(number, comp_start, members): the strongly connected components of the state graph,
    each after those it leads to (:func:`_components_plain`)."""
    t = space.transitions
    members = np.empty(space.n_states, dtype=np.int32)
    comp_start = np.empty(space.n_states + 1, dtype=np.int32)
    n_comp = _kernel("components", compiled)(space.row_start, t.indptr, t.indices, members,
                                             comp_start)
    return n_comp, comp_start[:n_comp + 1].copy(), members


def solve_in_place(space, v: np.ndarray, compiled: bool = True, weights=None,
                   fixed=None) -> tuple[int, int, float]:
    """Optimal values of `space` component by component into `v` (payoffs at terminal states
    on entry), as the module docstring says; returns (sweeps of non-terminal states'
    components, components with a cycle, error bound). With `weights` (per row) and `fixed`
    (per state), the fixed states play those weights (a policy's values: all fixed; a best
    response: the other seat's fixed); the bound is then left out (None). SolverError when a
    cyclic component does not settle (a game that need not end)."""
    from dicejack.solver.solution import SolverError

    played = weights is not None
    policy = (np.asarray(weights, dtype=np.float64) if played else np.zeros(1),
              np.asarray(fixed, dtype=np.bool_) if played else np.zeros(1, dtype=np.bool_),
              played)

    t = space.transitions
    rewarded = space.reward is not None
    graph = (space.row_start, t.indptr, t.indices, t.data,
             space.reward if rewarded else np.zeros(1), rewarded,
             np.where(space.player == 1, -1.0, 1.0))
    comps = components(space, compiled)
    sweeps, failed, n_cyclic = _kernel("gauss_seidel", compiled)(
        *comps, *graph, v, FIXED_POINT_ULPS, MAX_SWEEPS, *policy)
    if failed >= 0:
        raise SolverError(f"value iteration on {space.label} did not settle in {MAX_SWEEPS} "
                          "sweeps of one strongly connected component: does every game end "
                          "with probability 1?")
    if played:
        return sweeps, n_cyclic, None
    return sweeps, n_cyclic, _error_bound(space, comps, graph, v, compiled)


def _error_bound(space, comps, graph, v, compiled) -> float:
    """2 * (the largest expected number of moves to the end under the greedy pair) * (the
    Bellman residual, computed afresh, plus one unit in the last place for its rounding)."""
    live = np.flatnonzero(~space.terminal)
    if not len(live):
        return 0.0
    greedy = np.zeros(space.n_states, dtype=np.int64)
    rho = _kernel("residual", compiled)(live, *graph, v, greedy)
    del live
    moves = np.zeros(space.n_states)
    _kernel("moves", compiled)(*comps, *graph[:4], greedy, moves, MAX_SWEEPS)
    scale = max(1.0, float(np.max(np.abs(v))))
    return 2.0 * float(np.max(moves)) * (float(rho) + _EPS * scale)
