"""A protocol game's policies and what they are worth, exactly: a policy is an array of weights
over the space's rows (one row per state and legal action), each non-terminal state's weights
summing to 1 (:func:`uniform_policy`, :func:`policy_from_actions`,
:meth:`dicejack.solver.generic.GameSolution.policy`); :func:`evaluate_policy`,
:func:`best_response_values`, :func:`game_exploitability` and :func:`expected_visits` measure
one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from dicejack.games.space import StateSpace
from dicejack.solver.generic_levels import Levels, level_structure
from dicejack.solver.generic_methods import DEFAULT_TOLERANCE
from dicejack.solver.solution import SolverError

__all__ = [
    "uniform_policy",
    "policy_from_actions",
    "check_policy",
    "evaluate_policy",
    "best_response_values",
    "game_exploitability",
    "expected_visits",
]


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
