"""Synchronous value iteration from P = 0 until nothing changes: an independent check on backward
induction, with direct sums over the dice-sum distributions."""

from __future__ import annotations

import numpy as np

from dicejack.games.handout_rules import MOVER_WINS, Game
from dicejack.solver.solution import TIE_TOLERANCE, Solution, SolverError


def _terminal_values(game: Game, extra: int) -> np.ndarray:
    """Mover's result for final scores low..low+extra-1: 1 inside [low, high], 0 above."""
    scores = range(game.low, game.low + extra)
    return np.array([float(game.outcome(s) == MOVER_WINS) for s in scores])


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


def solve_value_iteration(game: Game, max_sweeps: int | None = None) -> Solution:
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
