"""The generic solver's default path: one strongly connected component at a time, compiled
(numba), each cyclic component solved exactly (policy iteration on its few feedback states) or
swept in place (Gauss-Seidel value iteration) to a floating-point fixed point, and an error
bound (DESIGN.md, "Games beyond the handout's").

The strongly connected components of the state graph (Tarjan's, compiled) are solved one at a
time, each after the components it leads to; a component's states are swept in an order that
puts successors first but for the edges that close cycles (:data:`SMALL_COMPONENT`), each new
value used at once by the states after it (Gauss-Seidel), so one sweep carries values down a
whole chain of moves (Pig's turn totals) and only real cycles (two pigs in a row) take repeated
sweeps. A component without a cycle takes one backup (backward induction). A cyclic one takes
two sweeps, then, when it is small and few of its states (:data:`FEEDBACK_LIMIT`; Pig: two)
are reached by an edge before the sweep has updated them, policy iteration: under chosen rows
every value is affine in those feedback states' values (one pass), which solve a small linear
system; rows chosen again, until none changes (:func:`_feedback_plain`; Pig to 100: 4 passes
per component where sweeps took 40). Otherwise (PigReset's one component of 867,376 states)
it is swept, a steady geometric decay extrapolated now and then, until no value changes by
more than a few units in the last place (:data:`FIXED_POINT_ULPS`). Then the whole solution
is bounded:

    |error| <= 2 * T * (rho + ulp)

where rho is the Bellman residual ``max |backup(V) - V|`` over every state, computed afresh
(plus one unit in the last place for the rounding of that backup), and T the greatest expected
number of moves to the end of the game under the greedy pair of policies (``t = 1 + P t``,
solved the same way, swept from below until a sweep adds less than 1e-6 of it; the factor 2
covers what the sweeps did not reach). The values solve the greedy pair's equations with residual
rho, so they are within T * rho of that pair's values; the greedy pair is optimal once no
action changes, which is what a fixed point means. The bound is
:attr:`GameSolution.error_bound`: a printed digit is right when moving the value by the bound
does not change it.

Each kernel is a plain Python function (``*_plain``, the reference, run by the tests on small
games) compiled by numba without a change (:func:`_kernel`: the compiled kernels call compiled
callees by the same names); tests hold the two equal.
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
#: A small cyclic component is solved exactly (:func:`_feedback_plain`) when at most this many
#: of its states are reached by an edge before the sweep updates them; else swept.
FEEDBACK_LIMIT = 8


def _components_plain(row_start, indptr, indices, members, comp_start, small):
    """Tarjan's strongly connected components of the state graph (iterative), each written
    to `members` as it completes: a component comes after every component it leads to (the
    terminal states first), its states in the order :data:`SMALL_COMPONENT` says (`small`).
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
                if filled - first > small:  # descending index: in memory order
                    members[first:filled] = np.sort(part)[::-1]
                elif filled - first > 1:  # the order the depth-first search left them in
                    members[first:filled] = part[np.argsort(finish[part])]
                n_comp += 1
    comp_start[n_comp] = filled
    return n_comp


def _sweep_plain(a, b, members, row_start, indptr, indices, codes, table, reward, rewarded, sign, v,
                 weights, fixed, played):
    """One sweep of members[a:b] in place: each state to its best row's value (player 0
    maximises, sign 1; player 1 minimises, sign -1), or, with `played` where fixed[s], to its
    rows' values averaged by `weights`. Returns (largest change, largest |value|, at least 1)."""
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
            if average and weights[r] == 0.0:
                continue
            q = 0.0
            for e in range(indptr[r], indptr[r + 1]):
                q += table[codes[e]] * v[indices[e]]
            if rewarded:
                q += reward[r] if rewarded == 1 else reward[0]
            if average:
                mean += weights[r] * q
            elif sign[s] * q > best:
                best = sign[s] * q
        new = mean if average else sign[s] * best
        change = max(change, abs(new - v[s]))
        big = max(big, abs(new))
        v[s] = new
    return change, big


