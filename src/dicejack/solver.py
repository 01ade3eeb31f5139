"""The exact solution of the game: optimal policy and win probability for every state <x, y>.

Three independent ways to the same numbers, so each can check the others:

* ``solve(game)`` — backward induction over anti-diagonals x + y (the game is acyclic: every roll
  adds at least 1), with running window sums so that each (state, J) costs O(1) whatever n_sides;
  compiled with numba. The default.
* ``solve(game, method="value-iteration")`` — classic synchronous Bellman sweeps over all states
  from P = 0 until nothing changes, with direct sums over the dice-sum distributions (numpy).
* ``solve(game, exact=True)`` — the recursion in ``fractions.Fraction``; ties are exact.

Also exact evaluation of any pair of policies (``evaluate``) and the probability that a game
between two policies visits each state (``visit_probabilities``), by forward propagation.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, Union

import numpy as np

from dicejack import _kernels
from dicejack.game import DicejackError, Game

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
    "reachable",
]

#: Two actions whose float win probabilities differ by at most this are both optimal.
TIE_TOLERANCE = 1e-12

#: Largest exact-rational problem, in (states x J x dice totals) Fraction operations.
EXACT_WORK_LIMIT = 3_000_000

Method = Literal["backward", "value-iteration"]
#: A policy: (low, low) ints J in 1..n_dice, a (low, low, n_dice+1) action distribution, or a
#: Solution (its optimal actions, ties split evenly).
Policy = Union[np.ndarray, "Solution"]


class SolverError(DicejackError):
    """The solver was asked for something it cannot do (bad method, game too large, bad policy)."""


@dataclass(frozen=True, eq=False)
class Solution:
    """The exact solution of a game.

    q[x, y, j]: win probability of the mover at <x, y> who rolls j dice then plays optimally
    (column 0 unused, 0). p = max_j q; best: lowest optimal J; optimal: boolean (low, low, K+1)
    mask of optimal J (ties within TIE_TOLERANCE, exact in rational mode); gap: p minus the best
    non-optimal q (NaN where every J is optimal); p00 = p[0, 0], the first player's chance.
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


# ------------------------------------------------------------------------------------ solve
def solve(
    game: Game, method: Method = "backward", exact: bool = False
) -> Solution:
    """Solve `game` exactly. See the module docstring for the methods."""
    if not isinstance(game, Game):
        raise SolverError(f"solve() needs a Game, got {type(game).__name__}")
    if method not in ("backward", "value-iteration"):
        raise SolverError(f"unknown method {method!r}; use 'backward' or 'value-iteration'")
    if exact:
        if method != "backward":
            raise SolverError("exact rational solving uses backward induction; drop --method")
        return _solve_exact(game)
    if method == "value-iteration":
        return _solve_value_iteration(game)
    return _solve_backward(game)


def _tail(game: Game) -> np.ndarray:
    """E_j(s) for s = low..low+S: the chance that s plus j dice lands in [low, high]."""
    s_count = game.n_sides + 1
    cdf = game.sum_cdf_table
    width = cdf.shape[1]
    tail = np.zeros((s_count, game.n_dice + 1))
    for k in range(s_count):
        room = game.high - (game.low + k)  # largest total that still wins
        if room < 0:
            continue
        tail[k, :] = cdf[:, min(room, width - 1)]
    return tail


def _solve_backward(game: Game) -> Solution:
    p, best = solve_values(game)
    q = np.empty(game.table_shape)
    optimal = np.empty(game.table_shape, dtype=np.bool_)
    gap = np.empty(game.shape)
    _kernels.backward_q(
        game.low,
        game.n_sides,
        game.n_dice,
        _tail(game),
        np.ascontiguousarray(p.T),
        q,
        optimal,
        gap,
        TIE_TOLERANCE,
    )
    return Solution(game, q, p, best, optimal, gap, float(p[0, 0]), "backward", 1)


def solve_values(game: Game) -> tuple[np.ndarray, np.ndarray]:
    """P and the lowest optimal J per state, without materialising Q (faster, far less memory)."""
    p = np.empty(game.shape)
    best = np.zeros(game.shape, dtype=np.int64)
    _kernels.backward_values(
        game.low, game.n_sides, game.n_dice, _tail(game), p, best, TIE_TOLERANCE
    )
    return p, best


