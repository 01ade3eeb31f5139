"""What the handout's engines return and what they accept: `Solution` (a
:class:`~dicejack.solver.results.BaseSolution` whose per-row view is computed exactly from its
tables on first use), and policies in every accepted form turned into one validated action
distribution. (`SolverError` and the tie tolerance live in :mod:`.results`, re-exported here.)"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any, Literal, Union

import numpy as np

from dicejack.games.handout_rules import Game
from dicejack.games.space import StateSpace
from dicejack.solver.generic_sweeps import bellman, first_optimal
from dicejack.solver.results import (
    TIE_TOLERANCE,
    BaseSolution,
    GameSolution,
    SolverError,
)

__all__ = ["TIE_TOLERANCE", "SolverError", "Solution", "Method", "Engine", "Policy", "Fill",
           "FILLS", "NO_DATA", "ZeroBasedError", "optimal_distribution", "policy_table",
           "policy_distribution", "no_data_mask"]

#: The methods of :func:`dicejack.solver.solve`: "auto" picks by the game's structure (the
#: handout's game: backward induction); "policy-iteration" is for games with cycles.
Method = Literal["auto", "backward", "value-iteration", "policy-iteration"]
Engine = Literal["numpy", "numba"]
#: A policy: (low, low) J in 1..n_dice (-1 or NaN = no data, see `fill`; never 0: J counts from
#: 1), a (low, low, n_dice+1) action distribution (a row of NaN = no data), a callable (x, y) -> J
#: with <x, y> from the mover's view, or a Solution (its optimal actions, ties split evenly).
Policy = Union[np.ndarray, "Solution", Callable[[int, int], Any]]
#: What a policy table's no-data (-1, NaN) cell plays: a uniformly random J (as compare scores
#: it), or an error.
Fill = Literal["uniform", "error"]
FILLS = ("uniform", "error")


@dataclass(frozen=True, eq=False)
class Solution(BaseSolution):
    """The exact solution of the handout's game, as tables over <x, y> (the mover's view).

    q[x, y, j]: win probability of the mover at <x, y> who rolls j dice then plays optimally
    (column 0 unused, 0). p = max_j q; best: lowest optimal J; optimal: boolean (low, low, K+1)
    mask of optimal J (ties within TIE_TOLERANCE, exact in rational mode); gap: p minus the best
    non-optimal q (NaN where every J is optimal); p00 = p[0, 0], the first player's chance.

    Also a :class:`~dicejack.solver.results.BaseSolution`: ``generic()`` is the same solution
    per row of :class:`~dicejack.games.HandoutGame`'s enumeration (computed from these tables on
    first use, then kept), and ``space``, ``values``, ``values_exact``, ``residual``,
    ``error_bound``, ``tolerance``, ``policy()``, ``best_action()``, ``value_of()`` read through
    it (``value``, ``value_exact``: p00, p00_exact). Its own ``q``, ``optimal``, ``best`` are the
    tables; their per-row forms are ``generic().q`` etc.
    """

    game: Game
    q: np.ndarray
    p: np.ndarray
    best: np.ndarray
    optimal: np.ndarray
    gap: np.ndarray
    p00: float
    method: str
    sweeps: int
    exact: bool = False
    p00_exact: Fraction | None = None
    #: (low, low) object array of Fractions in rational mode, else None.
    p_exact: np.ndarray | None = None

    def optimal_sets(self) -> list[list[list[int]]]:
        """The optimal J of every state as nested lists, rows x, columns y."""
        low = self.game.low
        return [
            [np.flatnonzero(self.optimal[x, y]).tolist() for y in range(low)] for x in range(low)
        ]

    # ---------------------------------------------------------- the game-agnostic face
    def generic(self) -> GameSolution:
        """This solution per row of :class:`~dicejack.games.HandoutGame`'s enumeration."""
        return self._view

    @cached_property
    def _view(self) -> GameSolution:
        return _tables_view(self)

    @property
    def value(self) -> float:
        return self.p00

    @property
    def value_exact(self) -> Fraction | None:
        return self.p00_exact

    @property
    def space(self) -> StateSpace:
        return self._view.space

    @property
    def values(self) -> np.ndarray:
        return self._view.values

    @property
    def values_exact(self) -> list[Fraction] | None:
        return self._view.values_exact

    @property
    def residual(self) -> float:
        return self._view.residual

    @property
    def error_bound(self) -> float | None:
        return self._view.error_bound

    @property
    def tolerance(self) -> float:
        return self._view.tolerance