def _gauss_seidel_plain(n_comp, comp_start, members, row_start, indptr, indices, codes, table,
                        reward, rewarded, sign, v, ulps, max_sweeps, weights, fixed, played,
                        small, pos):
    """Each component in turn (members as :func:`_components_plain` leaves them) by `sweep`
    (:func:`_sweep_plain`); a component with a cycle by two sweeps then `feedback`
    (:func:`_feedback_plain`, when its feedback states are few), else swept again until no
    value changes by more than `ulps` units in the last place of its largest; in a large
    component (over `small` states: :data:`SMALL_COMPONENT`), once the largest change has
    shrunk by a steady ratio r (to 0.1 %) for 5 sweeps, the last sweep's changes are
    extrapolated (times r / (1 - r): the rest of a geometric decay) while the change is over
    100 times the stop, which takes PigReset's sweeps from 257 to 123; the stop and the bound
    stay as they are. `pos`: -1 per state (scratch). Returns (sweeps and feedback
    passes, the first component that did not settle in `max_sweeps` or -1, the number of
    components with a cycle)."""
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
        large = b - a > small
        before = np.empty(b - a if large else 0)
        done, since, last, ratio = 0, 0, 1.0, 0.0
        while True:
            for i in range(before.shape[0] if since >= 4 else 0):  # only if it may extrapolate
                before[i] = v[members[a + i]]
            change, big = _sweep(a, b, members, row_start, indptr, indices, codes, table, reward,
                                 rewarded, sign, v, weights, fixed, played)
            done += 1
            if not cyclic or change <= ulps * eps * big:
                break
            if done == 2 and not large:
                passes = _feedback(a, b, members, row_start, indptr, indices, codes, table, reward,
                                   rewarded, sign, v, weights, fixed, played, pos, ulps * eps)
                if passes >= 0:
                    done += passes
                    break
            if done >= max_sweeps:
                return sweeps + done, c, n_cyclic
            since, last, ratio, steady = since + 1, change, change / last, ratio
            if large and since >= 5 and abs(ratio - steady) < 1e-3 * ratio and ratio < 0.99 \
                    and change > 100 * ulps * eps * big:  # extrapolate the steady decay
                for i in range(b - a):
                    v[members[a + i]] += (v[members[a + i]] - before[i]) * ratio / (1 - ratio)
                since, last = 0, 1.0
        sweeps += done
    return sweeps, -1, n_cyclic


def _choose_plain(a, b, members, row_start, indptr, indices, codes, table, reward, rewarded,
                  sign, v, fixed, played, choice, margin):
    """Each free state's best row by the values `v` into choice (local positions), kept
    unless another is better by more than `margin` (relative); returns whether any changed."""
    changed = False
    for i in range(b - a):
        s = members[a + i]
        if played and fixed[s]:
            continue
        current = -np.inf
        best = -np.inf
        pick = row_start[s]
        for r in range(row_start[s], row_start[s + 1]):
            q = 0.0
            for e in range(indptr[r], indptr[r + 1]):
                q += table[codes[e]] * v[indices[e]]
            if rewarded:
                q += reward[r] if rewarded == 1 else reward[0]
            q *= sign[s]
            if r == choice[i]:
                current = q
            if q > best:
                best, pick = q, r
        if best > current + margin * max(1.0, abs(best)):
            choice[i] = pick
            changed = True
    return changed


