"""Exact evaluation of two policies by forward propagation from <0,0>: the first player's win
probability (`evaluate`) and each state's visit probability (`visit_probabilities`). The numpy
engine here and the compiled kernel give bit-identical results."""

from __future__ import annotations

import functools
import time

import numpy as np

from dicejack.games.handout_rules import Game
from dicejack.solver.engines import charge, check_engine, choose_engine
from dicejack.solver.solution import Engine, Fill, Policy, policy_distribution


def _propagate(
    game: Game, a: Policy, b: Policy, engine: Engine | None, fill: Fill = "uniform",
    zero_based: bool = False,
) -> tuple[np.ndarray, np.ndarray, float]:
    check_engine(engine)
    pa = np.ascontiguousarray(policy_distribution(game, a, fill, zero_based))
    pb = np.ascontiguousarray(policy_distribution(game, b, fill, zero_based))
    if (engine or choose_engine(game)) == "numpy":
        start = time.perf_counter()
        result = _forward_numpy(game, pa, pb)
        charge(start)
        return result
    from dicejack.solver import kernels

    mass_a = np.empty((game.low, game.low))
    mass_b = np.empty((game.low, game.low))
    a_wins = kernels.forward_visits(
        game.low, game.high, game.n_dice, np.ascontiguousarray(game.sum_probability_table),
        pa, pb, mass_a, mass_b,
    )
    return mass_a, mass_b, float(a_wins)


@functools.lru_cache(maxsize=8)
def _forward_plan(
    game: Game,
) -> tuple[list[tuple[np.ndarray, ...]], np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """Index arrays for :func:`_forward_numpy`, per game: for each anti-diagonal d (ascending)
    the flat indices of its states (x ascending) and, for each (state, total t) whose new score
    x + t stays below low, the state's position in the diagonal, P(j dice total t) for j = 1..K
    (K, m) and the flat index of the target state <y, x + t>. Also every state's flat index in
    that order, and the win-probability terms: for each, its (state, mover, J) entry and its
    P(J dice total t)."""
    low, high = game.low, game.high
    probs = game.sum_probability_table[1:]  # (K, T)
    t = np.arange(probs.shape[1])
    diagonals = []
    order = []
    for d in range(0, 2 * low - 1):
        xs = np.arange(max(0, d - low + 1), min(d, low - 1) + 1)
        ys = d - xs
        s = xs[:, None] + t[None, :]  # the mover's new score, (n, T)
        pos, tt = np.nonzero(s < low)  # row-major: state, then total ascending
        src = xs * low + ys
        diagonals.append((src, pos, probs[:, tt], ys[pos] * low + s[pos, tt]))
        order.append(src)
    src_all = np.concatenate(order)
    # The kernel's win-probability terms, in its order (state, mover, J, total): A's where A's
    # new score lands in [low, high], B's where B's passes high; zero probabilities left out.
    s_all = (src_all // low)[:, None] + t[None, :]
    ends = np.stack([(s_all >= low) & (s_all <= high), s_all > high], axis=1)  # (states, 2, T)
    full = ends[:, :, None, :] & (probs > 0)[None, None, :, :]  # (states, 2, K, T)
    flat = np.flatnonzero(full)
    k_t = probs.size
    return diagonals, src_all, (flat // t.size, probs.ravel()[flat % k_t])


def _forward_numpy(
    game: Game, pa: np.ndarray, pb: np.ndarray
) -> tuple[np.ndarray, np.ndarray, float]:
    """``kernels.forward_visits`` in numpy, one anti-diagonal at a time; bit-identical.

    Every state of a diagonal sends its mass to later diagonals only, and within one diagonal
    each target state receives from a single source, so adding J = 1..K in turn gives every
    mass the kernel's sums in the kernel's order, each term (mass * w) * P(total) as the kernel
    multiplies. The win probability is the kernel's running sum too: its terms in the kernel's
    order (diagonal, x, mover, J, total) summed sequentially by ``np.cumsum``; the terms the
    kernel skips are zeros here, and adding a zero is exact.
    """
    low, k = game.low, game.n_dice
    diagonals, src_all, ends = _forward_plan(game)
    wa = pa.reshape(low * low, k + 1)[:, 1:]
    wb = pb.reshape(low * low, k + 1)[:, 1:]
    mass_a = np.zeros(low * low)
    mass_b = np.zeros(low * low)
    mass_a[0] = 1.0
    for src, pos, pt, target in diagonals:
        if not target.size:
            continue
        mwa = mass_a[src][:, None] * wa[src]  # (n, K)
        mwb = mass_b[src][:, None] * wb[src]
        ca = mwa[pos].T * pt  # (K, m)
        cb = mwb[pos].T * pt
        to_b = mass_b[target]
        to_a = mass_a[target]
        for j in range(k):
            to_b = to_b + ca[j]
            to_a = to_a + cb[j]
        mass_b[target] = to_b
        mass_a[target] = to_a
    mwa = mass_a[src_all][:, None] * wa[src_all]  # (states, K) in the kernel's order
    mwb = mass_b[src_all][:, None] * wb[src_all]
    entry, pt = ends
    terms = np.stack([mwa, mwb], axis=1).ravel()[entry] * pt
    a_wins = float(np.cumsum(terms)[-1]) if terms.size else 0.0
    return mass_a.reshape(low, low), mass_b.reshape(low, low), a_wins


def evaluate(
    game: Game, first: Policy, second: Policy, engine: Engine | None = None,
    fill: Fill = "uniform", zero_based: bool = False,
) -> float:
    """Exact probability that policy `first`, moving first from <0,0>, beats policy `second`.

    Policies in any form of :data:`Policy` (a table, a distribution, a callable (x, y) -> J, a
    Solution); a table's no-data cell (-1 or NaN) plays a uniformly random J, as compare scores
    it, unless `fill` = "error"; a 0 is refused as a 0-based policy unless `zero_based` (tables
    and callables of actions 0..K-1). `engine`: as for :func:`solve`.
    """
    return _propagate(game, first, second, engine, fill, zero_based)[2]


def visit_probabilities(
    game: Game, a: Policy, b: Policy | None = None, engine: Engine | None = None,
    fill: Fill = "uniform", zero_based: bool = False,
) -> np.ndarray:
    """(low, low) probability that a game of `a` (moving first) against `b` visits each state.

    `b` defaults to `a`. Pass a Solution for optimal play with ties split evenly. `engine`: as
    for :func:`solve`; `fill`, `zero_based`: as for :func:`evaluate`.
    """
    mass_a, mass_b, _ = _propagate(game, a, a if b is None else b, engine, fill, zero_based)
    return mass_a + mass_b
