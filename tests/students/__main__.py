"""Speed of the student corpus: compile time and games per second at the handout's game.

Usage: cd tests && python -m students [--cold] [--games 100000] [--repeat 3]
--cold compiles into a fresh temporary numba cache instead of loading the cached machine code.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m students")
    parser.add_argument("--cold", action="store_true", help="compile into a fresh numba cache")
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    cache = None
    if args.cold:
        cache = tempfile.mkdtemp(prefix="students-numba-")
        os.environ["NUMBA_CACHE_DIR"] = cache
    try:
        measure(args)
    finally:
        if cache:
            shutil.rmtree(cache, ignore_errors=True)


def measure(args) -> None:
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, here)

    import students
    from students import BUGS, FAITHFUL

    handout = (6, 15, 17, 2, 100)
    every = {**FAITHFUL, **BUGS}
    start = time.perf_counter()
    cpu = time.process_time()
    for student in every.values():
        if student.compiled:
            students.learn_tables(student, *handout, 10, 1)
            students.action_probabilities(student, [0, 0, 3, 1], [0, 2, 1, 1], 4)
            students.counts_after(student, 15, 2, [(0, 0, 2)], True)
    print(
        f"{'compile' if args.cold else 'load'} every program: "
        f"{time.perf_counter() - start:.1f} s wall, {time.process_time() - cpu:.1f} s CPU"
    )
    print(
        f"handout game (6 sides, 15..17, 2 dice, M = 100), {args.games:,} games, "
        f"best of {args.repeat}:"
    )
    print(f"{'student':22s} {'learn s':>8s} {'games/s':>11s} {'run_student s':>14s}")
    for name, student in every.items():
        if not student.compiled:
            continue
        learn = printed = float("inf")
        for seed in range(args.repeat):
            t = time.perf_counter()
            students.learn_counts(student, *handout, args.games, seed)
            learn = min(learn, time.perf_counter() - t)
            t = time.perf_counter()
            students.run_student(student, *handout, args.games, seed)
            printed = min(printed, time.perf_counter() - t)
        print(f"{name:22s} {learn:8.3f} {args.games / learn:11,.0f} {printed:14.3f}")
    for name, student in every.items():
        if not student.compiled:
            t = time.perf_counter()
            students.learn_counts(student, *handout, 2000, 0)
            took = time.perf_counter() - t
            print(f"{name:22s} {took:8.3f} {2000 / took:11,.0f}   (plain Python, 2,000 games)")


if __name__ == "__main__":
    main()
