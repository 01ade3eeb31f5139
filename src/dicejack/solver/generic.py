"""The exact solution of any protocol game (:mod:`dicejack.games`), and exact evaluation, best
response and exploitability of any policy of it.

The enumerated game (:class:`~dicejack.games.StateSpace`) is cut into levels: the strongly
connected components of its state graph (scipy.sparse.csgraph), each component's level being the
longest path from it to a terminal state in the graph of components. A level only leads to lower
levels and to itself, so the levels are solved one after another from the terminal states up:

* a level without cycles (every component one state, no self-loop) in one backup: backward
  induction (the handout's game is all of this kind; exact in Fractions with ``exact=True``);
* a level with cycles (Pig: two pigs in a row return to the same scores) by value iteration in
  place (Gauss-Seidel, compiled: :mod:`dicejack.solver.generic_sweeps`) to a floating-point
  fixed point, with an error bound (the default, ``method="auto"``); or by synchronous sweeps of
  ``Q = T @ V`` (scipy.sparse) until no value changes by more than `tolerance`
  (``method="value-iteration"``; that stop is not a bound on the error: at Pig 100, 1e-13 leaves
  errors of 1e-12); or by policy iteration (``method="policy-iteration"``: a policy's values
  by a sparse linear solve, then improved; for two players Hoffman and Karp's, the minimiser's
  best response solved exactly inside every step of the maximiser).

Values are player 0's expected payoff (player 1 minimises it), plus the rewards on the way in a
game that pays them per action (``reward(state, action)``: ``Q = R + T @ V``). The residual
reported is the largest Bellman residual ``|max_a Q(s, a) - V(s)|`` over all states after the
solve, computed afresh. The specialised solver (:func:`dicejack.solver.solve`) stays the fast path
for the handout's game; tests hold the two to 1e-12.

A policy is an array of weights over the space's rows (one row per state and legal action), each
non-terminal state's weights summing to 1 (:func:`uniform_policy`, :func:`policy_from_actions`,
:meth:`GameSolution.policy`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import numpy as np

from dicejack.games.space import StateSpace, enumerate_game
from dicejack.solver.solution import TIE_TOLERANCE, SolverError

__all__ = [
    "GameMethod",
    "GameSolution",
    "Levels",
    "level_structure",
    "solve_game",
    "levels_policy_iteration",
    "uniform_policy",
    "policy_from_actions",
    "check_policy",
    "evaluate_policy",
    "best_response_values",
    "game_exploitability",
    "expected_visits",
    "DEFAULT_TOLERANCE",
    "EXACT_ROWS_LIMIT",
]

GameMethod = Literal["auto", "value-iteration", "policy-iteration"]
#: Value iteration stops a level when no value changed by more than this in a sweep.
DEFAULT_TOLERANCE = 1e-13
#: The most sweeps one cyclic level may take before the solve is called not converging.
MAX_SWEEPS = 100_000
#: Exact rational solving is for small games: at most this many rows (state, action).
EXACT_ROWS_LIMIT = 200_000


# ------------------------------------------------------------------------------------ levels
@dataclass(frozen=True, eq=False)
class Levels:
    """The levels of a state space (module docstring), lowest (terminal states) first.

    height: int64 per state; states[h]: the states of level h, ascending; rows[h]: their rows;
    starts[h]: where each state's rows begin within rows[h]; cyclic[h]: the level has a cycle;
    matrices[h]: the transition rows of level h (CSR).
    """

    height: np.ndarray
    states: list[np.ndarray]
    rows: list[np.ndarray]
    starts: list[np.ndarray]
    cyclic: list[bool]
    matrices: list[Any]

    @property
    def acyclic(self) -> bool:
        """True when the whole game has no cycle (backward induction solves it)."""
        return not any(self.cyclic)


def _state_rows(space: StateSpace, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rows, starts): every row of `states` in order, and where each state's rows begin."""
    if not len(states):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    first = space.row_start[states]
    counts = space.row_start[states + 1] - first
    starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
    total = int(counts.sum())
    rows = np.arange(total, dtype=np.int64) - np.repeat(starts, counts) + np.repeat(first, counts)
    return rows, starts


