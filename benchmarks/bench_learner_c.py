"""The learners per core against a tight C loop of the handout's algorithm, in one run.

Usage: python benchmarks/bench_learner_c.py [--rounds 7] [--games 2000000] [--quick]

The baseline is benchmarks/handout_loop.c, built on the fly with the system's C compiler (cc -O2;
skipped with a note where there is none): the handout's learner with the same bookkeeping as
dicejack's compiled loop and xoshiro256** random numbers. dicejack's side is the same games of
`learners.learn` (numpy's PCG64 stream, identical tables to its plain reference loop). Timed per
CPU-second (the C program's clock(); time.process_time here) of the self-play alone, interleaved
C / dicejack round by round, the median of the rounds; the ratio is dicejack's moves per CPU
second over C's (>= 1.0: at least as fast as the C loop). Every bundled learner is timed on the
same games beside the handout's, its ratio to the same C loop quoted (they do other work per
move; the C loop is the handout's learner).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

from dicejack import learners
from dicejack.games.handout_rules import Game

HERE = Path(__file__).resolve().parent
GAMES = (Game(6, 15, 17, 2), Game(6, 30, 35, 4))
M = 100.0


def build_c(folder: Path) -> Path | None:
    """The C loop compiled into `folder`; None when there is no C compiler."""
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        return None
    exe = folder / "handout_loop"
    subprocess.run([compiler, "-O2", "-o", str(exe), str(HERE / "handout_loop.c"), "-lm"],
                   check=True)
    return exe


def run_c(exe: Path, game: Game, games: int, seed: int) -> tuple[float, int]:
    """CPU seconds and moves of the C loop."""
    out = subprocess.run([str(exe), str(game.n_sides), str(game.low), str(game.high),
                          str(game.n_dice), str(M), str(games), str(seed)],
                         capture_output=True, text=True, check=True).stdout.split()
    return float(out[2]), int(out[1])


def run_ours(game: Game, name: str, games: int, seed: int) -> tuple[float, int]:
    """CPU seconds and moves of one dicejack learner's run (the self-play alone)."""
    params = {"m": M} if name == "handout" else {}
    learner = learners.make(game, name, seed, **params)
    started = time.process_time()
    learner.play(games)
    seconds = time.process_time() - started
    return seconds, int(getattr(learner, "moves", 0) or learner.tables().visits.sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--games", type=int, default=2_000_000, help="games a run (handout's "
                        "game; a quarter on the 4-dice game)")
    parser.add_argument("--quick", action="store_true", help="3 rounds, 10x fewer games")
    args = parser.parse_args()
    rounds, games = (3, args.games // 10) if args.quick else (args.rounds, args.games)
    for game in GAMES:  # compile or load every kernel before timing
        for name in learners.NAMES:
            learners.learn(game, name, 20, 1)
    with tempfile.TemporaryDirectory() as tmp:
        exe = build_c(Path(tmp))
        print(f"learners per core against the C loop: M={M:g}, numba {numba.__version__}, numpy "
              f"{np.__version__}, {os.cpu_count()} CPUs, median of {rounds} interleaved rounds; "
              "moves per CPU-second")
        if exe is None:
            print("no C compiler (cc, gcc or clang) here: the C loop is skipped; dicejack's "
                  "rates alone follow")
        header = f"{'game':<14} {'learner':<11} {'moves/s':>13} {'C loop':>13} {'ratio':>7}"
        print(header)
        print("-" * len(header))
        for game in GAMES:
            n = games if game.n_dice == 2 else games // 4
            label = f"{game.n_sides},{game.low},{game.high},{game.n_dice}"
            c_rates, ours = [], {name: [] for name in learners.NAMES}
            for r in range(rounds):
                if exe is not None:
                    secs, moves = run_c(exe, game, n, r + 1)
                    c_rates.append(moves / secs)
                for name in learners.NAMES:
                    secs, moves = run_ours(game, name, n, r + 1)
                    ours[name].append(moves / secs)
            c_rate = statistics.median(c_rates) if c_rates else float("nan")
            for name in learners.NAMES:
                rate = statistics.median(ours[name])
                ratio = f"{rate / c_rate:6.2f}x" if c_rates else "    n/a"
                c_text = f"{c_rate:13,.0f}" if c_rates else f"{'-':>13}"
                print(f"{label:<14} {name:<11} {rate:13,.0f} {c_text} {ratio}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
