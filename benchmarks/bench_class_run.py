"""`grade --run` on a class written from the handout, as a Canvas bulk download: each real input
convention (numpy `print(ndarray)` with stdin NDice NSides LTarget UTarget NGAMES M, argparse
flags, output.txt, Canvas-renamed Java and C with its header, a student's own zip holding a
Java program with a vendored library) and wrong programs (a wrong M, the last sampled J printed,
integer division, a print-only slip, a compile error, settings written in). Prints, per
program, the convention found, the verdict and the likely cause, then issue 44's "Done when"
checks, each PASS or FAIL with its numbers.

Usage (from the repository, its src on PYTHONPATH):
    python benchmarks/bench_class_run.py [--seed 1] [--runs 2] [--games 100000]

The assigned settings are the handout's game (NSides 6, LTarget 15, UTarget 17, NDice 2, M 100)
at --games; the default plan (the assigned settings and two probes drawn from the secret
`bench-class-<seed>`, --runs runs each); the input convention detected per program; Python
programs on the default numpy environment (as `grade --run` without --python); the LMS CSV
(Canvas format) written to a temporary folder and read back. The programs seed themselves from
the clock: two runs of the benchmark differ by their random numbers. Reference runs are computed
in a temporary folder (counted in the CPU time), or kept in $DICEJACK_BENCH_CACHE when set.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import resource
import shlex
import shutil
import sys
import tempfile
import time
import zipfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from dicejack.games.handout_rules import Game
from dicejack.grade import GradeConfig, GradeError
from dicejack.grade import programs as pg
from dicejack.grade.programs import pyenv
from dicejack.runtime import sandbox as sb

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "students" / "programs"
CLASS = CORPUS / "class"
LAYOUTS = CORPUS / "layouts"


@dataclass(frozen=True)
class Student:
    """One student of the class: their Canvas name and id, what they handed in (file name in
    the download -> the corpus file it is; a name ending .zip -> the folder zipped), what the
    program is (correct, or the bug a row should name) and the convention it follows."""

    name: str
    user: int
    files: tuple[tuple[str, Path], ...]
    program: str
    expected: str  # "correct", or the cause a row should name
    convention: str  # "" when no convention can fit (settings written in, no build)


STUDENTS = (
    Student("anaperez", 2001, (("pa3.py", CLASS / "numpy_stdin.py"),), "class/numpy_stdin.py",
            "correct", "stdin: {dice} {sides} {low} {high} {games} {m}"),
    Student("benokafor", 2002, (("learner.py", CORPUS / "conventions" / "argparse_long.py"),),
            "conventions/argparse_long.py", "correct",
            "argv: --NSides {sides} --LTarget {low} --UTarget {high} --NDice {dice} --M {m} "
            "--NGAMES {games}"),
    Student("cleoduval", 2003, (("main.py", CORPUS / "conventions" / "output_file.py"),),
            "conventions/output_file.py", "correct",
            "argv: {sides} {low} {high} {dice} {m} {games} > output.txt"),
    Student("devsingh", 2004, (("Learner.java", LAYOUTS / "canvas_java" /
                                "student_1003_5003_Learner.java"),),
            "layouts/canvas_java", "correct", "argv: {sides} {low} {high} {dice} {m} {games}"),
    Student("elinakim", 2005, (("learn.c", LAYOUTS / "canvas_c" / "student_1004_5004_learn.c"),
                               ("util.h", LAYOUTS / "canvas_c" / "student_1004_5004_util.h")),
            "layouts/canvas_c", "correct", "argv: {sides} {low} {high} {dice} {m} {games}"),
    Student("faywright", 2006, (("submission.zip", CLASS / "vendored_java"),),
            "class/vendored_java (own zip)", "correct",
            "stdin: {sides} {low} {high} {dice} {m} {games}"),
    Student("gusmoreno", 2007, (("dice.py", CLASS / "wrong_m_flags.py"),),
            "class/wrong_m_flags.py", "m-tenth",
            "argv: --n_sides {sides} --l_target {low} --u_target {high} --n_dice {dice} "
            "--M {m} --n_games {games}"),
    Student("halvorsen", 2008, (("LastSampled.java", CLASS / "LastSampled.java"),),
            "class/LastSampled.java", "last-sampled",
            "argv: {sides} {low} {high} {dice} {m} {games}"),
    Student("ivyzhang", 2009, (("intdiv.c", CLASS / "intdiv.c"),), "class/intdiv.c",
            "integer-division", "file input.txt: {sides} {low} {high} {dice} {m} {games}"),
    Student("jonasberg", 2010, (("pa3.py", CLASS / "by_plays_output_file.py"),),
            "class/by_plays_output_file.py", "printed-by-plays",
            "argv: {dice} {sides} {low} {high} {m} {games} > output.txt"),
    Student("kaiyamada", 2011, (("learn.c", CORPUS / "bugs" / "c_compile_error" / "learn.c"),),
            "bugs/c_compile_error", "does not compile", ""),
    Student("lenaross", 2012, (("pa3.py", CORPUS / "conventions" / "hard_coded.py"),),
            "conventions/hard_coded.py", "ignores-settings", ""),
)


def _zip_folder(folder: Path) -> bytes:
    """The folder as a student zips it (one top folder, as the OS's "compress" makes)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                zf.write(path, f"pa3/{path.relative_to(folder).as_posix()}")
    return buf.getvalue()


def assemble(download: Path) -> None:
    """The Canvas bulk download: `<name>_<user id>_<attachment id>_<file>`, flat."""
    download.mkdir(parents=True)
    attachment = 9000
    for s in STUDENTS:
        for name, source in s.files:
            attachment += 1
            dest = download / f"{s.name}_{s.user}_{attachment}_{name}"
            if name.endswith(".zip"):
                dest.write_bytes(_zip_folder(source))
            else:
                shutil.copy(source, dest)


def _order(spec: str) -> tuple:
    """What a convention gives the program: where, in what order, where it prints (one line or
    one value a line is the same convention to a program reading whitespace-separated values)."""
    if not spec:
        return ()
    c = pg.parse_convention(spec)
    flags = tuple(w for w in c.template.split() if w.startswith("-"))
    return c.kind, c.file, c.output, c.order, flags


def named(s: Student, g) -> bool:
    """Does the row name the program's cause (its likely cause, or for a build or detection
    failure, its reason and flags)?"""
    if s.expected == "does not compile":
        return "does not compile" in g.error
    if s.expected == "ignores-settings":
        return "ignores-settings" in g.flags
    return g.cause == s.expected


def _cpu() -> float:
    """CPU seconds of this process, its waited-for children and every jail it ran (a jail's
    processes are reaped inside it: rusage misses them, sandbox.jails_cpu_seconds has them)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
            + sb.jails_cpu_seconds())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1, help="the probes' secret: bench-class-SEED")
    ap.add_argument("--runs", type=int, default=2, help="runs per setting")
    ap.add_argument("--games", type=int, default=100_000, help="NGAMES of the assigned runs")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per run (as --timeout)")
    args = ap.parse_args()
    print("command: python " + " ".join(shlex.quote(a) for a in
                                        ["benchmarks/bench_class_run.py", *sys.argv[1:]]))
    began, cpu0 = time.perf_counter(), _cpu()
    assigned = pg.Settings(6, 15, 17, 2, 100.0, args.games)
    config = GradeConfig(Game(6, 15, 17, 2), 100.0, args.games)
    plan = pg.default_plan(assigned, args.runs, secret=f"bench-class-{args.seed}")
    box = sb.choose_sandbox()
    try:
        python = pyenv.resolve_python(None, box, notify=print)  # as grade --run's default
    except GradeError as exc:
        print(f"cannot build the default Python environment: {exc}")
        return 2
    runner = pg.Runner(box, sb.Limits(wall_seconds=args.timeout,
                                      cpu_seconds=max(1, int(args.timeout))), python=python)
    print(f"sandbox: {box.description}")
    print(f"python: {python.description}")
    print(f"plan: {plan.describe()}")
    with tempfile.TemporaryDirectory(prefix="bench-class-") as tmp:
        download = Path(tmp) / "submissions"
        assemble(download)
        lms_path = Path(tmp) / "lms.csv"
        batch = pg.grade_programs(config, plan, [download], runner, workers=args.workers,
                                  lms_csv=lms_path, lms_format="canvas",
                                  cache_dir=Path(os.environ.get("DICEJACK_BENCH_CACHE",
                                                                Path(tmp) / "cache")))
        lms_rows = list(csv.reader(io.StringIO(lms_path.read_text())))[2:]
    wall, cpu = time.perf_counter() - began, _cpu() - cpu0
    by_user = {str(s.user): s for s in STUDENTS}
    rows = Counter(r.grade.student for r in batch.students)
    print()
    print("| student | program | expected | convention found | verdict | likely cause | flags |"
          " LMS score |")
    print("|---|---|---|---|---|---|---|---|")
    lms_score = {r[1]: r[5] for r in lms_rows}
    results = []
    for r in sorted(batch.students, key=lambda r: by_user.get(r.grade.student, STUDENTS[0]).user):
        g = r.grade
        s = by_user.get(g.student)
        if s is None:
            print(f"| ? {g.student} | {r.label} | not in the class | | {g.verdict} | | | |")
            continue
        results.append((s, r))
        conv = r.convention or ("none fits (held)" if "input-unknown" in g.flags else "-")
        if "input-guessed" in g.flags:
            conv += " (guessed, held)"
        cause = g.cause or ("does not compile" if "does not compile" in g.error else "")
        print(f"| {s.name} | {s.program} | {s.expected} | {conv} | {g.verdict} | {cause} | "
              f"{', '.join(g.flags)} | {lms_score.get(g.student, '(no row)') or '(held)'} |")
    correct = [(s, r) for s, r in results if s.expected == "correct"]
    wrong = [(s, r) for s, r in results if s.expected != "correct"]
    verdicts = Counter(r.grade.verdict for _, r in correct)
    caught = sum(r.grade.verdict in ("review", "fail") for _, r in wrong)
    cause_named = sum(named(s, r.grade) for s, r in wrong)
    conv_right = sum(_order(r.convention) == _order(s.convention) for s, r in results)
    missing = sorted(s.name for s in STUDENTS if rows[str(s.user)] == 0)
    doubled = sorted(k for k, n in rows.items() if n > 1)
    held = [(s, r) for s, r in results
            if {"input-unknown", "input-guessed"} & set(r.grade.flags)]
    leaked = [s.name for s, r in held if lms_score.get(r.grade.student, "")]
    lms_count = Counter(r[1] for r in lms_rows)
    checks = [
        ("correct programs pass (reviews <= 1, fails 0)",
         verdicts["review"] <= 1 and verdicts["fail"] == 0 and len(correct) == 6,
         f"{verdicts['pass']} pass, {verdicts['review']} review, {verdicts['fail']} fail "
         f"of {len(correct)}"),
        ("wrong programs caught (review or fail)", caught == len(wrong),
         f"{caught} of {len(wrong)}"),
        ("wrong programs' cause named", cause_named == len(wrong),
         f"{cause_named} of {len(wrong)}: " + ", ".join(
             f"{s.name} {'named' if named(s, r.grade) else 'NOT named'} "
             f"({r.grade.cause or '-'})" for s, r in wrong)),
        ("one row per student naming the convention used",
         not missing and not doubled and conv_right == len(results) == len(STUDENTS)
         and all(lms_count[str(s.user)] == 1 for s in STUDENTS),
         f"{len(batch.students)} rows for {len(STUDENTS)} students, convention as written in "
         f"{conv_right} of {len(results)}, LMS CSV rows {len(lms_rows)}"
         + (f"; missing {missing}" if missing else "") + (f"; doubled {doubled}" if doubled
                                                          else "")),
        ("held detection rows absent from the LMS CSV", bool(held) and not leaked,
         f"{len(held)} rows from a detection guess or none (input-unknown, input-guessed), "
         f"{len(leaked)} with a score in the LMS CSV"),
    ]
    print()
    for s, r in results:  # what decided each verdict that is not a pass
        if r.grade.decided_by and r.grade.verdict != "pass":
            print(f"{s.name}: decided by {r.grade.decided_by}")
    print()
    for label, ok, numbers in checks:
        print(f"{'PASS' if ok else 'FAIL'}  {label}: {numbers}")
    print()
    print(f"{len(STUDENTS)} students, {sum(len(r.runs) for r in batch.students)} runs; "
          f"{wall:.0f} s wall, {cpu:.0f} s CPU (this process, its children and its jails; "
          f"reference runs included unless cached)")
    return 0 if all(ok for _, ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