def level_structure(space: StateSpace) -> Levels:
    """Cut `space` into levels (module docstring)."""
    from scipy import sparse
    from scipy.sparse.csgraph import connected_components

    n = space.n_states
    t = space.transitions
    src = np.repeat(space.row_state, np.diff(t.indptr))
    dst = t.indices.astype(np.int64)
    graph = sparse.csr_matrix((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(n, n))
    n_comp, labels = connected_components(graph, directed=True, connection="strong")
    cs, cd = labels[src], labels[dst]
    inside = cs == cd
    cyclic_comp = np.zeros(n_comp, dtype=bool)
    cyclic_comp[cs[inside]] = True
    pairs = np.unique(cs[~inside].astype(np.int64) * n_comp + cd[~inside])
    out_from, out_to = pairs // n_comp, pairs % n_comp
    outdeg = np.bincount(out_from, minlength=n_comp)
    reverse = sparse.csr_matrix(
        (np.ones(len(pairs), dtype=np.int8), (out_to, out_from)), shape=(n_comp, n_comp)
    )
    height = np.full(n_comp, -1, dtype=np.int64)
    frontier = np.flatnonzero(outdeg == 0)
    h = 0
    while len(frontier):
        height[frontier] = h
        preds = reverse[frontier].indices
        outdeg = outdeg - np.bincount(preds, minlength=n_comp)
        cand = np.unique(preds)
        frontier = cand[(outdeg[cand] == 0) & (height[cand] < 0)]
        h += 1
    state_height = height[labels]
    order = np.argsort(state_height, kind="stable")
    bounds = np.searchsorted(state_height[order], np.arange(h + 1))
    states, rows, starts, cyclic, matrices = [], [], [], [], []
    nonterminal = ~space.terminal
    for level in range(h):
        members = order[bounds[level]:bounds[level + 1]]
        members = members[nonterminal[members]]
        r, st = _state_rows(space, members)
        states.append(members)
        rows.append(r)
        starts.append(st)
        cyclic.append(bool(cyclic_comp[labels[members]].any()) if len(members) else False)
        matrices.append(t[r] if len(r) else None)
    return Levels(state_height, states, rows, starts, cyclic, matrices)


# ---------------------------------------------------------------------------------- policies
def check_policy(space: StateSpace, policy: Any) -> np.ndarray:
    """`policy` as float64 row weights, checked: one per row, non-negative, each non-terminal
    state's summing to 1 (1e-9)."""
    w = np.asarray(policy, dtype=np.float64)
    if w.shape != (space.n_rows,):
        raise SolverError(f"a policy of {space.label} has {space.n_rows} weights (one per state "
                          f"and legal action), got shape {w.shape}")
    if not np.all(np.isfinite(w)) or w.min(initial=0) < 0:
        raise SolverError("a policy's weights must be finite and non-negative")
    starts = space.row_start[:-1][~space.terminal]
    if len(starts):
        sums = np.add.reduceat(w, starts) if space.n_rows else np.zeros(0)
        if not np.allclose(sums, 1.0, atol=1e-9):
            s = int(np.flatnonzero(~space.terminal)[np.argmax(np.abs(sums - 1.0))])
            raise SolverError(f"a policy's weights at {space.states[s]!r} sum to "
                              f"{sums.max():.6g}, not 1")
    return w


def uniform_policy(space: StateSpace) -> np.ndarray:
    """Every legal action equally likely in every state."""
    counts = np.diff(space.row_start)
    return 1.0 / np.repeat(counts, counts).astype(np.float64)


def policy_from_actions(
    space: StateSpace, choice: Callable[[Any], Any] | Mapping[Any, Any]
) -> np.ndarray:
    """The deterministic policy playing choice(state) (a callable or a mapping state -> action;
    a state missing from a mapping plays uniformly) in every non-terminal state."""
    w = np.zeros(space.n_rows)
    uniform = uniform_policy(space)
    for s in np.flatnonzero(~space.terminal):
        state = space.states[s]
        rows = space.rows(int(s))
        if isinstance(choice, Mapping) and state not in choice:
            w[rows.start:rows.stop] = uniform[rows.start:rows.stop]
            continue
        try:
            action = choice[state] if isinstance(choice, Mapping) else choice(state)
        except Exception as exc:  # the caller's code: one line, naming the state
            raise SolverError(f"the policy raised {type(exc).__name__} at {state!r}: {exc}") \
                from exc
        for r in rows:
            if space.actions[r] == action:
                w[r] = 1.0
                break
        else:
            raise SolverError(f"the policy plays {action!r} at {state!r}, not a legal action")
    return w


# ------------------------------------------------------------------------------- the sweeps
def _rewards(space: StateSpace, rows: np.ndarray | None = None) -> np.ndarray | float:
    """Player 0's reward per row (of `rows`, or of every row); 0.0 for a game without."""
    if space.reward is None:
        return 0.0
    return space.reward if rows is None else space.reward[rows]


def _sweep_levels(
    space: StateSpace,
    levels: Levels,
    tolerance: float,
    weights: np.ndarray | None = None,
    fixed: np.ndarray | None = None,
) -> tuple[np.ndarray, int]:
    """Values of every state, level by level (module docstring): states where `fixed` is True
    average their rows' Q by `weights`; the others maximise (player 0) or minimise (player 1).
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
    """:func:`_sweep_levels` on the values `v` (changed in place and returned)."""
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


def _bellman(space: StateSpace, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(q per row, the optimal backup of `v` per state; payoffs at terminal states)."""
    q = space.transitions @ v
    if space.reward is not None:
        q += space.reward
    backed = space.payoff.copy()
    live = ~space.terminal
    if live.any():  # max for player 0, min for player 1 (no temporaries per row)
        starts = space.row_start[:-1][live]
        backed[live] = np.where(space.player[live] == 1, np.minimum.reduceat(q, starts),
                                np.maximum.reduceat(q, starts))
    return q, backed


# ---------------------------------------------------------------------------------- solution
@dataclass(frozen=True, eq=False)
class GameSolution:
    """The solution of a protocol game.

    space: the enumerated game; values: player 0's value of every state (float64); q: per row
    (state, action), player 0's value of playing it then optimally; optimal: per row, the action
    is optimal (within TIE_TOLERANCE, exact in rational mode); best: per state its first optimal
    row (-1 at terminal states); method: "backward", "value-iteration" or "policy-iteration";
    sweeps: sweeps (or policy evaluations) made; residual: the largest Bellman residual after the
    solve; tolerance: the stopping tolerance (0 for backward induction and for the default
    path, which sweeps to a fixed point); seconds: the solve's time, enumeration excluded;
    values_exact: Fractions per state in rational mode, else None; error_bound: a bound on every
    value's error (the default path, ``generic_sweeps``; 0 in rational mode; None where the
    method gives none).
    """

    space: StateSpace
    values: np.ndarray
    q: np.ndarray
    optimal: np.ndarray
    best: np.ndarray
    method: str
    sweeps: int
    residual: float
    tolerance: float
    seconds: float
    values_exact: list[Fraction] | None = None
    error_bound: float | None = None

    @property
    def value(self) -> float:
        """Player 0's value at the initial state (Pig: the first player's win probability)."""
        return float(self.values[0])

    @property
    def value_exact(self) -> Fraction | None:
        return None if self.values_exact is None else self.values_exact[0]

    def policy(self) -> np.ndarray:
        """The optimal policy as row weights, ties split evenly."""
        w = self.optimal.astype(np.float64)
        live = self.space.row_start[:-1][~self.space.terminal]
        if len(live):
            sums = np.add.reduceat(w, live)
            counts = np.diff(self.space.row_start)[~self.space.terminal]
            w = w / np.repeat(sums, counts)
        return w

    def best_action(self, state: Any) -> Any:
        """The first optimal action at `state` (a reachable non-terminal state)."""
        s = self.space.index.get(state)
        if s is None or self.best[s] < 0:
            raise SolverError(f"{state!r} is not a reachable non-terminal state")
        return self.space.actions[int(self.best[s])]

    def value_of(self, state: Any) -> float:
        s = self.space.index.get(state)
        if s is None:
            raise SolverError(f"{state!r} is not a reachable state of {self.space.label}")
        return float(self.values[s])


def _finish(space: StateSpace, v: np.ndarray, method: str, sweeps: int, tolerance: float,
            started: float, exact: list[Fraction] | None = None,
            exact_q: list[Fraction] | None = None,
            error_bound: float | None = None) -> GameSolution:
    q, backed = _bellman(space, v)
    residual = float(np.max(np.abs(backed - v))) if len(v) else 0.0
    if exact_q is not None and exact is not None:
        state_value = [exact[s] for s in space.row_state]
        optimal = np.array([a == b for a, b in zip(exact_q, state_value, strict=True)],
                           dtype=bool)
    else:  # the mover's q within TIE_TOLERANCE of the mover's value (player 1's negated)
        at = v[space.row_state]
        minimiser = (space.player == 1)[space.row_state]
        optimal = np.where(minimiser, -q >= -at - TIE_TOLERANCE, q >= at - TIE_TOLERANCE)
        del at, minimiser
    best = np.full(space.n_states, -1, dtype=np.int64)
    hit = np.flatnonzero(optimal)
    # the first optimal row of each state: rows are grouped by state, ascending
    owner = space.row_state[hit]
    first = np.ones(len(hit), dtype=bool)
    first[1:] = owner[1:] != owner[:-1]
    best[owner[first]] = hit[first]
    del owner, first, hit
    if np.any(best[~space.terminal] < 0):
        raise SolverError("internal: a state without an optimal action")  # pragma: no cover
    for a in (v, q, optimal, best):
        a.setflags(write=False)
    return GameSolution(space, v, q, optimal, best, method, sweeps, residual, tolerance,
                        time.perf_counter() - started, exact,
                        0.0 if exact is not None else error_bound)


def _solve_exact(space: StateSpace, levels: Levels, started: float) -> GameSolution:
    if not levels.acyclic:
        raise SolverError(f"{space.label} has cycles: exact rational solving is for games "
                          "without cycles; drop --exact (value iteration)")
    if space.n_rows > EXACT_ROWS_LIMIT:
        raise SolverError(f"{space.label} has {space.n_rows:,} (state, action) pairs: exact "
                          f"rational solving is for games up to {EXACT_ROWS_LIMIT:,}")
    if space.exact_rows is None:
        space = enumerate_game(space.game, exact=True)
        levels = level_structure(space)
    values: list[Fraction] = [Fraction(p) if p is not None else Fraction(0)
                              for p in space.payoff_exact]
    q_exact: list[Fraction] = [Fraction(0)] * space.n_rows
    rows_exact = space.exact_rows
    assert rows_exact is not None
    paid = space.reward_exact
    for members in levels.states:
        for s in members.tolist():
            qs = []
            for r in space.rows(s):
                value = sum((p * values[j] for j, p in rows_exact[r]),
                            Fraction(0) if paid is None else Fraction(paid[r]))
                q_exact[r] = value
                qs.append(value)
            values[s] = max(qs) if space.player[s] == 0 else min(qs)
    v = np.array([float(x) for x in values], dtype=np.float64)
    sol = _finish(space, v, "backward", 1, 0.0, started, values, q_exact)
    return sol


def solve_game(
    game_or_space: Any,
    method: GameMethod = "auto",
    exact: bool = False,
    tolerance: float = DEFAULT_TOLERANCE,
) -> GameSolution:
    """Solve a protocol game (or its :class:`StateSpace`) exactly (module docstring).

    method "auto": backward induction where the game has no cycle, compiled value iteration in
    place to a fixed point, with an error bound, where it has (:mod:`generic_sweeps`);
    "value-iteration" (synchronous sweeps to `tolerance`) and "policy-iteration" name the method
    for the cyclic levels (levels without a cycle take one backup whatever the method).
    exact=True: Fractions throughout (games without cycles, up to :data:`EXACT_ROWS_LIMIT`
    rows).
    """
    if method not in ("auto", "value-iteration", "policy-iteration"):
        raise SolverError(f"unknown method {method!r}; use auto, value-iteration or "
                          "policy-iteration")
    if not (isinstance(tolerance, (int, float)) and 0 < tolerance < 1):
        raise SolverError(f"tolerance must be in (0, 1), got {tolerance!r}")
    space = game_or_space if isinstance(game_or_space, StateSpace) else \
        enumerate_game(game_or_space, exact=exact)
    started = time.perf_counter()
    if method == "auto" and not exact:
        from dicejack.solver.generic_sweeps import solve_in_place

        v = space.payoff.copy()
        sweeps, cyclic, bound = solve_in_place(space, v)
        if not cyclic:  # backward induction: one backup per state, exact to rounding
            return _finish(space, v, "backward", 1, 0.0, started, error_bound=0.0)
        return _finish(space, v, "value-iteration", sweeps, 0.0, started, error_bound=bound)
    levels = level_structure(space)
    if exact:
        if method == "policy-iteration":
            raise SolverError("exact rational solving uses backward induction; drop the method")
        return _solve_exact(space, levels, started)
    if method == "policy-iteration" and not levels.acyclic:
        v, sweeps = levels_policy_iteration(space, levels)
        return _finish(space, v, "policy-iteration", sweeps, 0.0, started)
    v, sweeps = _sweep_levels(space, levels, tolerance)
    name = "backward" if levels.acyclic else "value-iteration"
    return _finish(space, v, name, sweeps, 0.0 if levels.acyclic else tolerance, started,
                   error_bound=0.0 if levels.acyclic else None)


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


# ------------------------------------------------------------------------ policies' values
def evaluate_policy(
    space: StateSpace, policy: Any, tolerance: float = DEFAULT_TOLERANCE,
    levels: Levels | None = None,
) -> np.ndarray:
    """Player 0's expected payoff from every state when both seats play `policy` (row
    weights): one backup per component without cycles, compiled Gauss-Seidel to a fixed point
    on the others (:mod:`generic_sweeps`; a cycle the policy never leaves is worth 0).
    `tolerance` and `levels` are accepted for older callers and unused."""
    w = check_policy(space, policy)
    return _played(space, w, np.ones(space.n_states, dtype=bool))


def _played(space: StateSpace, weights: np.ndarray, fixed: np.ndarray) -> np.ndarray:
    """Values when the `fixed` states play `weights` and the others their best (compiled
    Gauss-Seidel to a fixed point, component by component: generic_sweeps)."""
    from dicejack.solver.generic_sweeps import solve_in_place

    v = space.payoff.copy()
    solve_in_place(space, v, weights=weights, fixed=fixed)
    return v


def best_response_values(
    space: StateSpace, policy: Any, responder: int, tolerance: float = DEFAULT_TOLERANCE,
    levels: Levels | None = None,
) -> np.ndarray:
    """Player 0's payoff from every state when `responder` (0 or 1) plays a best response and
    the other seat plays `policy` (row weights): as :func:`evaluate_policy`, the responder's
    states taking their best row (`tolerance` and `levels` unused)."""
    if responder not in (0, 1) or responder >= space.num_players:
        raise SolverError(f"responder must be a player of the game, got {responder!r}")
    w = check_policy(space, policy)
    return _played(space, w, (space.player >= 0) & (space.player != responder))


def game_exploitability(
    space: StateSpace, policy: Any, tolerance: float = DEFAULT_TOLERANCE,
    levels: Levels | None = None,
) -> float:
    """What best responses win against `policy` at the initial state: two players,
    ``max_sigma u0(sigma, policy) - min_sigma u0(policy, sigma)`` (player 0's payoff; for win =
    1, lose = 0 it is :func:`dicejack.solver.exploitability`'s P(BR first wins) + P(BR second
    wins) - 1); one player, the optimal value minus the policy's. 0 for optimal play."""
    first = best_response_values(space, policy, 0, tolerance, levels)[0]
    if space.num_players == 1:
        return float(first - evaluate_policy(space, policy, tolerance, levels)[0])
    second = best_response_values(space, policy, 1, tolerance, levels)[0]
    return float(first - second)


def expected_visits(space: StateSpace, policy: Any, levels: Levels | None = None) -> np.ndarray:
    """The expected number of times a game in which both seats play `policy` (row weights)
    is at each state, terminal states included (a terminal state's is the probability that the
    game ends there). Without cycles, every state is visited at most once: these are the visit
    probabilities. Forward over the levels from the initial state's down: a level without
    cycles passes its inflow on; a cyclic one solves ``x = inflow + P_ll^T x`` (sparse)."""
    from scipy import sparse
    from scipy.sparse.linalg import spsolve

    w = check_policy(space, policy)
    levels = levels or level_structure(space)
    x = np.zeros(space.n_states)
    inflow = np.zeros(space.n_states)
    inflow[0] = 1.0
    for h in range(len(levels.states) - 1, -1, -1):
        members = levels.states[h]
        if not len(members):
            continue
        rows, starts, matrix = levels.rows[h], levels.starts[h], levels.matrices[h]
        counts = np.diff(np.append(starts, len(rows)))
        owner = np.repeat(np.arange(len(members)), counts)
        # P_l: (members x all states), each member's rows weighted by the policy
        weights = sparse.csr_matrix((w[rows], (owner, np.arange(len(rows)))),
                                    shape=(len(members), len(rows)))
        p_l = (weights @ matrix).tocsr()
        if levels.cyclic[h]:
            local = np.full(space.n_states, -1, dtype=np.int64)
            local[members] = np.arange(len(members))
            inner = p_l[:, members]
            a = (sparse.identity(len(members), format="csc") - inner.T.tocsc())
            x_l = np.atleast_1d(spsolve(a, inflow[members]))
        else:
            x_l = inflow[members]
        x[members] = x_l
        out = p_l.T @ x_l  # what leaves the level, and (cyclic) its own inflow again
        out[members] = 0.0
        inflow += out
    done = space.terminal
    x[done] = inflow[done]
    return x
