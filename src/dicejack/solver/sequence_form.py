"""The exact equilibrium of a two-player zero-sum game with hidden information
(:mod:`dicejack.games.information`) by the sequence-form linear programme (Koller, Megiddo and
von Stengel 1996) with scipy's HiGHS: :func:`solve_sequence_form`, :class:`SequenceFormSolution`.

Each player's strategy is a realization plan over its sequences (its own moves to a point:
x >= 0, x[empty] = 1, at each decision key the parent's weight split among its actions: E x = e,
F y = f); the payoff matrix A holds, for each pair of sequences, the chance-weighted utility of
the plays that end on them. Player 0's programme is max f.q subject to F'q <= A'x, E x = e,
x >= 0; player 1's is min e.p subject to E'p >= A y, F y = f, y >= 0: their optima are the
game's value, and x, y an equilibrium, turned into behaviour (x[sa] / x[s]; uniform at a key the
player's own plan never reaches). A one-player game is the same with player 1 having no
sequence but the empty one.

The equilibrium is checked twice: its exploitability (:mod:`dicejack.solver.information_policies`,
over the tree) is reported, and its probabilities rounded to small fractions are tried exactly
(Fractions): when the rounded policy's NashConv is exactly 0, the solution carries that exact
policy and the exact value (``exact_value``; Kuhn poker: -1/18).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dicejack.games.information import InformationTree
from dicejack.games.protocol import game_label
from dicejack.games.space import StateSpace
from dicejack.solver.information_policies import (
    expected_payoff,
    exploitability,
    information_tree,
    nash_conv,
)
from dicejack.solver.results import BaseSolution, GameSolution, SolverError

__all__ = ["SequenceFormSolution", "solve_sequence_form", "sequence_form", "ROUNDING_DENOMINATOR",
           "EXACT_NODES_LIMIT"]

#: The largest denominator tried when the LP's probabilities are rounded to exact fractions.
ROUNDING_DENOMINATOR = 10_000
#: The most histories on which the rounded policy is tried in exact arithmetic (Fractions).
EXACT_NODES_LIMIT = 200_000


@dataclass(frozen=True, eq=False)
class SequenceFormSolution(BaseSolution):
    """The equilibrium of a game with hidden information (module docstring), a
    :class:`~dicejack.solver.results.BaseSolution`.

    optimum: player 0's programme's optimum, the equilibrium utility (``value``); value_check:
    player 1's programme's optimum (equal to `optimum` up to the LP's tolerance); behaviour: key
    -> {action: probability} at every decision key of both players (floats; ``policy()``);
    exploitability: the policy's, over the tree (OpenSpiel's convention; ~0); exact_value,
    exact_policy: the value and policy as Fractions when the rounded policy is an exact
    equilibrium (NashConv exactly 0), else None (``value_exact`` is exact_value); plans: each
    player's realization plan (numpy, by sequence index); tree: the game's tree of plays;
    sweeps: the two programmes' HiGHS iterations (0 where presolve alone solves them); method:
    "sequence-form".

    The scalar face: ``value``, ``value_exact``, ``policy()``, residual (|optimum -
    value_check|), error_bound (|optimum - exact_value| when the exact value is known, else
    None). The per-state face (``generic()``, space, values, values_exact, ``best_action()``,
    ``value_of()``) means nothing here: a player sees an information key, not the state, and
    an equilibrium mixes; each raises a one-line SolverError.
    """

    game: Any
    optimum: float
    value_check: float
    behaviour: dict[Hashable, dict[Hashable, float]]
    exploitability: float
    exact_value: Fraction | None
    exact_policy: dict[Hashable, dict[Hashable, Fraction]] | None
    plans: tuple[np.ndarray, ...]
    tree: InformationTree
    sweeps: int = 0
    method: str = "sequence-form"

    # ---------------------------------------------------------- the scalar face
    @property
    def value(self) -> float:
        """Player 0's equilibrium utility (player 0's programme's optimum)."""
        return self.optimum + 0.0  # no -0.0 from the LP

    @property
    def value_exact(self) -> Fraction | None:
        return self.exact_value

    @property
    def residual(self) -> float:
        return abs(self.optimum - self.value_check)

    @property
    def error_bound(self) -> float | None:
        return None if self.exact_value is None else abs(self.optimum - float(self.exact_value))

    def policy(self) -> dict[Hashable, dict[Hashable, float]]:
        """The equilibrium's behaviour: information key -> {action: probability} (floats)."""
        return self.behaviour

    # ---------------------------------------------------------- the per-state face: none
    def _no_states(self, member: str) -> SolverError:
        return SolverError(f"{game_label(self.game)} has hidden information: its solution has "
                           f"no {member} (values and policy are per information key); read "
                           "value, policy() or exploitability")

    def generic(self) -> GameSolution:
        raise self._no_states("per-row form (generic())")

    @property
    def space(self) -> StateSpace:
        raise self._no_states("state space")

    @property
    def values(self) -> np.ndarray:
        raise self._no_states("per-state values")

    @property
    def values_exact(self) -> list[Fraction] | None:
        raise self._no_states("per-state values")

    def best_action(self, state: Any) -> Any:
        raise self._no_states("best action per state (its equilibrium mixes)")

    def value_of(self, state: Any) -> float:
        raise self._no_states("value per state")


