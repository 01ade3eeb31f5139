"""The exact solution of any game: ``solve(game)``, the one solver entry.

The handout's game (a :class:`~dicejack.games.handout_rules.Game` or a
:class:`~dicejack.games.HandoutGame`) selects the handout's engines and returns a
:class:`Solution` (tables over <x, y>: the optimal policy and win probability of every state);
any other protocol game (or its enumerated :class:`~dicejack.games.StateSpace`) goes to the
generic solver (:mod:`dicejack.solver.generic`: ``method`` "auto", "value-iteration" or
"policy-iteration", ``exact``, ``tolerance``) and returns a :class:`GameSolution` (per state and
(state, action) row); a game with hidden information (Kuhn poker) goes to the sequence form and
returns a :class:`~dicejack.solver.sequence_form.SequenceFormSolution` (per information key).
All three are a :class:`BaseSolution`, the face game-agnostic code types against (value,
value_exact, policy(), residual, error_bound; for perfect information ``generic()``, the per-row
form, and the per-state members, which the hidden-information solution refuses with a
SolverError; :mod:`dicejack.solver.results`).

For the handout's game, three independent ways to the same numbers, so each can check the others:

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

from typing import Any as _Any
from typing import overload as _overload

from dicejack.games import handout as _handout
from dicejack.games import handout_rules as _game
from dicejack.games import information as _information
from dicejack.solver import backward as _backward
from dicejack.solver import engines as _engines
from dicejack.solver import exact as _exact
from dicejack.solver import generic as _generic
from dicejack.solver import solution as _solution
from dicejack.solver import value_iteration as _value_iteration
from dicejack.solver.backward import solve_values
from dicejack.solver.best_response import best_response, exploitability, seat_values
from dicejack.solver.evaluation import evaluate, visit_probabilities
from dicejack.solver.generic import game_exploitability
from dicejack.solver.results import BaseSolution, GameSolution
from dicejack.solver.solution import Solution, SolverError, ZeroBasedError, optimal_distribution

#: The public face (docs/design/api.md; tests/test_public_faces.py holds it): everything else
#: is imported from its module (engines' choice and limits, policy tables, the generic solver's
#: parts, result types such as best_response.BestResponse).
__all__ = [
    "solve",
    "solve_values",
    "Solution",
    "GameSolution",
    "BaseSolution",
    "SolverError",
    "ZeroBasedError",
    "evaluate",
    "visit_probabilities",
    "best_response",
    "exploitability",
    "seat_values",
    "optimal_distribution",
    "game_exploitability",
]

_METHODS = ("auto", "backward", "value-iteration", "policy-iteration")


# ------------------------------------------------------------------------------------ solve
@_overload
def solve(game: _game.Game | _handout.HandoutGame, method: _solution.Method = ...,
          exact: bool = ..., engine: _solution.Engine | None = ...,
          tolerance: float | None = ...) -> Solution: ...
@_overload
def solve(game: _Any, method: _solution.Method = ..., exact: bool = ...,
          engine: _solution.Engine | None = ..., tolerance: float | None = ...
          ) -> GameSolution: ...
def solve(
    game: _Any, method: _solution.Method = "auto", exact: bool = False,
    engine: _solution.Engine | None = None, tolerance: float | None = None,
) -> BaseSolution:
    """Solve `game` exactly: the one solver entry (module docstring).

    The handout's game (a ``Game`` or a ``HandoutGame``): method "auto" or "backward" is
    backward induction, "value-iteration" the synchronous sweeps to no change; `engine`
    ("numpy" or "numba") forces backward induction's engine (by default
    :func:`~dicejack.solver.engines.choose_engine` picks it; the result is the same, bit for
    bit); `exact`: Fractions (backward induction). Returns a :class:`Solution`.

    Any other protocol game or a :class:`~dicejack.games.StateSpace`: method "auto" (backward
    induction where the game has no cycle, compiled value iteration to a fixed point with an
    error bound where it has), "backward" (the same, refused for a game with cycles),
    "value-iteration" (synchronous sweeps until no value changes by more than `tolerance`,
    default :data:`~dicejack.solver.generic.DEFAULT_TOLERANCE`; the other methods stop at a
    fixed point and leave it unused) or "policy-iteration"; `exact`: Fractions (games without
    cycles). Returns a :class:`GameSolution`.

    A game with hidden information (``information_state``: :mod:`dicejack.games.information`,
    Kuhn poker): the sequence-form linear programme's equilibrium and value, a
    :class:`~dicejack.solver.sequence_form.SequenceFormSolution` (method "auto" only), a
    BaseSolution whose per-state members (``generic()``, ``value_of()``...) raise SolverError.

    A combination that means nothing (policy iteration or a tolerance for the handout's game,
    an engine for another game, exact with a named iterative method) is a SolverError.
    """
    if method not in _METHODS:
        raise SolverError(f"unknown method {method!r}; use auto, backward, value-iteration or "
                          "policy-iteration")
    _engines.check_engine(engine)
    if isinstance(game, (_game.Game, _handout.HandoutGame)):
        return _solve_handout(game if isinstance(game, _game.Game) else game.rules, method,
                              exact, engine, tolerance)
    if _information.is_information_game(game):
        return _solve_hidden(game, method, engine, tolerance)
    if engine is not None:
        raise SolverError(f"engine={engine!r} picks the handout's game's engine; other games "
                          "have one solver: drop engine")
    if exact and method in ("value-iteration", "policy-iteration"):
        raise SolverError(f"exact rational solving uses backward induction; drop "
                          f"method={method!r}")
    if tolerance is None:
        tolerance = _generic.DEFAULT_TOLERANCE
    sol = _generic.solve_game(game, method="auto" if method == "backward" else method,
                              exact=exact, tolerance=tolerance)
    if method == "backward" and sol.method != "backward":
        raise SolverError(f"{sol.space.label} has cycles: backward induction is for games "
                          "without cycles; use method='auto'")
    return sol


def _solve_hidden(game: _Any, method: str, engine: _solution.Engine | None,
                  tolerance: float | None) -> BaseSolution:
    """A game with hidden information: its sequence-form equilibrium (the LP, HiGHS), the
    rounded policy tried in exact arithmetic where the tree is small (exact_value, exact_policy
    of :class:`~dicejack.solver.sequence_form.SequenceFormSolution`)."""
    if method != "auto" or engine is not None or tolerance is not None:
        raise SolverError(f"game {game.name} has hidden information: it is solved by the "
                          "sequence-form linear programme alone; drop method, engine and "
                          "tolerance")
    from dicejack.solver.sequence_form import solve_sequence_form

    return solve_sequence_form(game)


def _solve_handout(game: _game.Game, method: str, exact: bool, engine: _solution.Engine | None,
                   tolerance: float | None) -> Solution:
    """The handout's engines (see :func:`solve`)."""
    if method == "policy-iteration":
        raise SolverError("the handout's game has no cycles: backward induction solves it; "
                          "policy-iteration is for games with cycles")
    if tolerance is not None:
        raise SolverError("the handout's game is solved to its fixed point: a tolerance is for "
                          "value iteration of games with cycles; drop tolerance")
    if exact:
        if method == "value-iteration":
            raise SolverError("exact rational solving uses backward induction; drop --method")
        return _exact.solve_exact(game)
    if method == "value-iteration":
        return _value_iteration.solve_value_iteration(game)
    return _backward.solve_backward(game, engine or _engines.choose_engine(game))