def _terminal_values(game: Game, extra: int) -> np.ndarray:
    """Mover's result for final scores low..low+extra-1: 1 inside [low, high], 0 above."""
    scores = np.arange(game.low, game.low + extra)
    return (scores <= game.high).astype(float)


def _summarise(
    game: Game, q: np.ndarray, method: str, sweeps: int
) -> Solution:
    """P, best, optimal mask and gap from a float Q table."""
    p = q[:, :, 1:].max(axis=2)
    optimal = np.zeros(q.shape, dtype=bool)
    optimal[:, :, 1:] = q[:, :, 1:] >= p[:, :, None] - TIE_TOLERANCE
    best = optimal.argmax(axis=2).astype(np.int64)
    others = np.where(optimal[:, :, 1:], -np.inf, q[:, :, 1:]).max(axis=2)
    gap = np.where(np.isfinite(others), p - others, np.nan)
    return Solution(game, q, p, best, optimal, gap, float(p[0, 0]), method, sweeps)


def _solve_value_iteration(game: Game, max_sweeps: int | None = None) -> Solution:
    """Synchronous value iteration from P = 0 until Q stops changing (exactly).

    The game graph is acyclic with depth at most 2*low - 1 moves, so sweeps settle after at most
    2*low sweeps plus the one that sees no change; the cap is a guard and raises if reached.
    """
    low, k = game.low, game.n_dice
    probs = game.sum_probability_table
    width = probs.shape[1]  # totals 0..K*S
    cap = max_sweeps if max_sweeps is not None else 2 * low + 2
    if game.states * k * width > 50_000_000:
        raise SolverError(
            "value iteration is for small games (states * n_dice * (n_dice*n_sides+1) <= 5e7); "
            "use the default backward method"
        )
    beyond = _terminal_values(game, width)
    q = np.zeros(game.table_shape)
    p = np.zeros((low, low))
    for sweep in range(1, cap + 1):
        # g[s, y]: value to a mover who reached score s with opponent y (s = 0..low-1+K*S).
        g = np.empty((low + width - 1, low))
        g[:low, :] = 1.0 - p.T  # g[s, y] = 1 - P(y, s)
        g[low:, :] = beyond[: width - 1, None]
        new_q = np.zeros_like(q)
        for j in range(1, k + 1):
            for t in range(j, j * game.n_sides + 1):
                new_q[:, :, j] += probs[j, t] * g[t : t + low, :]
        if np.array_equal(new_q, q):
            return _summarise(game, new_q, "value-iteration", sweep)
        q = new_q
        p = q[:, :, 1:].max(axis=2)
    raise SolverError(f"value iteration did not converge in {cap} sweeps")


def _solve_exact(game: Game) -> Solution:
    """Backward induction in exact rationals, by direct sums over the dice distributions."""
    low, k, s = game.low, game.n_dice, game.n_sides
    work = game.states * k * (k * s)
    if work > EXACT_WORK_LIMIT:
        raise SolverError(
            f"game too large for exact rationals: about {work:,} Fraction operations "
            f"(limit {EXACT_WORK_LIMIT:,}); drop --exact"
        )
    dists = [
        [(t, f) for t, f in enumerate(game.sum_fractions(j)) if f] for j in range(k + 1)
    ]
    zero, one = Fraction(0), Fraction(1)
    p_ex = np.empty((low, low), dtype=object)
    q_ex = np.empty(game.table_shape, dtype=object)
    q_ex[...] = zero

    def after(score: int, opponent: int) -> Fraction:
        if score < low:
            return one - p_ex[opponent, score]
        return one if score <= game.high else zero

    for d in range(2 * low - 2, -1, -1):
        for x in range(max(0, d - low + 1), min(d, low - 1) + 1):
            y = d - x
            for j in range(1, k + 1):
                q_ex[x, y, j] = sum((f * after(x + t, y) for t, f in dists[j]), zero)
            p_ex[x, y] = max(q_ex[x, y, 1:])
    optimal = np.zeros(game.table_shape, dtype=bool)
    gap = np.full((low, low), np.nan)
    for x in range(low):
        for y in range(low):
            top = p_ex[x, y]
            rest = [q_ex[x, y, j] for j in range(1, k + 1) if q_ex[x, y, j] != top]
            for j in range(1, k + 1):
                optimal[x, y, j] = q_ex[x, y, j] == top
            if rest:
                gap[x, y] = float(top - max(rest))
    q = np.vectorize(float, otypes=[float])(q_ex)
    p = np.vectorize(float, otypes=[float])(p_ex)
    best = optimal.argmax(axis=2).astype(np.int64)
    p00 = p_ex[0, 0]
    return Solution(
        game, q, p, best, optimal, gap, float(p00), "backward", 1,
        exact=True, p00_exact=p00, p_exact=p_ex,
    )


