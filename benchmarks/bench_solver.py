"""Solver speed: dicejack's backward induction against a plain-numpy baseline, in one run.

The baseline is a good vectorised numpy solver: states by anti-diagonal, and for each diagonal one
(states x K*S) @ (K*S x K) product of successor values with the dice-sum probabilities, on
single-threaded BLAS. dicejack's kernel does O(1) work per (state, J) with running window sums.

    python benchmarks/bench_solver.py               # low = 250 .. 4000
    python benchmarks/bench_solver.py --lows 2000 --repeat 7   # the Q path against its floor

The last two columns: writing Q once from fresh memory (the floor of any solver that returns
Q), and the Q path's time against the P-only path plus that write (timed interleaved, best of
--repeat each).
"""

from __future__ import annotations

import os

# Single-threaded BLAS for the baseline (set before numpy is imported).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from numpy.lib.stride_tricks import as_strided  # noqa: E402

from dicejack import solver  # noqa: E402
from dicejack.games.handout_rules import Game  # noqa: E402


def _diagonal(flat: np.ndarray, start: int, step: int, n: int, width: int = 0) -> np.ndarray:
    """A strided view of n elements (or n rows of `width`) from flat[start], `step` apart.

    `step` may be negative (walking back through `flat`); every element stays inside `flat`.
    """
    item = flat.itemsize
    last = start + step * (n - 1)
    if not (0 <= start < flat.size and 0 <= last and last + max(width, 1) <= flat.size):
        raise IndexError("diagonal view out of bounds")
    shape = (n, width) if width else (n,)
    strides = (step * item, item) if width else (step * item,)
    return as_strided(flat[start:], shape=shape, strides=strides)


def baseline_solve(game: Game) -> tuple[np.ndarray, np.ndarray]:
    """Q and P by anti-diagonals with one matrix product per diagonal (plain numpy).

    Along a diagonal the successors of consecutive states sit a fixed distance apart in memory,
    so gathers and scatters are strided views, not fancy indexing.
    """
    low, k, s = game.low, game.n_dice, game.n_sides
    width = k * s
    probs = game.sum_probability_table[1:, 1 : width + 1].T.copy()  # (K*S, K): P(j dice = t)
    # g[y, score]: value to a mover who reached `score` while the opponent has y.
    ncols = low + width + 1
    scores = np.arange(ncols)
    g = np.where(scores <= game.high, 1.0, 0.0)[None, :].repeat(low, axis=0)
    gf = g.reshape(-1)
    q = np.zeros(game.table_shape)
    qf = q.reshape(-1)
    p = np.empty((low, low))
    pf = p.reshape(-1)
    kk = k + 1
    for d in range(2 * low - 2, -1, -1):
        x1 = min(d, low - 1)  # states in order x = x1, x1-1, ..., y = d - x
        y0 = d - x1
        n = x1 - max(0, d - low + 1) + 1
        successors = _diagonal(gf, y0 * ncols + x1 + 1, ncols - 1, n, width)  # g[y, x+1 ...]
        qd = successors @ probs  # (states, K)
        pd = qd.max(axis=1)
        _diagonal(qf, (x1 * low + y0) * kk + 1, -(low - 1) * kk, n, k)[...] = qd
        _diagonal(pf, x1 * low + y0, -(low - 1), n)[...] = pd
        _diagonal(gf, x1 * ncols + y0, -(ncols - 1), n)[...] = 1.0 - pd  # chain x at score y
    return q, p


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lows", default="250,500,1000,2000,4000")
    parser.add_argument("--repeat", type=int, default=2, help="best of N timings")
    parser.add_argument("--baseline-max", type=int, default=4000, help="skip baseline above")
    args = parser.parse_args()
    lows = [int(v) for v in args.lows.split(",")]

    warm = Game(6, 200, 210, 10)  # above solver.NUMPY_MAX_WORK: the numba engine, as timed below
    solver.solve(warm)  # compile / load the numba cache outside the timings
    solver.solve_values(warm)
    print("game: n_sides=6, n_dice=10, high=low+10; best of", args.repeat, "runs; seconds")
    header = (
        f"{'low':>6} {'baseline':>10} {'dicejack Q':>11} {'dicejack P':>11} "
        f"{'ratio Q':>8} {'ratio P':>8} {'Q bytes':>9} {'max|dP|':>9} {'touch Q':>8} "
        f"{'Q/(P+touch)':>11}"
    )
    print(header)
    print("-" * len(header))
    for low in lows:
        game = Game(6, low, low + 10, 10)
        t_full, t_p, t_touch = (
            min(times) for times in zip(*(
                (_time(lambda g=game: solver.solve(g)),
                 _time(lambda g=game: solver.solve_values(g)),
                 _time(lambda g=game: _first_touch(g)))
                for _ in range(args.repeat)), strict=True))
        if low <= args.baseline_max:
            t_base = min(_time(lambda g=game: baseline_solve(g)) for _ in range(args.repeat))
            _, p_base = baseline_solve(game)
            p_ours, _ = solver.solve_values(game)
            diff = f"{np.abs(p_base - p_ours).max():9.1e}"
            del p_base, p_ours
            ratios = f"{t_base / t_full:8.1f} {t_base / t_p:8.1f}"
            base = f"{t_base:10.3f}"
        else:
            base, ratios, diff = f"{'-':>10}", f"{'-':>8} {'-':>8}", f"{'-':>9}"
        size = game.table_bytes / 2**20
        print(f"{low:>6} {base} {t_full:11.3f} {t_p:11.3f} {ratios} {size:7.0f}MB {diff} "
              f"{t_touch:8.3f} {t_full / (t_p + t_touch):10.2f}x")


def _first_touch(game: Game) -> np.ndarray:
    """The floor of any solver that returns Q: Q's memory written once, from fresh pages."""
    q = np.empty(game.table_shape)
    q[...] = 0.0
    return q


def _time(fn) -> float:
    start = time.perf_counter()
    result = fn()
    elapsed = time.perf_counter() - start
    del result
    return elapsed


if __name__ == "__main__":
    main()
