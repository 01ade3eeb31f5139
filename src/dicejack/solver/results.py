"""What every solver returns, for any game: :class:`BaseSolution`, the face every game-agnostic
consumer (metrics, reports, environments) types against, and :class:`GameSolution`, its per-row
form (one value per state, one Q per (state, action) row); with the errors and the tie tolerance
every solver shares.

The handout's engines return :class:`dicejack.solver.solution.Solution` (tables per <x, y>; its
per-row view is computed from those tables on first use); the generic solver returns a
:class:`GameSolution`; a game with hidden information (Kuhn poker) gets the sequence form's
:class:`dicejack.solver.sequence_form.SequenceFormSolution`. All three are a
:class:`BaseSolution`. The scalar face (method, sweeps, value, value_exact, residual,
error_bound, policy()) is on every one; the per-state face (generic(), space, values,
values_exact, best_action(), value_of()) on the two of perfect information, where ``generic()``
is the per-row form of either (a GameSolution is its own): a hidden-information solution has no
per-state values (what a player knows is not the state) and raises a one-line SolverError there.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dicejack.games.space import StateSpace
from dicejack.runtime.messages import DicejackError

__all__ = ["TIE_TOLERANCE", "SolverError", "BaseSolution", "GameSolution"]

TIE_TOLERANCE = 1e-12


class SolverError(DicejackError):
    """The solver was asked for something it cannot do (bad method, game too large, bad policy)."""


class BaseSolution:
    """Every solution's game-agnostic face (module docstring).

    The scalar face, on every solution: method: "backward", "value-iteration",
    "policy-iteration" or "sequence-form"; sweeps: sweeps (or policy evaluations; the sequence
    form: its two programmes' solver iterations) made; ``value``, ``value_exact``; residual: the
    largest Bellman residual after the solve (the sequence form: its two programmes' optima
    apart); error_bound: a bound on the value's error, or None where the method gives none;
    ``policy()``: the optimal policy in the form the game's policies take.

    The per-state face, for games of perfect information: ``generic()``: the per-row
    :class:`GameSolution` (space, values, q per row, optimal per row, best per state, ...);
    space, values, values_exact; ``best_action()``, ``value_of()``. A consumer that works for
    any such game takes a BaseSolution and reads rows from ``generic()``; the names below read
    through it. A solution of a game with hidden information raises a one-line SolverError for
    every per-state member: it has values per information key, not per state.
    """

    method: str
    sweeps: int
    residual: float
    error_bound: float | None
    #: The per-state face (perfect information only; see the class docstring).
    space: StateSpace
    values: np.ndarray
    values_exact: list[Fraction] | None

    def generic(self) -> GameSolution:
        """The per-row form of this solution."""
        raise NotImplementedError  # pragma: no cover - every subclass has its own

    @property
    def value(self) -> float:
        """Player 0's value at the initial state (the handout's game, Pig: the first player's
        win probability)."""
        return self.generic().value

    @property
    def value_exact(self) -> Fraction | None:
        """The same as a Fraction in rational mode, else None."""
        return self.generic().value_exact

    def policy(self) -> np.ndarray | dict[Hashable, dict[Hashable, float]]:
        """The optimal policy: perfect information, row weights (one per (state, action) row of
        ``generic().space``), ties split evenly; hidden information, the equilibrium's
        behaviour, information key -> {action: probability}."""
        return self.generic().policy()

    def best_action(self, state: Any) -> Any:
        """The first optimal action at `state` (a reachable non-terminal state)."""
        return self.generic().best_action(state)

    def value_of(self, state: Any) -> float:
        """Player 0's value of a reachable `state`."""
        return self.generic().value_of(state)


@dataclass(frozen=True, eq=False)
class GameSolution(BaseSolution):
    """The solution of a protocol game, per row.

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

    def generic(self) -> GameSolution:
        return self

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
