"""`grade --run` power and false alarms on the corpus of standalone programs: N copies of each
program (tests/students/programs: faithful ones, the print-only slips, the wrong M) graded by
running them on the run plan; the share of students caught (review or fail) per program and the
faithful students' verdicts. The rates are measured, not timed.

Usage: python benchmarks/bench_run_power.py [--copies 10] [--runs 2] [--games 100000]
                                           [--programs c_file,java_stdin,...]

The assigned settings are the handout's example (NSides 6, LTarget 15, UTarget 17, NDice 2,
M 100) at --games; the default probes are added (docs/running.md). Each copy is one student
whose program seeds itself (from the clock): copies differ only by their random numbers.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path

from dicejack.games.handout_rules import Game
from dicejack.grade import GradeConfig
from dicejack.grade import programs as pg
from dicejack.runtime import sandbox as sb

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "students" / "programs"
DEFAULT = ("faithful/c_file", "faithful/java_stdin", "bugs/c_by_plays", "bugs/java_by_wins",
           "bugs/wrong_m.py")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=10)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--programs", default=",".join(DEFAULT))
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args()
    names = args.programs.split(",")
    assigned = pg.Settings(6, 15, 17, 2, 100.0, args.games)
    plan = pg.default_plan(assigned, args.runs)
    config = GradeConfig(Game(6, 15, 17, 2), 100.0, args.games)
    runner = pg.Runner(sb.choose_sandbox(), sb.Limits(wall_seconds=600.0, cpu_seconds=600))
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-power-") as tmp:
        cls = Path(tmp) / "class"
        owner = {}
        for name in names:
            src = CORPUS / name
            for i in range(args.copies):
                dest = cls / f"{Path(name).stem}-{i:02d}"
                if src.is_dir():
                    shutil.copytree(src, dest)
                else:
                    dest.mkdir(parents=True)
                    shutil.copy2(src, dest / src.name)
                owner[dest.name] = name
        batch = pg.grade_programs(config, plan, [cls], runner, workers=args.workers,
                                  cache_dir=Path(tmp) / "cache")
    print(f"plan: {plan.describe()}")
    print(f"{args.copies} students per program; {time.perf_counter() - began:.0f} s wall")
    print("| program | pass | review | fail | caught | flags (count) |")
    print("|---|---:|---:|---:|---:|---|")
    for name in names:
        grades = [s.grade for s in batch.students if owner[s.label] == name]
        verdicts = Counter(g.verdict for g in grades)
        flags = Counter(f for g in grades for f in g.flags)
        caught = verdicts["review"] + verdicts["fail"]
        shown = ", ".join(f"{f} ({n})" for f, n in flags.most_common(4))
        print(f"| {name} | {verdicts['pass']} | {verdicts['review']} | {verdicts['fail']} | "
              f"{caught / max(len(grades), 1):.0%} | {shown} |")


if __name__ == "__main__":
    main()