def _tables_view(sol: Solution) -> GameSolution:
    """`sol` per row of HandoutGame's enumeration, exactly from its tables: a state (a, b, m)
    (player m to move) is the mover's <x, y> = (a, b) for m = 0, (b, a) for m = 1; player 0's
    value there is P[x, y], or 1 - P[x, y] when player 1 moves (the same for each row's Q[x, y,
    J]); the optimal rows are the table's optimal J, the best row its lowest. Backward
    induction and value iteration to no change both end at the acyclic recursion's fixed point:
    error_bound 0 (to rounding), tolerance 0; seconds: this view's construction, enumeration
    excluded. The residual is computed afresh from the values."""
    from dicejack.games.handout import HandoutGame
    from dicejack.games.space import enumerate_game

    space = enumerate_game(HandoutGame.from_game(sol.game))
    started = time.perf_counter()
    live = np.flatnonzero(~space.terminal)
    states = np.array([space.states[s] for s in live.tolist()], dtype=np.int64).reshape(-1, 3)
    mover = states[:, 2]
    x = np.where(mover == 0, states[:, 0], states[:, 1])
    y = np.where(mover == 0, states[:, 1], states[:, 0])
    values = space.payoff.copy()
    values[live] = np.where(mover == 0, sol.p[x, y], 1.0 - sol.p[x, y])
    at = np.full(space.n_states, -1, dtype=np.int64)  # a state's place among the live ones
    at[live] = np.arange(len(live))
    row = at[space.row_state]
    j = np.asarray(space.actions, dtype=np.int64)
    q = sol.q[x[row], y[row], j]
    q = np.where(mover[row] == 0, q, 1.0 - q)
    optimal = sol.optimal[x[row], y[row], j].copy()
    exact = None
    if sol.p_exact is not None:
        exact = [Fraction(0 if p is None else p) for p in space.payoff_exact]
        for s, xs, ys, m in zip(live.tolist(), x.tolist(), y.tolist(), mover.tolist(),
                                strict=True):
            exact[s] = sol.p_exact[xs, ys] if m == 0 else 1 - sol.p_exact[xs, ys]
    best = first_optimal(space, optimal)
    _, backed = bellman(space, values)
    residual = float(np.max(np.abs(backed - values))) if len(values) else 0.0
    for a in (values, q, optimal, best):
        a.setflags(write=False)
    return GameSolution(space, values, q, optimal, best, sol.method, sol.sweeps, residual, 0.0,
                        time.perf_counter() - started, exact, 0.0)


def optimal_distribution(sol: Solution) -> np.ndarray:
    """The optimal policy as an action distribution, ties split evenly."""
    mask = sol.optimal.astype(float)
    return mask / mask.sum(axis=2, keepdims=True)


#: The markers of a state without data, in tables only (a callable answers every state): -1 in a
#: table of J, NaN in a table of J or as a whole row of a distribution. 0 is never one: J counts
#: from 1, so a 0 is a 0-based policy's action (see :class:`ZeroBasedError`).
NO_DATA = -1


