"""Backward induction in exact rationals (`fractions.Fraction`): exact P[0,0] and exact ties, for
small games."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from dicejack.games.handout_rules import CONTINUES, MOVER_WINS, Game
from dicejack.solver.solution import Solution, SolverError

#: Largest exact-rational problem, in (states x J x dice totals) Fraction operations.
EXACT_WORK_LIMIT = 3_000_000



def solve_exact(game: Game) -> Solution:
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
        result = game.outcome(score)
        if result == CONTINUES:
            return one - p_ex[opponent, score]
        return one if result == MOVER_WINS else zero

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
