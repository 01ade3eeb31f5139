"""Mutation benchmark: plant each bug of a stated list, one at a time, in a copy of the repository
and see whether the fast lane (``pytest -m "not slow"``) kills it (issue 46).

Usage: python benchmarks/bench_mutation.py [--bug NAME ...] [--with-openspiel] [--list]
                                           [--timeout SECONDS]

The copy is the working tree's files that git tracks or would (``git ls-files --cached --others
--exclude-standard``: uncommitted edits and new files included) in a
temporary folder. Each bug of :data:`BUGS` is an exact text substitution in one file: when the
text is not found exactly once, the benchmark stops with an error (the list is out of date,
never a bug silently not planted). Each planted copy runs the fast-lane tests that cover the
file (:attr:`Bug.tests`) with ``-x``, with the copy's ``src`` first on PYTHONPATH; the optional
OpenSpiel package is hidden by default (a ``pyspiel`` that cannot be imported ahead of it on the
path: the tests that need it are skipped), so a bug counts as killed only by tests every install
runs (``--with-openspiel`` keeps it). A run that outlives ``--timeout`` (a planted hang) counts
as killed, by the timeout. Before any bug, the same tests run unplanted and must pass.

Printed: one row per bug (bug, file, killed yes/no, by which test, seconds). Exit code 1 if any
bug survives, 2 if the list no longer applies or the unplanted tests fail.

Measured (issue 46, 2 shared cores, OpenSpiel hidden): 16 of 16 killed, 2 min 13 s wall. The
suite before issue 46's tests (commit 330fd50, each bug against the test files that covered
its module then) killed 1 of the first 9: the probe only, by the pinned draws of
test_plan.py.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Bug:
    """A bug planted by replacing `old` (found exactly once in `file`) with `new`; `tests`: the
    fast-lane test files (or node ids) that cover the file."""

    name: str
    file: str
    old: str
    new: str
    tests: tuple[str, ...]


#: The eight survivors of issue 46's experiment, then the ones like them found since.
BUGS: tuple[Bug, ...] = (
    Bug("statistic without sqrt(1 + 1/n)", "src/dicejack/grade/evidence/statistic.py",
        "(sd * math.sqrt(1.0 + 1.0 / n))", "sd",
        ("tests/grade/test_statistic.py",)),
    Bug("diagnosis: 'fits no model' branch removed", "src/dicejack/grade/scoring/diagnosis.py",
        'if best != "handout" and z <= Z_FIT and clear:', 'if best != "handout" and clear:',
        ("tests/grade/test_diagnosis.py",)),
    Bug("--keep latest by download order", "src/dicejack/grade/scoring/students.py",
        "return max(graded, key=lambda ig: (ig[1].order, ig[0]))[0]",
        "return max(graded, key=lambda ig: ig[0])[0]",
        ("tests/grade/test_students.py",)),
    Bug("sandbox waits without a timeout", "src/dicejack/runtime/jail_process.py",
        "status, usage = wait_for(proc, deadline, cancel)", "status, usage = wait_for(proc, None)",
        ("tests/runtime/test_sandbox.py",)),
    Bug("probe at 2,000 games instead of 20,000", "src/dicejack/grade/programs/plan.py",
        'ProbeRegion("large", low=(26, 31), gap=(1, 8), m=(300, 1000), games=(10_000, 20_000))',
        'ProbeRegion("large", low=(26, 31), gap=(1, 8), m=(300, 1000), games=(2_000, 20_000))',
        ("tests/grade/programs/test_plan.py",)),
    Bug("blackjack study without the optimal-path filter",
        "src/dicejack/report/studies_blackjack.py",
        '"differ_onpath": int(np.sum(~sol.optimal[learned][onpath])),',
        '"differ_onpath": int(np.sum(~sol.optimal[learned])),',
        ("tests/report/test_studies_blackjack.py", "tests/report/test_studies.py")),
    Bug("seat pair's seats swapped", "src/dicejack/solver/best_response.py",
        "return SeatValues(against_second.first, against_first.second)",
        "return SeatValues(against_first.first, against_second.second)",
        ("tests/solver/test_best_response.py",)),
    Bug("the last seed's tables drawn as the first's", "src/dicejack/report/drawing.py",
        "tables=study.last_tables(first),", "tables=study.last_tables(study.runs_for(s)[-1]),",
        ("tests/report/test_folder.py",)),
    # found since: rules like those above that no test held
    Bug("every curve drawn from the first series", "src/dicejack/report/drawing.py",
        "{name: study.metric(s, name) for name in study.metric_names}",
        "{name: study.metric(cfg.series[0], name) for name in study.metric_names}",
        ("tests/report/test_folder.py",)),
    Bug("game report intervals cut at fixed ranges only (values unclipped)",
        "src/dicejack/report/runs.py",
        "low[names.index(name)], high[names.index(name)] = b.low, b.high", "pass",
        ("tests/report/test_game_report.py",)),
    Bug("--game help without peeking-blackjack and yamslam", "src/dicejack/cli/common.py",
        'BUNDLED_GAMES = "handout, pig, piglet, pig-reset, peeking-blackjack, yamslam, kuhn, '
        'deck-duel"',
        'BUNDLED_GAMES = "handout, pig, piglet"', ("tests/cli/test_cli_games.py",)),
    Bug("format points taken silently under a review",
        "src/dicejack/grade/outputs/explanations.py",
        "taken = format_points_taken(g)", 'taken = ""', ("tests/grade/test_student_reports.py",)),
    Bug("class table lists earlier attempts again", "src/dicejack/grade/outputs/site.py",
        "body += _index_table(counted, folder, labels, page_of)",
        "body += _index_table(shown, folder, labels, page_of)", ("tests/grade/test_site.py",)),
    Bug("terminal counts earlier attempts", "src/dicejack/grade/outputs/terminal.py",
        'counted = [g for g in grades if g.status != Status.SKIPPED and g.kept != "no"]',
        "counted = [g for g in grades if g.status != Status.SKIPPED]",
        ("tests/grade/test_site.py", "tests/grade/test_terminal.py")),
    Bug("metrics.csv at full float precision", "src/dicejack/report/contents.py",
        "return repr(stated(v))", "return repr(v)", ("tests/report/test_folder.py",)),
    Bug("report.html alt text with Markdown's backslashes", "src/dicejack/formats/html.py",
        'text = _ESCAPED.sub(r"\\1", alt)', "text = alt", ("tests/formats/test_html.py",)),
)


def _copy(dest: Path) -> None:
    listing = ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"]
    names = subprocess.run(listing, cwd=ROOT, check=True,
                           capture_output=True).stdout.decode().split("\0")
    for name in filter(None, names):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)


def _plant(copy: Path, bug: Bug) -> str:
    """Plant `bug` in `copy`; returns the file's original text (to restore)."""
    path = copy / bug.file
    text = path.read_text(encoding="utf-8")
    count = text.count(bug.old)
    if count != 1:
        raise SystemExit(f"bug {bug.name!r}: the text to replace is found {count} times in "
                         f"{bug.file} (expected once): update benchmarks/bench_mutation.py")
    path.write_text(text.replace(bug.old, bug.new), encoding="utf-8")
    return text