def _feedback_plain(a, b, members, row_start, indptr, indices, codes, table, reward, rewarded, sign,
                    v, weights, fixed, played, pos, margin):
    """Solve component members[a:b] exactly by policy iteration: its feedback states F (those
    an edge reaches before the sweep order has updated them) at most :data:`FEEDBACK_LIMIT`,
    every value under the chosen rows is affine in F's values (one pass in sweep order), so
    F's values solve a small linear system (Gaussian elimination, partial pivoting); rows
    chosen again (:func:`_choose_plain`) until none changes. Returns the passes
    made, or -1 (v as it was) when F is too large, the system singular or the choices do not
    settle in 50 passes."""
    m = b - a
    for i in range(m):
        pos[members[a + i]] = i
    slot = np.full(m, -1, dtype=np.int64)
    feedback = np.empty(FEEDBACK_LIMIT, dtype=np.int64)
    f = 0
    for i in range(m):
        s = members[a + i]
        for e in range(indptr[row_start[s]], indptr[row_start[s + 1]]):
            pj = pos[indices[e]]
            if pj >= i and slot[pj] < 0:
                if f == FEEDBACK_LIMIT:
                    for k in range(m):
                        pos[members[a + k]] = -1
                    return -1
                slot[pj] = f
                feedback[f] = pj
                f += 1
    saved = v[members[a:b]].copy()
    choice = np.full(m, -1, dtype=np.int64)
    alpha = np.empty(m)
    beta = np.zeros((m, f))
    x = np.zeros(f)
    passes = 0
    settled = False
    for _ in range(50):
        changed = _choose(a, b, members, row_start, indptr, indices, codes, table, reward, rewarded,
                          sign, v, fixed, played, choice, margin)
        if passes and not changed:
            settled = True
            break
        passes += 1
        for i in range(m):
            s = members[a + i]
            alpha[i] = 0.0
            for k in range(f):
                beta[i, k] = 0.0
            average = played and fixed[s]
            for r in range(row_start[s], row_start[s + 1]):
                w = weights[r] if average else (1.0 if r == choice[i] else 0.0)
                if w == 0.0:
                    continue
                if rewarded:
                    alpha[i] += w * (reward[r] if rewarded == 1 else reward[0])
                for e in range(indptr[r], indptr[r + 1]):
                    j = indices[e]
                    p = w * table[codes[e]]
                    pj = pos[j]
                    if pj < 0:
                        alpha[i] += p * v[j]
                    elif slot[pj] >= 0:
                        beta[i, slot[pj]] += p
                    else:
                        alpha[i] += p * alpha[pj]
                        for k in range(f):
                            beta[i, k] += p * beta[pj, k]
        x = _small_solve(alpha, beta, feedback, f)
        if x.shape[0] < f:
            break
        for i in range(m):
            total = alpha[i]
            for k in range(f):
                total += beta[i, k] * x[k]
            v[members[a + i]] = total
    for i in range(m):
        pos[members[a + i]] = -1
        if not settled:
            v[members[a + i]] = saved[i]
    return passes if settled else -1


def _small_solve(alpha, beta, feedback, f):
    """x with x = alpha[F] + beta[F] x (F = feedback[:f]) by Gaussian elimination with partial
    pivoting; an empty array when the system is singular."""
    a = np.empty((f, f + 1))
    for k in range(f):
        for col in range(f):
            a[k, col] = (1.0 if k == col else 0.0) - beta[feedback[k], col]
        a[k, f] = alpha[feedback[k]]
    for col in range(f):
        piv = col
        for k in range(col + 1, f):
            if abs(a[k, col]) > abs(a[piv, col]):
                piv = k
        if abs(a[piv, col]) < 1e-13:
            return np.empty(0)
        for c2 in range(f + 1):
            a[col, c2], a[piv, c2] = a[piv, c2], a[col, c2]
        for k in range(f):
            if k != col:
                factor = a[k, col] / a[col, col]
                for c2 in range(col, f + 1):
                    a[k, c2] -= factor * a[col, c2]
    x = np.empty(f)
    for k in range(f):
        x[k] = a[k, f] / a[k, k]
    return x


#: The kernels' callees by the names they call them: the plain functions here, the compiled
#: ones in the compiled kernels' globals (:func:`_kernel`).
_sweep, _choose, _feedback = _sweep_plain, _choose_plain, _feedback_plain


def _residual_plain(order, row_start, indptr, indices, codes, table, reward, rewarded, sign, v,
                    greedy):
    """The largest |backup(v) - v| over `order` (v unchanged: Jacobi), and each state's first
    best row written to greedy[s]."""
    worst = 0.0
    for i in range(order.shape[0]):
        s = order[i]
        best = -np.inf
        for r in range(row_start[s], row_start[s + 1]):
            q = 0.0
            for e in range(indptr[r], indptr[r + 1]):
                q += table[codes[e]] * v[indices[e]]
            if rewarded:
                q += reward[r] if rewarded == 1 else reward[0]
            q *= sign[s]
            if q > best:
                best = q
                greedy[s] = r
        d = abs(sign[s] * best - v[s])
        if d > worst:
            worst = d
    return worst


def _bellman_plain(row_start, indptr, indices, codes, table, reward, rewarded, sign, v, q,
                   backed):
    """q[r]: every row's value under v (plus its reward); backed[s]: each non-terminal state's
    best q, max for player 0 and min for player 1 (terminal states' entries left as they
    are)."""
    for s in range(row_start.shape[0] - 1):
        best = -np.inf
        for r in range(row_start[s], row_start[s + 1]):
            total = 0.0
            for e in range(indptr[r], indptr[r + 1]):
                total += table[codes[e]] * v[indices[e]]
            if rewarded:
                total += reward[r]
            q[r] = total
            best = max(best, sign[s] * total)
        if row_start[s] < row_start[s + 1]:
            backed[s] = sign[s] * best
    return 0


