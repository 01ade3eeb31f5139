"""`grade --run` overhead: the CPU time of a batch of student programs graded by running them
(sandbox, builds, input-convention detection, grading, joint verdicts) beside the CPU time of
the same programs alone (built once and run on the same plan directly, no jail, no detection,
no grading), measured in the same run. Done-when of issue 34: a 60-student batch under 3x.

Usage: python benchmarks/bench_run.py [--students 60] [--runs 1] [--games 20000] [--probes]

The class: the standalone faithful programs of tests/students/programs (Python argv, Python
stdin, Java stdin, C input.txt) in turn, one copy per student. Reference runs are computed (and
cached) before the timing starts: they are the grading's fixed cost, not the programs'. CPU
seconds = this process's CPU plus its waited-for children's (resource.getrusage), so other jobs
on the machine do not count, plus, for the batch, the jails' own (runtime.sandbox.
jails_cpu_seconds: a jail's processes are reaped inside it, so rusage misses them; exact with
control groups, which the header names); wall seconds are printed beside them.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dicejack.games.handout_rules import Game
from dicejack.grade import GradeConfig, reference_runs
from dicejack.grade import programs as pg
from dicejack.runtime import sandbox as sb

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "students" / "programs" / "faithful"
PROGRAMS = ("learn_argv.py", "learn_stdin_lines.py", "java_stdin", "c_file")


def cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def make_class(folder: Path, students: int) -> list[Path]:
    out = []
    for i in range(students):
        src = CORPUS / PROGRAMS[i % len(PROGRAMS)]
        dest = folder / f"student{i:03d}"
        if src.is_dir():
            shutil.copytree(src, dest)
        else:
            dest.mkdir(parents=True)
            shutil.copy2(src, dest / src.name)
        out.append(dest)
    return out


#: How each corpus program takes its settings, for the baseline (no detection there).
BASELINE_INPUT = {
    "learn_argv.py": pg.parse_convention("argv: {sides} {low} {high} {dice} {m} {games}"),
    "learn_stdin_lines.py": pg.parse_convention(
        "stdin: {sides} | {low} | {high} | {dice} | {m} | {games}"),
    "java_stdin": pg.parse_convention("stdin: {dice} {sides} {low} {high} {m} {games}"),
    "c_file": pg.parse_convention("file input.txt: {sides} {low} {high} {dice} {m} {games}"),
}


def baseline(students: list[Path], plan: pg.RunPlan, work: Path) -> float:
    """Each program built once and run on the plan directly, one at a time: CPU seconds."""
    began = cpu()
    for k, folder in enumerate(students):
        program = pg.find_program(folder, folder.name)
        convention = BASELINE_INPUT[PROGRAMS[k % len(PROGRAMS)]]
        built = work / folder.name
        shutil.copytree(folder, built)
        cmd = program.build_command()
        if cmd is not None:
            subprocess.run(cmd, cwd=built, check=True, capture_output=True)
        for setting in plan.settings:
            for _ in range(setting.runs):
                args, stdin, files = convention.render(setting.settings)
                for name, data in files.items():
                    (built / name).write_bytes(data)
                run = ["/usr/bin/python3" if c == "python3" else c
                       for c in program.run_command()]
                subprocess.run([*run, *args], cwd=built, input=stdin, check=True,
                               capture_output=True, env={"PATH": os.environ["PATH"]})
    return cpu() - began


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=60)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--probes", action="store_true", help="the default probes too")
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args()
    assigned = pg.Settings(6, 15, 17, 2, 100.0, args.games)
    plan = (pg.default_plan(assigned, args.runs) if args.probes
            else pg.parse_plan("", assigned=assigned, runs=args.runs))
    config = GradeConfig(Game(6, 15, 17, 2), 100.0, args.games)
    box = sb.choose_sandbox()
    runner = pg.Runner(box, sb.Limits(wall_seconds=600.0, cpu_seconds=600))
    with tempfile.TemporaryDirectory(prefix="bench-run-") as tmp:
        root = Path(tmp)
        students = make_class(root / "class", args.students)
        cache = root / "cache"
        for s in plan.settings:  # the fixed cost, before the clock
            st = s.settings
            reference_runs(GradeConfig(Game(st.sides, st.low, st.high, st.dice), st.m,
                                       st.games), cache_dir=cache)
        wall = time.perf_counter()
        alone = baseline(students, plan, root / "alone")
        alone_wall = time.perf_counter() - wall
        wall = time.perf_counter()
        began, jails = cpu(), sb.jails_cpu_seconds()
        batch = pg.grade_programs(config, plan, [root / "class"], runner, cache_dir=cache,
                                  workers=args.workers)
        batch_cpu = cpu() - began + sb.jails_cpu_seconds() - jails
        batch_wall = time.perf_counter() - wall
    verdicts = {v: sum(g.verdict == v for g in batch.grades) for v in ("pass", "review", "fail")}
    print(f"sandbox: {batch.sandbox}")
    print(f"plan: {plan.describe()}; {args.students} students ({', '.join(PROGRAMS)} in turn)")
    print(f"verdicts: {verdicts}")
    print(f"programs alone (built once, run on the plan, no jail): {alone:8.1f} s CPU "
          f"({alone_wall:.1f} s wall)")
    print(f"grade --run batch (jail, builds, detection, grading):  {batch_cpu:8.1f} s CPU "
          f"({batch_wall:.1f} s wall)")
    print(f"ratio: {batch_cpu / alone:.2f}x the programs' CPU time (done when < 3x)")


if __name__ == "__main__":
    sys.exit(main())
