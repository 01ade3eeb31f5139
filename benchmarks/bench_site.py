"""What a class's pages cost: `grade --html` and `grade --reports` against grading the class.

Usage: python benchmarks/bench_site.py [--submissions 500] [--games 100000] [--repeat 3]

The class: what the student-style programs of tests/students (written from the handout, not
from dicejack) print at the handout's game, faithful and buggy ones in turn, seeds 1..N, plus
one unreadable and one skipped file (made once, not timed). Timed, interleaved, median of
--repeat rounds (reference runs in memory, as in any batch after the first):
- grading: grade.grade_files with the gradebook (the baseline);
- site: write_site for the same grades (index.html and one page per submission);
- reports: grade.grade_files with the gradebook and --reports (a Markdown report and a PNG of
  the two state maps per submission), as `dicejack grade --reports DIR` runs it.
Printed: seconds, each one's ratio to grading, ms per page, and the size of index.html (the
limits: the site no slower than grading, grading with reports within 3x grading, the class page
under 2 MB).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.students import BUGS, FAITHFUL, run_student  # noqa: E402

from dicejack import grade  # noqa: E402
from dicejack.games.handout_rules import Game  # noqa: E402
from dicejack.grade.outputs.site import write_site  # noqa: E402

GAME = Game(6, 15, 17, 2)
M = 100.0


def make_class(folder: Path, n: int, games: int) -> list[Path]:
    """N outputs of the student-style programs (compiled ones; faithful and buggy in turn)."""
    students = [s for s in (*FAITHFUL.values(), *BUGS.values()) if s.compiled]
    paths = []
    for i in range(n):
        student = students[i % len(students)]
        text = run_student(student, GAME.n_sides, GAME.low, GAME.high, GAME.n_dice, M, games,
                           i + 1)
        path = folder / f"{student.name}_{1000 + i}_{5000 + i}_output.txt"
        path.write_text(text)
        paths.append(path)
    (folder / "broken_999_4999_output.txt").write_text("I could not get it to run\n")
    (folder / "report.docx").write_bytes(b"PK\x03\x04")
    return paths


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--submissions", type=int, default=500)
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    config = grade.GradeConfig(GAME, M, args.games)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        subs = root / "subs"
        subs.mkdir()
        t0 = time.perf_counter()
        make_class(subs, args.submissions, args.games)
        made = time.perf_counter() - t0
        refs, grades = grade.grade_files(config, [subs], cache_dir=root / "cache")  # warm-up
        timings: dict[str, list[float]] = {"grading": [], "site": [], "reports": []}
        for k in range(args.repeat):
            t0 = time.perf_counter()
            refs, grades = grade.grade_files(config, [subs], out=root / "gradebook.csv",
                                             cache_dir=root / "cache")
            timings["grading"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            index = write_site(refs, grades, root / f"site{k}")
            timings["site"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            grade.grade_files(config, [subs], out=root / "gradebook.csv",
                              reports=root / f"reports{k}", cache_dir=root / "cache")
            timings["reports"].append(time.perf_counter() - t0)
        size = index.stat().st_size
        pages = len(list(index.parent.glob("*.html")))
    grading, site, reports = (statistics.median(timings[k]) for k in ("grading", "site",
                                                                       "reports"))
    verdicts = {v: sum(g.status == "ok" and g.verdict == v for g in grades)
                for v in ("pass", "review", "fail")}
    print(f"class of {len(grades)} files ({args.submissions} student-style outputs made in "
          f"{made:.0f} s): {GAME}, M={M:g}, NGAMES={args.games:,}; verdicts {verdicts}")
    print(f"  median of {args.repeat} interleaved rounds (reference runs in memory):")
    print(f"  {'grading (baseline)':34s} {grading:7.2f} s")
    print(f"  {'site (index + pages)':34s} {site:7.2f} s   {site / grading:5.2f}x grading   "
          f"{1e3 * site / pages:.1f} ms per page, {pages} pages")
    print(f"  {'grading with --reports (md + PNG)':34s} {reports:7.2f} s   "
          f"{reports / grading:5.2f}x grading   "
          f"{1e3 * (reports - grading) / len(grades):.1f} ms more per submission")
    print(f"  index.html: {size / 1e6:.2f} MB for {len(grades)} rows (limit 2 MB)")


if __name__ == "__main__":
    main()
