"""Speed of the bundled learners beside the handout's, in the same run: moves per CPU-second.

Usage: python benchmarks/bench_learners.py [--games N] [--seeds S] [--quick] [--learning]

On the handout's game (6 sides, 15..17, 2 dice), each learner with its default parameters plays
N games (default 10**6) from empty tables, for each of S seeds (default 2); the rate is total moves
over total CPU seconds (time.process_time) of the compiled self-play loop alone (play(): not
building the learner nor reading its tables). Learners play games of different lengths, so moves
per second is the fair figure; games per second is shown too. numba start-up is excluded: every
kernel is run (compiled or loaded from numba's cache) before timing. The handout learner is timed
in the same run, and each learner's ratio to it printed: the target is at least 0.5 (within 2x).

--learning measures learning instead of speed (a measurement, not a test): each learner with its
default parameters, seeds 1..S (default 5), checkpoints on a 1-2-5 grid from 10**3 to 10**6 games
on the handout's game; it prints the mean over seeds (and the range) of the decisive agreement and
of the score against the optimal player at each decade, and the first checkpoint at which the
mean decisive agreement reaches 95%.
"""

from __future__ import annotations

import argparse
import os
import time

import numba
import numpy as np

from dicejack import learners
from dicejack.games.handout_rules import Game

GAME = Game(6, 15, 17, 2)
TARGET_RATIO = 0.5


def timed(name: str, games: int, seeds: int) -> tuple[float, int, int]:
    """CPU seconds, games and moves of `seeds` runs of `games` games each."""
    seconds = 0.0
    played = moves = 0
    for seed in range(1, seeds + 1):
        obj = learners.make(GAME, name, seed)
        started = time.process_time()
        obj.play(games)
        seconds += time.process_time() - started
        played += obj.played
        moves += obj.moves
    return seconds, played, moves


def learning(seeds: int) -> None:
    """The learning measurement of --learning (see the module docstring)."""
    from dicejack import compare

    truth = compare.truth(GAME)
    marks = [m * 10**e for e in range(3, 6) for m in (1, 2, 5)] + [10**6]
    decades = [10**3, 10**4, 10**5, 10**6]
    print(f"dicejack learners: learning on {GAME}, default parameters, seeds 1..{seeds}; "
          f"{truth.set_sizes()['decisive']} decisive states")
    print("decisive agreement and score against optimal play (0.5 = optimal): mean over seeds "
          "[min, max]")
    header = f"{'learner':<11} {'metric':<10} " + " ".join(f"{d:>23,}" for d in decades) + \
        f" {'games to 95%':>13}"
    print(header)
    print("-" * len(header))
    for name in learners.NAMES:
        agree = np.zeros((seeds, len(marks)))
        score = np.zeros((seeds, len(marks)))
        for i, seed in enumerate(range(1, seeds + 1)):
            run = learners.learn(GAME, name, marks[-1], seed, checkpoints=marks)
            for j, m in enumerate(marks):
                t = run.snapshots[m]
                metrics = compare.compare(GAME, truth, (t.best, t.probability)).metrics
                agree[i, j] = metrics["agreement_decisive"]
                score[i, j] = metrics["score_vs_optimal"]
        reached = [m for m, v in zip(marks, agree.mean(axis=0), strict=True) if v >= 0.95]
        to95 = f"{reached[0]:,}" if reached else f"> {marks[-1]:,}"
        for label, values, fmt in (("agreement", agree, ".3f"), ("score", score, ".4f")):
            cells = []
            for d in decades:
                col = values[:, marks.index(d)]
                cells.append(f"{col.mean():{fmt}} [{col.min():{fmt}},{col.max():{fmt}}]")
            last = to95 if label == "agreement" else ""
            line = f"{name if label == 'agreement' else '':<11} {label:<10} " + " ".join(
                f"{c:>23}" for c in cells) + f" {last:>13}"
            print(line.rstrip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10**6, help="games per learner and seed")
    parser.add_argument("--seeds", type=int, default=None,
                        help="seeds per learner (default 2; 5 with --learning)")
    parser.add_argument("--quick", action="store_true",
                        help="10**5 games, one seed (a smoke test; ratios less stable)")
    parser.add_argument("--learning", action="store_true",
                        help="measure learning (decisive agreement, score) instead of speed")
    args = parser.parse_args()
    if args.learning:
        learning(args.seeds or 5)
        return
    games, seeds = (10**5, 1) if args.quick else (args.games, args.seeds or 2)

    for name in learners.NAMES:  # compile or load every kernel before timing
        learners.make(GAME, name, 0).play(10)

    print(f"dicejack learners benchmark: game {GAME}, {games:,} games x {seeds} seeds each, "
          f"default parameters, numba {numba.__version__}, numpy {np.__version__}, "
          f"{os.cpu_count()} CPUs; rates per CPU-second")
    header = (f"{'learner':<11} {'games':>11} {'moves':>12} {'seconds':>8} {'moves/s':>12} "
              f"{'games/s':>11} {'vs handout':>10}")
    print(header)
    print("-" * len(header))
    rates = {}
    for name in learners.NAMES:
        secs, played, moves = timed(name, games, seeds)
        rates[name] = moves / secs
        ratio = rates[name] / rates["handout"]
        print(f"{name:<11} {played:>11,} {moves:>12,} {secs:>8.3f} {moves / secs:>12,.0f} "
              f"{played / secs:>11,.0f} {ratio:>9.2f}x")
    print()
    for name in learners.NAMES[1:]:
        ratio = rates[name] / rates["handout"]
        status = "ok" if ratio >= TARGET_RATIO else "BELOW TARGET"
        print(f"{name}: {ratio:.2f}x the handout learner's moves/s (target >= {TARGET_RATIO:g}x, "
              f"within 2x) {status}")


if __name__ == "__main__":
    main()