def sequence_form(tree: InformationTree) -> tuple[Any, Any, Any]:
    """The programme's matrices as scipy.sparse CSR: A (player 0's sequences x player 1's;
    chance-weighted player 0 utility), E and F (one row for the empty sequence, one per decision
    key: -parent + its sequences). A one-player game's player 1 has the empty sequence alone."""
    from scipy import sparse

    sizes = [len(tree.sequences[p]) if p < tree.num_players else 1 for p in (0, 1)]
    rows, cols, data = [], [], []
    for n in tree.terminals():
        weight = float(tree.chance[n]) * float(tree.utility[n])
        if weight:
            own = tree.own[n]
            rows.append(own[0])
            cols.append(own[1] if tree.num_players == 2 else 0)
            data.append(weight)
    a = sparse.coo_matrix((data, (rows, cols)), shape=tuple(sizes)).tocsr()  # sums repeats
    constraints = []
    for p in (0, 1):
        r, c, d = [0], [0], [1.0]
        for k, infoset in enumerate(tree.decisions(p) if p < tree.num_players else [], start=1):
            r.append(k)
            c.append(infoset.parent)
            d.append(-1.0)
            r.extend([k] * len(infoset.sequences))
            c.extend(infoset.sequences)
            d.extend([1.0] * len(infoset.sequences))
        constraints.append(sparse.coo_matrix((d, (r, c)), shape=(max(r) + 1, sizes[p])).tocsr())
    return a, constraints[0], constraints[1]


def _programme(a: Any, e: Any, f: Any) -> tuple[float, np.ndarray, int]:
    """max over x of min over y of x'Ay (E x = e, F y = f, x, y >= 0), as the LP
    max q_0 s.t. F'q - A'x <= 0, E x = e, x >= 0 (q free): the optimum, x and HiGHS's
    iterations."""
    from scipy import sparse
    from scipy.optimize import linprog

    n, m = e.shape[1], f.shape[0]
    cost = np.zeros(n + m)
    cost[n] = -1.0  # maximise q_0 (f = the unit vector of the empty sequence)
    upper = sparse.hstack([-a.T, f.T]).tocsr()
    equal = sparse.hstack([e, sparse.csr_matrix((e.shape[0], m))]).tocsr()
    rhs = np.zeros(e.shape[0])
    rhs[0] = 1.0
    bounds = [(0, None)] * n + [(None, None)] * m
    res = linprog(cost, A_ub=upper, b_ub=np.zeros(upper.shape[0]), A_eq=equal, b_eq=rhs,
                  bounds=bounds, method="highs")
    if res.status != 0:
        raise SolverError(f"the sequence-form programme failed: {res.message}")
    return -float(res.fun), np.clip(res.x[:n], 0.0, None), int(res.nit)


def _behaviour(tree: InformationTree, player: int,
               plan: np.ndarray) -> dict[Hashable, dict[Hashable, float]]:
    """A realization plan as behaviour: x[sa] / x[s], uniform where x[s] is 0."""
    out = {}
    for infoset in tree.decisions(player):
        weights = plan[list(infoset.sequences)]
        total = float(weights.sum())
        if plan[infoset.parent] <= 0 or total <= 0:
            probs = [1.0 / len(infoset.actions)] * len(infoset.actions)
        else:
            probs = [float(w) / total for w in weights]
        out[infoset.key] = dict(zip(infoset.actions, probs, strict=True))
    return out


def _rounded(policy: dict[Hashable, dict[Hashable, float]],
             denominator: int) -> dict[Hashable, dict[Hashable, Fraction]]:
    """Each key's probabilities as fractions of at most `denominator`, summing to exactly 1."""
    out = {}
    for key, row in policy.items():
        actions = list(row)
        probs = [Fraction(row[a]).limit_denominator(denominator) for a in actions[:-1]]
        probs.append(1 - sum(probs, Fraction(0)))
        if probs[-1] < 0:
            probs = [Fraction(1, len(actions))] * len(actions)
        out[key] = dict(zip(actions, probs, strict=True))
    return out


def _exact_game(tree: InformationTree) -> bool:
    """Every utility exact (int or Fraction): exact arithmetic means something."""
    return all(isinstance(tree.utility[n], (int, Fraction)) for n in tree.terminals())


def solve_sequence_form(game: Any, exact: bool = True) -> SequenceFormSolution:
    """The value and an equilibrium of a one- or two-player zero-sum game with hidden
    information (a game or its :class:`InformationTree`), by the sequence-form programme with
    HiGHS (module docstring). `exact`: try the rounded policy in exact arithmetic (games with
    exact utilities and at most EXACT_NODES_LIMIT histories)."""
    tree = information_tree(game)
    if tree.num_players not in (1, 2):
        raise SolverError(f"the sequence form solves games of one or two players, not "
                          f"{tree.num_players}")
    a, e, f = sequence_form(tree)
    value, x, steps = _programme(a, e, f)
    check, y, more = _programme(-a.T.tocsr(), f, e)  # player 1 maximises minus player 0's utility
    policy = _behaviour(tree, 0, x)
    if tree.num_players == 2:
        policy.update(_behaviour(tree, 1, y))
    exact_value = exact_policy = None
    if exact and tree.n_nodes <= EXACT_NODES_LIMIT and _exact_game(tree):
        rounded = _rounded(policy, ROUNDING_DENOMINATOR)
        if nash_conv(tree, rounded) == 0:
            exact_policy, exact_value = rounded, Fraction(expected_payoff(tree, rounded))
    return SequenceFormSolution(
        game=tree.game, optimum=value, value_check=-check, behaviour=policy,
        exploitability=float(exploitability(tree, policy)) if tree.num_players == 2
        else float(nash_conv(tree, policy)),
        exact_value=exact_value, exact_policy=exact_policy, plans=(x, y), tree=tree,
        sweeps=steps + more)
