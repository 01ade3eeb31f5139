"""The exact solution of the game: optimal policy and win probability for every state <x, y>.

Three independent ways to the same numbers, so each can check the others:

* ``solve(game)`` — backward induction over anti-diagonals x + y (the game is acyclic: every roll
  adds at least 1), with running window sums so that each (state, J) costs O(1) whatever n_sides.
  The default. Two engines do the same float operations in the same order, so they give
  bit-identical results: plain numpy, one vectorised step per anti-diagonal, for small games (no
  compiler, no numba import: the command line answers at once), and the numba kernels of
  :mod:`dicejack.solver.kernels` for games above `engines.NUMPY_MAX_WORK` and for processes that
  have loaded numba anyway or made many calls (see `engines.choose_engine`).
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

from dicejack.games import handout_rules as _game
from dicejack.solver import backward as _backward
from dicejack.solver import engines as _engines
from dicejack.solver import exact as _exact
from dicejack.solver import solution as _solution
from dicejack.solver import value_iteration as _value_iteration
from dicejack.solver.backward import solve_values
from dicejack.solver.best_response import best_response, exploitability, seat_values
from dicejack.solver.evaluation import evaluate, visit_probabilities
from dicejack.solver.generic import game_exploitability, solve_game
from dicejack.solver.solution import Solution, SolverError, ZeroBasedError, optimal_distribution

#: The public face (docs/design/api.md; tests/test_public_faces.py holds it): everything else
#: is imported from its module (engines' choice and limits, policy tables, the generic solver's
#: parts, result types such as best_response.BestResponse).
__all__ = [
    "solve",
    "solve_values",
    "Solution",
    "SolverError",
    "ZeroBasedError",
    "evaluate",
    "visit_probabilities",
    "best_response",
    "exploitability",
    "seat_values",
    "optimal_distribution",
    "solve_game",
    "game_exploitability",
]


# ------------------------------------------------------------------------------------ solve
def solve(
    game: _game.Game, method: _solution.Method = "backward", exact: bool = False,
    engine: _solution.Engine | None = None,
) -> Solution:
    """Solve `game` exactly. See the module docstring for the methods.

    `engine` ("numpy" or "numba") forces the engine of float backward induction; by default
    :func:`~dicejack.solver.engines.choose_engine` picks it. The result is the same, bit for bit.
    """
    if not isinstance(game, _game.Game):
        raise SolverError(f"solve() needs a Game, got {type(game).__name__}")
    if method not in ("backward", "value-iteration"):
        raise SolverError(f"unknown method {method!r}; use 'backward' or 'value-iteration'")
    _engines.check_engine(engine)
    if exact:
        if method != "backward":
            raise SolverError("exact rational solving uses backward induction; drop --method")
        return _exact.solve_exact(game)
    if method == "value-iteration":
        return _value_iteration.solve_value_iteration(game)
    return _backward.solve_backward(game, engine or _engines.choose_engine(game))