# ------------------------------------------------------------------------- policy evaluation
def optimal_distribution(sol: Solution) -> np.ndarray:
    """The optimal policy as an action distribution, ties split evenly."""
    mask = sol.optimal.astype(float)
    return mask / mask.sum(axis=2, keepdims=True)


def policy_distribution(game: Game, policy: Policy) -> np.ndarray:
    """Any accepted policy form as a validated (low, low, K+1) action distribution.

    Integer tables must hold J in 1..n_dice everywhere (a policy must say what to do in every
    state, even unreachable ones); distributions must be non-negative, sum to 1 over J = 1..K,
    and put nothing on J = 0.
    """
    if isinstance(policy, Solution):
        if policy.game != game:
            raise SolverError("the Solution is for a different game")
        return optimal_distribution(policy)
    arr = np.asarray(policy)
    low, k = game.low, game.n_dice
    if arr.shape == (low, low):
        if not np.issubdtype(arr.dtype, np.integer):
            if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
                raise SolverError("a policy table must hold whole numbers of dice")
            arr = arr.astype(np.int64)
        if arr.min() < 1 or arr.max() > k:
            bad = np.argwhere((arr < 1) | (arr > k))[0]
            raise SolverError(
                f"policy has {arr[tuple(bad)]} dice at <{bad[0]},{bad[1]}>; must be 1..{k}"
            )
        dist = np.zeros(game.table_shape)
        np.put_along_axis(dist, arr[:, :, None], 1.0, axis=2)
        return dist
    if arr.shape == game.table_shape:
        dist = np.asarray(arr, dtype=float)
        if (
            not np.all(np.isfinite(dist))
            or dist.min() < 0
            or np.any(dist[:, :, 0] != 0)
            or not np.allclose(dist.sum(axis=2), 1.0, atol=1e-9)
        ):
            raise SolverError(
                "an action distribution must be non-negative, 0 for J=0, and sum to 1 per state"
            )
        return dist
    raise SolverError(
        f"a policy must have shape {(low, low)} (dice per state) or {game.table_shape} "
        f"(action distribution), got {arr.shape}"
    )


def _propagate(game: Game, a: Policy, b: Policy) -> tuple[np.ndarray, np.ndarray, float]:
    pa = np.ascontiguousarray(policy_distribution(game, a))
    pb = np.ascontiguousarray(policy_distribution(game, b))
    mass_a = np.empty((game.low, game.low))
    mass_b = np.empty((game.low, game.low))
    a_wins = _kernels.forward_visits(
        game.low, game.high, game.n_dice, np.ascontiguousarray(game.sum_probability_table),
        pa, pb, mass_a, mass_b,
    )
    return mass_a, mass_b, float(a_wins)


def evaluate(game: Game, first: Policy, second: Policy) -> float:
    """Exact probability that policy `first`, moving first from <0,0>, beats policy `second`."""
    return _propagate(game, first, second)[2]


def visit_probabilities(game: Game, a: Policy, b: Policy | None = None) -> np.ndarray:
    """(low, low) probability that a game of `a` (moving first) against `b` visits each state.

    `b` defaults to `a`. Pass a Solution for optimal play with ties split evenly.
    """
    mass_a, mass_b, _ = _propagate(game, a, a if b is None else b)
    return mass_a + mass_b


def reachable(game: Game) -> np.ndarray:
    """Boolean (low, low) mask of states reachable from <0,0> under some legal play."""
    return game.reachable()
