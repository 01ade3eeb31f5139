"""What every solver returns, for any game: :class:`BaseSolution`, the face every game-agnostic
consumer (metrics, reports, environments) types against, and :class:`GameSolution`, its per-row
form (one value per state, one Q per (state, action) row); with the errors and the tie tolerance
every solver shares.

The handout's engines return :class:`dicejack.solver.solution.Solution` (tables per <x, y>; its
per-row view is computed from those tables on first use); the generic solver returns a
:class:`GameSolution`. Both are a :class:`BaseSolution`: ``generic()`` is the per-row form of
either (a GameSolution is its own), and the scalar face (method, sweeps, value, value_exact,
residual, error_bound, space, values, policy(), best_action(), value_of()) is on both.
"""

from __future__ import annotations

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

    method: "backward", "value-iteration" or "policy-iteration"; sweeps: sweeps (or policy
    evaluations) made; ``generic()``: the per-row :class:`GameSolution` (space, values, q per
    row, optimal per row, best per state, residual, error_bound, ...). A consumer that works for
    any game takes a BaseSolution and reads rows from ``generic()``; the names below read
    through it.
    """

    method: str
    sweeps: int

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

    def policy(self) -> np.ndarray:
        """The optimal policy as row weights (one per (state, action) row), ties split evenly."""
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