def _optimal_plain(row_state, minimiser, v, q, tie, optimal):
    """optimal[r]: row r's q within `tie` of its state's value, for its mover (player 1's
    values negated: the same float operations as ``generic._finish``'s arrays)."""
    for r in range(q.shape[0]):
        at = v[row_state[r]]
        if minimiser[row_state[r]]:
            optimal[r] = -q[r] >= -at - tie
        else:
            optimal[r] = q[r] >= at - tie
    return 0


def _first_plain(row_start, optimal, best):
    """best[s]: the first row of state s marked in `optimal` (-1 where none)."""
    for s in range(row_start.shape[0] - 1):
        best[s] = -1
        for r in range(row_start[s], row_start[s + 1]):
            if optimal[r]:
                best[s] = r
                break
    return 0


_KERNELS: dict[str, object] = {}
_PLAIN = {"components": _components_plain, "gauss_seidel": _gauss_seidel_plain,
          "residual": _residual_plain, "sweep": _sweep_plain, "feedback": _feedback_plain,
          "choose": _choose_plain, "small_solve": _small_solve, "bellman": _bellman_plain,
          "optimal": _optimal_plain, "first": _first_plain}


def _kernel(name: str, compiled: bool):
    """The kernel `name` (components, gauss_seidel, residual, sweep, feedback, choose,
    small_solve, bellman, optimal, first): compiled (numba, cached), or the plain reference.
    A compiled kernel is the plain function's code with globals in which the names of its
    callees (_sweep, _choose, _feedback, _small_solve) are the compiled callees, so that it
    calls compiled code; numba caches it like any function of this file."""
    if not compiled:
        return _PLAIN[name]
    if not _KERNELS:
        from types import FunctionType

        from numba import njit

        names = {"sweep": "_sweep", "choose": "_choose", "feedback": "_feedback",
                 "small_solve": "_small_solve"}
        scope = dict(globals())
        for key, plain in _PLAIN.items():
            clone = FunctionType(plain.__code__, scope, plain.__name__)
            _KERNELS[key] = njit(cache=True, nogil=True)(clone)
            if key in names:
                scope[names[key]] = _KERNELS[key]
    return _KERNELS[name]


def _graph(space) -> tuple:
    """(row_start, indptr, indices, codes, table): the outcomes as the kernels read them, the
    probability of outcome e being table[codes[e]]: a compiled space's compact matrix
    (``space.compact``, the matrix of transitions never made), else its matrix (codes the
    positions 0, 1, ... of its probabilities)."""
    m = space.compact
    if m is None:
        t = space.transitions
        return (space.row_start, t.indptr, t.indices, np.arange(len(t.data), dtype=np.int32),
                t.data)
    return space.row_start, m.indptr, m.indices, m.codes, m.table


def _costs(space) -> tuple:
    """(reward, rewarded, sign): the rows' rewards (rewarded 1; without, 0 and a dummy; 2
    would be one reward, reward[0], for every row) and each state's sign (1 where player 0
    moves or the game is over, -1 for player 1)."""
    rewarded = space.reward is not None
    return (space.reward if rewarded else np.zeros(1), int(rewarded),
            np.where(space.player == 1, -1.0, 1.0))


def components(space, compiled: bool = True, small: int = SMALL_COMPONENT,
               graph: tuple | None = None) -> tuple[int, np.ndarray, np.ndarray]:
    """(number, comp_start, members): the strongly connected components of the state graph,
    each after those it leads to (:func:`_components_plain`); `graph`: :func:`_graph`'s, when
    the caller has it."""
    graph = _graph(space) if graph is None else graph
    members = np.empty(space.n_states, dtype=np.int32)
    comp_start = np.empty(space.n_states + 1, dtype=np.int32)
    n_comp = _kernel("components", compiled)(*graph[:3], members, comp_start, small)
    return n_comp, comp_start[:n_comp + 1].copy(), members