_FAILED = re.compile(r"^(?:FAILED|ERROR) (.+?)(?: - .*)?$", re.M)


def _run(copy: Path, hide: Path | None, tests: tuple[str, ...], timeout: float
         ) -> tuple[bool, str, float]:
    """(killed, by which test, seconds) of the fast lane's `tests` in `copy`."""
    env = dict(os.environ)
    path = [str(copy / "src"), str(copy)]
    if hide is not None:
        path.insert(0, str(hide))
    env["PYTHONPATH"] = os.pathsep.join(path)
    env.pop("PYTEST_ADDOPTS", None)
    cmd = [sys.executable, "-m", "pytest", "-m", "not slow", "-x", "-q", "-p", "no:cacheprovider",
           "-o", "addopts=-rfE", *tests]
    t0 = time.monotonic()
    try:
        done = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return True, f"(a hang: over {timeout:g} s)", time.monotonic() - t0
    seconds = time.monotonic() - t0
    if done.returncode == 0:
        return False, "", seconds
    found = _FAILED.findall(done.stdout)
    if found:
        return True, found[0], seconds
    tail = (done.stdout + done.stderr).strip().splitlines()[-3:]
    return True, f"(exit {done.returncode}: {' | '.join(tail)})", seconds


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bug", action="append", default=[],
                    help="only the bugs whose name contains this text (repeatable)")
    ap.add_argument("--with-openspiel", action="store_true",
                    help="let the tests use OpenSpiel when it is installed")
    ap.add_argument("--timeout", type=float, default=600.0,
                    help="seconds a planted copy's tests may take (a hang counts as killed)")
    ap.add_argument("--list", action="store_true", help="list the bugs and stop")
    args = ap.parse_args(argv)
    bugs = [b for b in BUGS if not args.bug or any(w in b.name for w in args.bug)]
    if args.list:
        for b in bugs:
            print(f"{b.name}  [{b.file}]  tests: {' '.join(b.tests)}")
        return 0
    with tempfile.TemporaryDirectory(prefix="dicejack-mutation-") as tmp:
        copy = Path(tmp) / "repo"
        copy.mkdir()
        _copy(copy)
        hide = None
        if not args.with_openspiel:
            hide = Path(tmp) / "hide"
            hide.mkdir()
            (hide / "pyspiel.py").write_text(  # as if not installed (pytest.importorskip)
                'raise ModuleNotFoundError("No module named \'pyspiel\' (hidden by '
                'benchmarks/bench_mutation.py)", name="pyspiel")\n')
        for b in bugs:  # every substitution applies before any test runs
            (copy / b.file).write_text(_plant(copy, b), encoding="utf-8")
        files = tuple(dict.fromkeys(t for b in bugs for t in b.tests))
        killed, by, seconds = _run(copy, hide, files, args.timeout)
        print(f"unplanted: {len(files)} test files {'FAIL ' + by if killed else 'pass'} "
              f"({seconds:.0f} s)", flush=True)
        if killed:
            return 2
        rows = []
        for b in bugs:
            original = _plant(copy, b)
            try:
                killed, by, seconds = _run(copy, hide, b.tests, args.timeout)
            finally:
                (copy / b.file).write_text(original, encoding="utf-8")
            rows.append((b.name, b.file.removeprefix("src/dicejack/"),
                         "yes" if killed else "no", by, f"{seconds:.1f}"))
            print(f"  {b.name}: {'killed' if killed else 'SURVIVED'} {by}", file=sys.stderr,
                  flush=True)
    head = ("bug", "file", "killed", "by", "seconds")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(r) + " |")
    survived = sum(r[2] == "no" for r in rows)
    print(f"\n{len(rows) - survived} of {len(rows)} killed in the fast lane"
          f"{'' if args.with_openspiel else ' (OpenSpiel hidden)'}")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
