"""Grading speed: 100 submissions of the handout's game at NGAMES = 100,000, reference runs
included, beside the naive baseline that recomputes the reference runs for every submission.

Usage: python benchmarks/bench_grade.py [--submissions 100] [--games 100000] [--reports]
                                       [--repeat 1]

The submissions are dicejack's own learner at seeds 1..N, printed in five layouts in turn (not
timed). Timed, in this process (grade.grade_files, gradebook written):
- cold: empty cache folder: 30 reference runs + leave-one-out null + grading every file;
- warm (disk): the reference runs read back from the cache file (memory cache cleared);
- warm (memory): the same process grading again;
- naive baseline: one submission graded with the reference runs computed from scratch, times N.
Then `dicejack grade` end to end in a fresh process (imports, numba cache load), cold and warm.
CPU seconds are time.process_time (other jobs on the machine do not count); wall is elapsed.
numba start-up is excluded from the in-process numbers (kernels warmed first).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from dicejack import grade
from dicejack.formats.tables import format_table
from dicejack.games.handout_rules import Game
from dicejack.grade.evidence.references import forget_references, reference_run
from dicejack.learners import handout

GAME = Game(6, 15, 17, 2)
M = 100.0


def _layouts(best: np.ndarray, prob: np.ndarray) -> list[str]:
    p4 = np.where(prob >= 0, np.round(prob, 4), -1.0)

    def rows(a: np.ndarray, fmt: Callable[[float], str], sep: str) -> str:
        return "\n".join(sep.join(fmt(v) for v in row) for row in a)

    f = lambda v: "-1" if v == -1 else f"{v:.4f}"  # noqa: E731
    return [
        format_table(best, "Best number of dice:", kind="int") + "\n"
        + format_table(p4, "Win probability:"),
        f"Policy\n{rows(best, str, ' ')}\n\nProbability\n{rows(p4, f, ' ')}\n",
        f"best dice\n{rows(best, str, ',')}\nwin probability\n{rows(p4, f, ',')}\n",
        f"{best.tolist()!r}\n{p4.tolist()!r}\n",
        f"{best!r}\n\n{p4!r}\n",
    ]


def make_submissions(folder: Path, n: int, games: int) -> list[Path]:
    paths = []
    for seed in range(1, n + 1):
        run = handout.learn(GAME, M, games, seed)
        text = _layouts(*run.tables)[seed % 5]
        path = folder / f"student{seed:03d}.txt"
        path.write_text(text)
        paths.append(path)
    return paths


def timed(fn: Callable[[], object]) -> tuple[float, float, object]:
    w0, c0 = time.perf_counter(), time.process_time()
    result = fn()
    return time.perf_counter() - w0, time.process_time() - c0, result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--submissions", type=int, default=100)
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--references", type=int, default=30)
    ap.add_argument("--reports", action="store_true", help="also write the Markdown reports")
    ap.add_argument("--repeat", type=int, default=1,
                    help="warm (memory) batch: best of N (this machine's timings vary)")
    args = ap.parse_args()
    config = grade.GradeConfig(GAME, M, args.games, references=args.references)
    handout.learn(GAME, M, 10, 0)  # numba kernels compiled / loaded before any timing
    reference_run((6, 15, 17, 2), M, 10, 0)

    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        subs = tmp_path / "subs"
        subs.mkdir()
        paths = make_submissions(subs, args.submissions, args.games)
        cache = tmp_path / "cache"
        reports = tmp_path / "reports" if args.reports else None

        def batch() -> tuple[grade.References, list[grade.Grade]]:
            return grade.grade_files(config, paths, out=tmp_path / "gradebook.csv",
                                     reports=reports, cache_dir=cache)

        forget_references()
        cold_w, cold_c, (refs, grades) = timed(batch)
        assert refs.source == "computed"
        ref_cpu = refs.cpu_seconds
        forget_references()
        disk_w, disk_c, (refs2, _) = timed(batch)
        assert refs2.source == "disk cache"
        mem_w, mem_c, (refs3, _) = min((timed(batch) for _ in range(max(1, args.repeat))),
                                       key=lambda t: t[1])
        assert refs3.source == "memory"

        def naive_one() -> object:
            forget_references()
            naive_reports = tmp_path / "naive-reports" if reports is not None else None
            return grade.grade_files(config, paths[:1], reports=naive_reports, cache_dir=False)

        one_w, one_c, _ = timed(naive_one)
        naive_w, naive_c = one_w * len(paths), one_c * len(paths)

        cli = [sys.executable, "-m", "dicejack.cli", "grade", *map(str, paths), "-m", str(M),
               "--games", str(args.games), "--references", str(args.references),
               "--out", str(tmp_path / "cli.csv"), "--cache", str(tmp_path / "cli-cache")]
        if reports is not None:
            cli += ["--reports", str(tmp_path / "cli-reports")]
        cli_times = []
        for _ in range(2):  # cold cache, then warm
            w0 = time.perf_counter()
            subprocess.run(cli, check=True, capture_output=True)
            cli_times.append(time.perf_counter() - w0)

    verdicts = {v: sum(g.verdict == v for g in grades) for v in ("pass", "review", "fail")}
    n = len(paths)
    print(f"grading {n} submissions: {GAME}, M={M:g}, NGAMES={args.games:,}, "
          f"{args.references} reference runs{', with reports' if reports else ''}")
    print(f"  verdicts: {verdicts}")
    print(f"  reference runs alone: {ref_cpu:.2f} s CPU")
    print(f"  {'':44s} {'wall s':>8} {'CPU s':>8} {'vs naive (CPU)':>15}")
    rows = [
        ("cold cache (references computed)", cold_w, cold_c),
        ("warm cache (disk)", disk_w, disk_c),
        ("warm cache (memory)", mem_w, mem_c),
        (f"naive: references per submission (1 x {n})", naive_w, naive_c),
    ]
    for label, w, c in rows:
        print(f"  {label:44s} {w:8.2f} {c:8.2f} {naive_c / c:14.1f}x")
    print(f"  per submission, warm: {1e3 * mem_c / n:.1f} ms CPU")
    print(f"  `dicejack grade` in a fresh process (wall): cold cache {cli_times[0]:.2f} s, "
          f"warm cache {cli_times[1]:.2f} s")


if __name__ == "__main__":
    main()
