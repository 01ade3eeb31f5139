"""The exact solution of the game: optimal policy and win probability for every state <x, y>.

Three independent ways to the same numbers, so each can check the others:

* ``solve(game)`` — backward induction over anti-diagonals x + y (the game is acyclic: every roll
  adds at least 1), with running window sums so that each (state, J) costs O(1) whatever n_sides.
  The default. Two engines do the same float operations in the same order, so they give
  bit-identical results: plain numpy, one vectorised step per anti-diagonal, for small games (no
  compiler, no numba import: the command line answers at once), and the numba kernels of
  :mod:`dicejack.solver.kernels` for games above :data:`NUMPY_MAX_WORK` and for processes that have
  loaded numba anyway or made many calls (see :func:`choose_engine`).
* ``solve(game, method="value-iteration")`` — classic synchronous Bellman sweeps over all states
  from P = 0 until nothing changes, with direct sums over the dice-sum distributions (numpy).
* ``solve(game, exact=True)`` — the recursion in ``fractions.Fraction``; ties are exact.

Also the exact best response to any policy and its exploitability (``best_response``,
``exploitability``, of one policy or of a seat pair ``first=``/``second=``, and ``seat_values``:
:mod:`dicejack.solver.best_response`), exact evaluation of any pair of
policies (``evaluate``) and the probability that a game
between two policies visits each state (``visit_probabilities``), by forward propagation; the
same two engines, bit-identical, chosen the same way.
"""

from __future__ import annotations

from dicejack.game import Game
from dicejack.solver.backward import solve_backward, solve_values
from dicejack.solver.best_response import (
    BestResponse,
    SeatValues,
    best_response,
    exploitability,
    seat_values,
)
from dicejack.solver.engines import (
    NUMBA_STARTUP_SECONDS,
    NUMPY_MAX_WORK,
    check_engine,
    choose_engine,
    numpy_engine_seconds,
)
from dicejack.solver.evaluation import evaluate, visit_probabilities
from dicejack.solver.exact import EXACT_WORK_LIMIT, solve_exact
from dicejack.solver.generic import (
    GameSolution,
    best_response_values,
    evaluate_policy,
    game_exploitability,
    solve_game,
)
from dicejack.solver.solution import (
    FILLS,
    TIE_TOLERANCE,
    Engine,
    Fill,
    Method,
    Policy,
    Solution,
    SolverError,
    ZeroBasedError,
    no_data_mask,
    optimal_distribution,
    policy_distribution,
    policy_table,
)
from dicejack.solver.value_iteration import solve_value_iteration

__all__ = [
    "TIE_TOLERANCE",
    "SolverError",
    "Solution",
    "solve",
    "solve_values",
    "policy_distribution",
    "optimal_distribution",
    "evaluate",
    "visit_probabilities",
    "best_response",
    "exploitability",
    "BestResponse",
    "SeatValues",
    "seat_values",
    "ZeroBasedError",
    "no_data_mask",
    "policy_table",
    "Fill",
    "FILLS",
    "choose_engine",
    "numpy_engine_seconds",
    "NUMPY_MAX_WORK",
    "NUMBA_STARTUP_SECONDS",
    "EXACT_WORK_LIMIT",
    "Engine",
    "Method",
    "Policy",
    "GameSolution",
    "solve_game",
    "evaluate_policy",
    "best_response_values",
    "game_exploitability",
]


# ------------------------------------------------------------------------------------ solve
def solve(
    game: Game, method: Method = "backward", exact: bool = False, engine: Engine | None = None
) -> Solution:
    """Solve `game` exactly. See the module docstring for the methods.

    `engine` ("numpy" or "numba") forces the engine of float backward induction; by default
    :func:`choose_engine` picks it. The result is the same, bit for bit.
    """
    if not isinstance(game, Game):
        raise SolverError(f"solve() needs a Game, got {type(game).__name__}")
    if method not in ("backward", "value-iteration"):
        raise SolverError(f"unknown method {method!r}; use 'backward' or 'value-iteration'")
    check_engine(engine)
    if exact:
        if method != "backward":
            raise SolverError("exact rational solving uses backward induction; drop --method")
        return solve_exact(game)
    if method == "value-iteration":
        return solve_value_iteration(game)
    return solve_backward(game, engine or choose_engine(game))