def solve_in_place(space, v: np.ndarray, compiled: bool = True, weights=None,
                   fixed=None, small: int = SMALL_COMPONENT) -> tuple[int, int, float]:
    """Optimal values of `space` component by component into `v` (payoffs at terminal states
    on entry), as the module docstring says; returns (sweeps of non-terminal states'
    components, components with a cycle, error bound). With `weights` (per row) and `fixed`
    (per state), the fixed states play those weights (a policy's values: all fixed; a best
    response: the other seat's fixed); the bound is then left out (None). SolverError when a
    cyclic component does not settle (a game that need not end). A compiled space is swept
    from its compact matrix (:func:`_graph`), scipy's never made."""
    from dicejack.solver.results import SolverError

    played = weights is not None
    policy = (np.asarray(weights, dtype=np.float64) if played else np.zeros(1),
              np.asarray(fixed, dtype=np.bool_) if played else np.zeros(1, dtype=np.bool_),
              played)
    graph, costs = _graph(space), _costs(space)
    comps = components(space, compiled, small, graph)
    sweeps, failed, n_cyclic = _kernel("gauss_seidel", compiled)(
        *comps, *graph, *costs, v, FIXED_POINT_ULPS, MAX_SWEEPS, *policy, small,
        np.full(space.n_states, -1, dtype=np.int32))
    if failed >= 0:
        raise SolverError(f"value iteration on {space.label} did not settle in {MAX_SWEEPS} "
                          "sweeps of one strongly connected component: does every game end "
                          "with probability 1?")
    if played:
        return sweeps, n_cyclic, None
    return sweeps, n_cyclic, _error_bound(space, comps, graph, costs, v, compiled, small)


def bellman(space, v: np.ndarray, compiled: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(q per row, the optimal backup of `v` per state; payoffs at terminal states). A compiled
    space from its compact matrix, without a temporary per row (the same sums in the same order
    as scipy's product: equal to the last bit); any other from its scipy matrix."""
    if getattr(space, "compact", None) is None:
        q = space.transitions @ v
        if space.reward is not None:
            q += space.reward
        backed = space.payoff.copy()
        live = ~space.terminal
        if live.any():  # max for player 0, min for player 1
            starts = space.row_start[:-1][live]
            backed[live] = np.where(space.player[live] == 1, np.minimum.reduceat(q, starts),
                                    np.maximum.reduceat(q, starts))
        return q, backed
    q = np.empty(space.n_rows)
    backed = space.payoff.copy()
    _kernel("bellman", compiled)(*_graph(space), *_costs(space), v, q, backed)
    return q, backed


def optimal_rows(space, v: np.ndarray, q: np.ndarray, tie: float,
                 compiled: bool = True) -> np.ndarray:
    """Per row, whether it is optimal: its q within `tie` of its state's value `v` for the
    state's mover (:func:`_optimal_plain`), without a temporary per row."""
    optimal = np.empty(space.n_rows, dtype=np.bool_)
    _kernel("optimal", compiled)(space.row_state, space.player == 1, v, q, float(tie), optimal)
    return optimal


def first_optimal(space, optimal: np.ndarray, compiled: bool = True) -> np.ndarray:
    """Each state's first row marked in `optimal` (int64; -1 at terminal states); SolverError
    (internal) if a live state has none."""
    from dicejack.solver.results import SolverError

    best = np.empty(space.n_states, dtype=np.int64)
    _kernel("first", compiled)(space.row_start, optimal, best)
    if np.any(best[~space.terminal] < 0):
        raise SolverError("internal: a state without an optimal action")  # pragma: no cover
    return best


def _error_bound(space, comps, graph, costs, v, compiled, small) -> float:
    """2 * (the largest expected number of moves to the end under the greedy pair) * (the
    Bellman residual, computed afresh, plus one unit in the last place for its rounding). The
    moves solve t = 1 + P t under the greedy rows: the same kernel, every state fixed to its
    greedy row, a reward of 1 per move (one reward for all rows), swept to a change of 1e-6
    of the largest."""
    live = np.flatnonzero(~space.terminal)
    if not len(live):
        return 0.0
    greedy = np.zeros(space.n_states, dtype=np.int64)
    rho = _kernel("residual", compiled)(live, *graph, *costs, v, greedy)
    weights = np.zeros(space.n_rows)
    weights[greedy[live]] = 1.0
    del live, greedy
    moves = np.zeros(space.n_states)
    _kernel("gauss_seidel", compiled)(
        *comps, *graph, np.ones(1), 2, costs[2], moves, 1e-6 / _EPS, MAX_SWEEPS, weights,
        np.ones(space.n_states, dtype=np.bool_), True, small,
        np.full(space.n_states, -1, dtype=np.int32))
    scale = max(1.0, float(np.max(np.abs(v))))
    return 2.0 * float(np.max(moves)) * (float(rho) + _EPS * scale)