class ZeroBasedError(SolverError):
    """A policy that plays 0 dice somewhere: J counts from 1, so it reads as a 0-based policy
    (actions 0..K-1). Refused, saying how to read it as 0-based (``how``: ``zero_based=True`` in
    the library; the command line names its own option through :meth:`saying`)."""

    def __init__(self, where: str, n_dice: int, how: str = "pass zero_based=True") -> None:
        self.where, self.n_dice, self.how = where, n_dice, how
        k = n_dice
        super().__init__(
            f"the policy plays 0 dice {where}, but J counts from 1 (1..{k}): for a 0-based "
            f"policy (actions 0..{k - 1}, J = action + 1) {how}; a state without data is -1 "
            "(or NaN) in a table"
        )

    def saying(self, how: str) -> ZeroBasedError:
        """The same refusal, naming another way to say the policy is 0-based."""
        return ZeroBasedError(self.where, self.n_dice, how)


def policy_table(
    game: Game, policy: Callable[[int, int], Any], zero_based: bool = False
) -> np.ndarray:
    """A callable policy (x, y) -> J, asked once in every state, as an (L, L) int64 table of J
    in 1..K. Every answer must be a whole number of dice 1..K (an action 0..K-1 with
    `zero_based`): a callable has no "no data" answer, and a 0 is refused as a 0-based policy
    (:class:`ZeroBasedError`) unless `zero_based` says so."""
    low, k = game.low, game.n_dice
    first = 0 if zero_based else 1
    table = np.zeros((low, low), dtype=np.int64)
    for x in range(low):
        for y in range(low):
            try:
                j = policy(x, y)
            except Exception as exc:  # the caller's code: say where it failed, in one line
                raise SolverError(
                    f"the policy raised {type(exc).__name__} at <{x},{y}>: {exc}"
                ) from exc
            what = f"actions 0..{k - 1}" if zero_based else f"dice 1..{k}"
            if isinstance(j, (bool, np.bool_)) or not isinstance(j, (int, np.integer)):
                raise SolverError(
                    f"the policy returned {j!r} at <{x},{y}>; it must return a whole number of "
                    f"{what} in every state"
                )
            if j == 0 and not zero_based:
                raise ZeroBasedError(f"at <{x},{y}> (it returned 0)", k)
            if not first <= j <= first + k - 1:
                raise SolverError(
                    f"the policy returned {int(j)} at <{x},{y}>; it must return {what} in every "
                    "state (a callable has no 'no data' answer: -1 and NaN mark one in a table)"
                )
            table[x, y] = int(j) + 1 - first
    return table


def policy_distribution(
    game: Game, policy: Policy, fill: Fill = "uniform", zero_based: bool = False
) -> np.ndarray:
    """Any accepted policy form as a validated (low, low, K+1) action distribution.

    Tables of J hold 1..n_dice, or -1 (or NaN) where the learner has no data: `fill` =
    "uniform" plays a uniformly random J there (as :func:`dicejack.compare.compare` scores it),
    "error" refuses it. A 0 is refused as a 0-based policy (:class:`ZeroBasedError`);
    `zero_based` reads tables and callables as actions 0..K-1 (J = action + 1) instead.
    Distributions must be non-negative, sum to 1 over J = 1..K (or be a row of NaN: no data,
    played per `fill` the same way), and put nothing on J = 0. A callable is asked for its J in
    every state (:func:`policy_table`) and has no "no data" answer.
    """
    if fill not in FILLS:
        raise SolverError(f"fill must be 'uniform' or 'error', got {fill!r}")
    if isinstance(policy, Solution):
        if policy.game != game:
            raise SolverError("the Solution is for a different game")
        return optimal_distribution(policy)
    if callable(policy) and not isinstance(policy, np.ndarray):
        policy, zero_based = policy_table(game, policy, zero_based), False
    try:
        arr = np.asarray(policy)
    except (TypeError, ValueError) as exc:
        raise SolverError(f"not a policy table: {exc}") from None
    low, k = game.low, game.n_dice
    if arr.dtype.kind not in "iuf" and arr.shape in (game.shape, game.table_shape):
        raise SolverError(f"a policy table must hold numbers, got {arr.dtype} values")
    if arr.shape == (low, low):
        return _table_distribution(game, arr, fill, zero_based)
    if arr.shape == game.table_shape:
        dist = np.asarray(arr, dtype=float)
        nan = np.isnan(dist)
        empty = nan.all(axis=2)  # a state without data: played per `fill`
        if (nan & ~empty[:, :, None]).any():
            x, y = np.argwhere((nan & ~empty[:, :, None]).any(axis=2))[0]
            raise SolverError(f"the action distribution is partly NaN at <{x},{y}>; a state "
                              "without data is a whole row of NaN")
        known = dist[~empty]
        if known.size and (
            not np.all(np.isfinite(known)) or known.min() < 0 or np.any(known[:, 0] != 0)
            or not np.allclose(known.sum(axis=1), 1.0, atol=1e-9)
        ):
            raise SolverError(
                "an action distribution must be non-negative, 0 for J=0, and sum to 1 per state "
                "(a state without data: a row of NaN)"
            )
        if empty.any():
            if fill == "error":
                x, y = np.argwhere(empty)[0]
                raise SolverError(f"the action distribution has no data (NaN) at <{x},{y}>; "
                                  "fill='error' refuses no-data states")
            dist = dist.copy()
            dist[empty, 0] = 0.0
            dist[empty, 1:] = 1.0 / k
        return dist
    raise SolverError(
        f"a policy must have shape {(low, low)} (dice per state) or {game.table_shape} "
        f"(action distribution), got {arr.shape}"
    )


