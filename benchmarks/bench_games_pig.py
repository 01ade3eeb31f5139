"""Pig through the game protocol: dicejack's generic solver (enumerate, levels, value iteration
or policy iteration on scipy.sparse) against a plain numpy value iteration written for Pig, in
one run, with their first-player win probabilities side by side.

The baseline is Neller and Presser's own formulation: the mover's view P[i, j, k] (banked i,
opponent j, turn total k; i + k >= goal counts as won), synchronous sweeps over the whole
(goal, goal, goal) array until no value changes by more than the tolerance. It knows Pig's
shape; the generic solver knows only the protocol (both players' views, 2x the states), so
the ratio is the price of generality.

    python benchmarks/bench_games_pig.py                 # goal 100, die 6 (about a minute)
    python benchmarks/bench_games_pig.py --goal 50 --method policy-iteration

It then prints the roll/hold boundary at a few scores (the smallest turn total at which the
optimal player holds, the figure Neller and Presser draw as a surface) and, exactly
(solver.generic.evaluate_policy), how often the optimal player beats "hold at 20" (roll until the
turn total reaches 20 or wins, then hold) in each seat.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from dicejack.games import Pig, enumerate_game  # noqa: E402
from dicejack.solver.generic import (  # noqa: E402
    evaluate_policy,
    level_structure,
    policy_from_actions,
    solve_game,
)


def numpy_pig(goal: int, die: int, tolerance: float) -> tuple[float, int]:
    """(P[0, 0, 0], sweeps) by plain synchronous value iteration (module docstring)."""
    width = goal + die + 1
    p = np.zeros((goal, goal, width))
    i = np.arange(goal)[:, None, None]
    k = np.arange(width)[None, None, :]
    p[np.broadcast_to(i + k >= goal, p.shape)] = 1.0
    kk = np.arange(goal)[None, None, :]
    jj = np.arange(goal)[None, :, None]
    won = i + kk >= goal
    sweeps = 0
    while True:
        start = p[:, :, 0]
        roll = (1.0 - start.T)[:, :, None] / die + sum(
            p[:, :, r:r + goal] for r in range(2, die + 1)) / die
        hold = np.where(kk == 0, -1.0, 1.0 - start[jj, np.minimum(i + kk, goal - 1)])
        new = np.where(won, 1.0, np.maximum(roll, hold))
        change = float(np.abs(new - p[:, :, :goal]).max())
        p[:, :, :goal] = new
        sweeps += 1
        if change <= tolerance:
            return float(p[0, 0, 0]), sweeps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--goal", type=int, default=100)
    parser.add_argument("--die", type=int, default=6)
    parser.add_argument("--tolerance", type=float, default=1e-13)
    parser.add_argument("--hold-at", type=int, default=20)
    parser.add_argument("--method", default="value-iteration",
                        choices=("value-iteration", "policy-iteration"))
    args = parser.parse_args()
    t0 = time.perf_counter()
    space = enumerate_game(Pig(goal=args.goal, die=args.die))
    t1 = time.perf_counter()
    sol = solve_game(space, method=args.method, tolerance=args.tolerance)
    t2 = time.perf_counter()
    value, sweeps = numpy_pig(args.goal, args.die, args.tolerance)
    t3 = time.perf_counter()
    print(f"Pig goal={args.goal} die={args.die}, tolerance {args.tolerance:g}")
    print(f"  dicejack generic ({sol.method}): {space.n_states:,} states; enumerate "
          f"{t1 - t0:.1f} s + solve {t2 - t1:.1f} s = {t2 - t0:.1f} s; {sol.sweeps:,} level "
          f"sweeps; residual {sol.residual:.2g}; P(first player wins) = {sol.value:.10f}")
    print(f"  plain numpy value iteration: {args.goal ** 3:,} mover-view cells; {t3 - t2:.1f} s; "
          f"{sweeps:,} sweeps; P(first player wins) = {value:.10f}")
    print(f"  generic / numpy time: {(t2 - t0) / (t3 - t2):.2f}x (solve alone "
          f"{(t2 - t1) / (t3 - t2):.2f}x); values differ by {abs(sol.value - value):.1e}")
    marks = sorted({0, args.goal // 4, args.goal // 2, 3 * args.goal // 4, args.goal - 10} - {-1})
    shown = []
    for i in marks:
        row = []
        for j in marks:
            ks = [k for k in range(1, args.goal - i)
                  if (i, j, k, 0) in space.index
                  and sol.best_action((i, j, k, 0)) == "hold"]
            row.append(f"{j}:{ks[0] if ks else '-'}")
        shown.append(f"i={i} [" + " ".join(row) + "]")
    print("  first turn total at which the optimal player (banked i, opponent j) holds, j:k: "
          + "; ".join(shown))
    hold = policy_from_actions(space, lambda s: "hold" if s[2] >= args.hold_at else "roll")
    best = sol.policy()
    seat0 = space.player[space.row_state] == 0
    levels = level_structure(space)
    first = evaluate_policy(space, np.where(seat0, best, hold), levels=levels)[0]
    second = 1.0 - evaluate_policy(space, np.where(seat0, hold, best), levels=levels)[0]
    both = 1.0 - evaluate_policy(space, hold, levels=levels)[0]
    print(f"  optimal against hold at {args.hold_at}: wins {first:.6f} moving first, "
          f"{second:.6f} moving second, {(first + second) / 2:.6f} on average "
          f"(hold at {args.hold_at} against itself: the first player wins {1 - both:.6f})")


if __name__ == "__main__":
    main()
