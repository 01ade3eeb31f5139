"""The generic engine of :func:`dicejack.solver.solve`: the exact solution of any protocol game
(:mod:`dicejack.games`) but the handout's, :func:`solve_game` (the engine function; every caller
above the solver goes through ``solve``) and its :class:`~dicejack.solver.results.GameSolution`;
the face of the engine's parts (the levels, :mod:`.generic_levels`; the methods,
:mod:`.generic_methods`; policies and their exact evaluation, best response and exploitability,
:mod:`.generic_policies`).

The enumerated game (:class:`~dicejack.games.StateSpace`) is cut into levels
(:mod:`dicejack.solver.generic_levels`): the strongly connected components of its state graph,
each only leading to lower levels and to itself, so the levels are solved one after another from
the terminal states up:

* a level without cycles (every component one state, no self-loop) in one backup: backward
  induction (the handout's game is all of this kind; exact in Fractions with ``exact=True``);
* a level with cycles (Pig: two pigs in a row return to the same scores) by value iteration in
  place (Gauss-Seidel, compiled: :mod:`dicejack.solver.generic_sweeps`) to a floating-point
  fixed point, with an error bound (the default, ``method="auto"``); or by synchronous sweeps of
  ``Q = T @ V`` (scipy.sparse) until no value changes by more than `tolerance`
  (``method="value-iteration"``; that stop is not a bound on the error: at Pig 100, 1e-13 leaves
  errors of 1e-12); or by policy iteration (``method="policy-iteration"``: a policy's values
  by a sparse linear solve, then improved; for two players Hoffman and Karp's, the minimiser's
  best response solved exactly inside every step of the maximiser): both
  :mod:`dicejack.solver.generic_methods`.

Values are player 0's expected payoff (player 1 minimises it), plus the rewards on the way in a
game that pays them per action (``reward(state, action)``: ``Q = R + T @ V``). The residual
reported is the largest Bellman residual ``|max_a Q(s, a) - V(s)|`` over all states after the
solve, computed afresh. ``solve`` sends the handout's game to its own engines; their Solution's
per-row view equals this engine's solution of :class:`~dicejack.games.HandoutGame` to 1e-12
(tests/solver/test_results.py).

A policy is an array of weights over the space's rows (one row per state and legal action), each
non-terminal state's weights summing to 1 (:func:`uniform_policy`, :func:`policy_from_actions`,
:meth:`GameSolution.policy`; :mod:`dicejack.solver.generic_policies`).
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any, Literal

import numpy as np

from dicejack.games.space import StateSpace, enumerate_game
from dicejack.solver.generic_levels import Levels, level_structure
from dicejack.solver.generic_methods import (
    DEFAULT_TOLERANCE,
    levels_policy_iteration,
    sweep_levels,
)
from dicejack.solver.generic_policies import (
    best_response_values,
    check_policy,
    evaluate_policy,
    expected_visits,
    game_exploitability,
    policy_from_actions,
    uniform_policy,
)
from dicejack.solver.generic_sweeps import bellman, first_optimal, optimal_rows
from dicejack.solver.results import (
    TIE_TOLERANCE,
    GameSolution,
    SolverError,
)

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
#: Exact rational solving is for small games: at most this many rows (state, action).
EXACT_ROWS_LIMIT = 200_000


def _finish(space: StateSpace, v: np.ndarray, method: str, sweeps: int, tolerance: float,
            started: float, exact: list[Fraction] | None = None,
            exact_q: list[Fraction] | None = None,
            error_bound: float | None = None) -> GameSolution:
    q, backed = bellman(space, v)
    residual = float(np.max(np.abs(backed - v))) if len(v) else 0.0
    if exact_q is not None and exact is not None:
        state_value = [exact[s] for s in space.row_state]
        optimal = np.array([a == b for a, b in zip(exact_q, state_value, strict=True)],
                           dtype=bool)
    else:  # the mover's q within TIE_TOLERANCE of the mover's best q (player 1's negated;
        # the best q, not v: a loose tolerance leaves v short of it); compiled, no temporary
        # per row
        optimal = optimal_rows(space, backed, q, TIE_TOLERANCE)
    best = first_optimal(space, optimal)
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
    v, sweeps = sweep_levels(space, levels, tolerance)
    name = "backward" if levels.acyclic else "value-iteration"
    return _finish(space, v, name, sweeps, 0.0 if levels.acyclic else tolerance, started,
                   error_bound=0.0 if levels.acyclic else None)