def no_data_mask(game: Game, policy: Any) -> np.ndarray:
    """(L, L) True where a policy table marks "no data" (-1 or NaN in a table of J, a NaN row in
    a distribution); all False for other forms (a callable or Solution answers every state)."""
    if isinstance(policy, Solution) or (callable(policy) and not isinstance(policy, np.ndarray)):
        return np.zeros(game.shape, dtype=bool)
    arr = np.asarray(policy)
    if arr.dtype.kind not in "iuf":
        return np.zeros(game.shape, dtype=bool)
    if arr.shape == game.shape:
        return np.isnan(arr) | (arr == NO_DATA) if arr.dtype.kind == "f" else arr == NO_DATA
    if arr.shape == game.table_shape:
        return np.isnan(np.asarray(arr, dtype=float)).all(axis=2)
    return np.zeros(game.shape, dtype=bool)


def _table_distribution(
    game: Game, arr: np.ndarray, fill: Fill, zero_based: bool
) -> np.ndarray:
    """A validated table of J (or of 0-based actions) as a distribution; see
    :func:`policy_distribution`."""
    k = game.n_dice
    empty = no_data_mask(game, arr)
    if arr.dtype.kind == "f":
        vals = np.where(empty, 0.0, arr)
        if not np.all(np.isfinite(vals)) or not np.all(vals == np.round(vals)):
            raise SolverError("a policy table must hold whole numbers of dice (-1 or NaN: no "
                              "data)")
    vals = np.where(empty, 0, arr).astype(np.int64)
    if not zero_based:
        zero = (vals == 0) & ~empty
        if zero.any():
            x, y = np.argwhere(zero)[0]
            n = int(zero.sum())
            raise ZeroBasedError(f"at <{x},{y}> ({n} state{'s' if n > 1 else ''} in all)", k)
    first = 0 if zero_based else 1
    bad = ~empty & ((vals < first) | (vals > first + k - 1))
    if bad.any():
        x, y = np.argwhere(bad)[0]
        what = f"an action 0..{k - 1}" if zero_based else f"1..{k}"
        raise SolverError(f"policy has {vals[x, y]} {'as action' if zero_based else 'dice'} at "
                          f"<{x},{y}>; must be {what} (-1 = no data)")
    if empty.any() and fill == "error":
        x, y = np.argwhere(empty)[0]
        raise SolverError(f"policy has no data (-1 or NaN) at <{x},{y}>; fill='error' refuses "
                          "no-data cells")
    j = vals + 1 - first
    dist = np.zeros(game.table_shape)
    dist[:, :, 1:] = np.where(empty[:, :, None], 1.0 / k, 0.0)
    rows, cols = np.nonzero(~empty)
    dist[rows, cols, j[rows, cols]] = 1.0
    return dist
