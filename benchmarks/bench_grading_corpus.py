"""Grading against the independent student corpus: false alarms per printing convention, power
per bug class and per print-only slip, copies caught, on five games of different character.

Usage: python benchmarks/bench_grading_corpus.py [--sets 4] [--runs 25] [--workers 2]
                                                [--games handout,caveat-a,...] [--out FILE]
                                                [--kinds faithful,bug,slip] [--no-copies]
       python benchmarks/bench_grading_corpus.py --games million --kinds faithful,slip \
           --sets 3 --runs 10 --no-copies     # the handout's game at 10^6 games

The corpus (tests/students/) is a set of student-style programs written from the handout alone,
not from dicejack's learner: different samplers, tie-breaking in learning and in printing,
no-data and lost-state conventions, rounding and layouts (FAITHFUL), and the bugs students
really make (BUGS), and a program that learns faithfully but prints by another rule (SLIPS).
Each program prints its tables as text; the text goes through
`grade.grade_text` exactly as a file through `dicejack grade`.

For every game, `--sets` independent reference sets (R = 30 each, distinct seeds) grade
`--runs` fresh runs (new seeds) of every faithful convention and of every bug per set. Printed:
- false alarms: per convention and game, the share that does not pass (review or fail), the
  share with consistency p below the review level (P_INCONSISTENT), the share flagged by
  the print-rule checks, and the number of fails (must be 0);
- power: per bug and game, the share caught (review or fail) and the share failed; per
  print-only slip, the share caught, the share flagged as that slip, and the share failed;
- copies: within one batch of every faithful output of a game (plus copies of 30 of them:
  exact, re-laid-out as a labelled grid, and rounded to 3 decimals as CSV), copies caught and
  independent outputs flagged; and the time to grade a batch of 300 files with warm references.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
# numba's cache of the student programs, written under pytest, names them tests.students.*
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))

import students  # noqa: E402  (tests/students: the independent corpus)
from dicejack import formats, grade  # noqa: E402
from dicejack.formats.submission import read_submission_text
from dicejack.formats.tables import format_table
from dicejack.games.handout_rules import Game  # noqa: E402
from dicejack.grade.evidence.calibration import calibration
from dicejack.grade.evidence.copies import COPY_FACTOR
from dicejack.grade.scoring.copied import mark_copies
from dicejack.grade.scoring.rubric import P_INCONSISTENT
from dicejack.grade.settings import REFERENCE_SEED

#: name -> (game, M, NGAMES): the handout's game, its caveat-A game, a two-sided die, three
#: dice, and few games (few states with much data).
GAMES: dict[str, tuple[Game, float, int]] = {
    "handout": (Game(6, 15, 17, 2), 100.0, 100_000),
    "caveat-a": (Game(3, 10, 20, 2), 10.0, 50_000),
    "two-sided": (Game(2, 10, 12, 3), 100.0, 50_000),
    "three-dice": (Game(6, 20, 24, 3), 100.0, 100_000),
    "few-games": (Game(6, 15, 17, 2), 100.0, 2_000),
    "million": (Game(6, 15, 17, 2), 100.0, 1_000_000),  # not in the default list: slow
}
DEFAULT_GAMES = ("handout", "caveat-a", "two-sided", "three-dice", "few-games")
KINDS = {"faithful": students.FAITHFUL, "bug": students.BUGS, "slip": students.SLIPS}
STUDENT_SEED = 5_000_000
#: Plain-Python students (not compiled) run only up to this many games (they take about 70 us a
#: game); their cells read "-" beyond it.
PLAIN_PYTHON_GAMES = 20_000


def _runs(student: students.Student, n_games: int) -> bool:
    return student.compiled or n_games <= PLAIN_PYTHON_GAMES


def _params(game: Game) -> tuple[int, int, int, int]:
    return (game.n_sides, game.low, game.high, game.n_dice)


def grade_set(name: str, set_index: int, runs: int, kinds: tuple[str, ...] = tuple(KINDS)
              ) -> list[tuple[str, str, str, float, str, str]]:
    """Rows (game, kind, student, p, verdict, print-rule flag) for one reference set of one
    game."""
    game, m, n_games = GAMES[name]
    config = grade.GradeConfig(game, m, n_games, seed=REFERENCE_SEED + 10_000 * set_index)
    refs = grade.reference_runs(config, cache_dir=False)
    rows = []
    for kind in kinds:
        for s_index, (label, student) in enumerate(KINDS[kind].items()):
            if not _runs(student, n_games):
                continue
            for r in range(runs):
                seed = STUDENT_SEED + 1_000_000 * set_index + 10_000 * s_index + r
                text = students.run_student(student, *_params(game), m, n_games, seed)
                g = grade.grade_text(refs, text, name=f"{label}-{seed}")
                rows.append((name, kind, label, g.consistency_p, g.verdict, g.print_check.flag))
    return rows


def copy_study(name: str, per_convention: int) -> dict[str, float]:
    """One batch: faithful outputs of every convention plus exact, re-laid-out and rounded
    copies of 30 of them; how many copies are caught and how many independents flagged."""
    game, m, n_games = GAMES[name]
    refs = grade.reference_runs(grade.GradeConfig(game, m, n_games), cache_dir=False)
    texts: list[tuple[str, str]] = []
    for s_index, (label, student) in enumerate(students.FAITHFUL.items()):
        if not _runs(student, n_games):
            continue
        for r in range(per_convention):
            seed = STUDENT_SEED + 900_000_000 + 10_000 * s_index + r
            texts.append((f"{label}-{r}", students.run_student(student, *_params(game), m,
                                                              n_games, seed)))
    originals = texts[:: max(1, len(texts) // 30)][:30]
    copies: list[tuple[str, str, str]] = []  # (copy name, original name, text)
    for i, (orig, text) in enumerate(originals):
        sub = read_submission_text(text, game.low, game.n_dice)
        prob = np.where(sub.no_data, -1.0, sub.probability)
        kind = ("exact", "relaid", "rounded")[i % 3]
        if kind == "exact":
            new = text
        elif kind == "relaid":
            new = (format_table(sub.policy, "Best number of dice", kind="int")
                   + "\n" + format_table(prob, "Probability of winning", decimals=6))
        else:
            p3 = np.where(prob >= 0, np.round(prob, 3), -1.0)
            new = ("best\n" + "\n".join(",".join(str(v) for v in row) for row in sub.policy)
                   + "\nprob\n" + "\n".join(",".join(f"{v:g}" for v in row) for row in p3)
                   + "\n")
        copies.append((f"copy-{kind}-{i}", orig, new))
    batch = texts + [(c, t) for c, _, t in copies]
    grades = mark_copies(refs, [grade.grade_text(refs, t, name=n) for n, t in batch])
    by_name = {g.submission: g for g in grades}
    caught = sum(orig in by_name[c].similar_to for c, orig, _ in copies)
    copied_originals = {orig for _, orig, _ in copies}
    independent = [g for g in grades[: len(texts)] if g.submission not in copied_originals]
    false_flags = sum(bool(g.similar_to) for g in independent)
    # 300 files graded end to end with warm references (reading, grading, copies, gradebook)
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i in range(300):
            n, t = batch[i % len(batch)]
            path = Path(tmp) / f"s{i:03d}.txt"
            path.write_text(t)
            paths.append(path)
        t0 = time.perf_counter()
        grade.grade_files(refs.config, paths, out=Path(tmp) / "book.csv", cache_dir=False)
        seconds = time.perf_counter() - t0
    return {"copies": len(copies), "caught": caught, "independent": len(independent),
            "false_flags": false_flags,
            "threshold": COPY_FACTOR * calibration(refs).copy_distance,
            "seconds_300": seconds}


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=4, help="reference sets per game")
    ap.add_argument("--runs", type=int, default=25, help="runs per student and reference set")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--games", default=",".join(DEFAULT_GAMES),
                    help="comma list of " + ", ".join(GAMES))
    ap.add_argument("--kinds", default=",".join(KINDS), help="comma list of " + ", ".join(KINDS))
    ap.add_argument("--no-copies", action="store_true", help="skip the copies study")
    ap.add_argument("--out", type=Path, help="also write the Markdown tables to this file")
    args = ap.parse_args()
    names = [n.strip() for n in args.games.split(",") if n.strip()]
    unknown = [n for n in names if n not in GAMES]
    if unknown:
        ap.error(f"unknown game(s): {', '.join(unknown)}")
    kinds = tuple(k.strip() for k in args.kinds.split(",") if k.strip())
    if not kinds or any(k not in KINDS for k in kinds):
        ap.error(f"--kinds: a comma list of {', '.join(KINDS)}")
    t0 = time.perf_counter()
    rows = []
    copy_rows: dict[str, dict[str, float]] = {}
    with cf.ProcessPoolExecutor(args.workers) as ex:
        futures = {ex.submit(grade_set, n, s, args.runs, kinds): (n, s)
                   for n in names for s in range(args.sets)}
        copy_futures = {} if args.no_copies else {ex.submit(copy_study, n, 20): n for n in names}
        for fut in cf.as_completed(futures):
            rows.extend(fut.result())
            print(f"  done {futures[fut]} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
        for fut in cf.as_completed(copy_futures):
            copy_rows[copy_futures[fut]] = fut.result()
    out = [f"Corpus grading: {args.sets} reference sets x {args.runs} runs per student and "
           f"set ({args.sets * args.runs} per cell); games: "
           + "; ".join(f"{n} = {g}, M {m:g}, NGAMES {k:,}" for n, (g, m, k) in GAMES.items()
                       if n in names), ""]

    def table(kind: str, cells) -> None:
        labels = list(KINDS[kind])
        pooled = kind == "faithful"  # an "all games" column and an "all conventions" row
        head = {"faithful": "convention", "bug": "bug", "slip": "print-only slip"}[kind]
        out.append(f"| {head} | " + " | ".join(names) + (" | all games |" if pooled else " |"))
        out.append("|---|" + "---:|" * (len(names) + pooled))
        for label in [*labels, *(["all conventions"] if pooled else [])]:
            line = [label]
            for n in [*names, *(["all"] if pooled else [])]:
                sel = [(p, v, f, s) for g, k, s, p, v, f in rows
                       if (n == "all" or g == n) and k == kind
                       and (label == "all conventions" or s == label)]
                line.append(cells(sel) if sel else "-")
            out.append("| " + " | ".join(line) + " |")
        out.append("")

    level = P_INCONSISTENT
    if "faithful" in kinds:
        out += ["False alarms: share not passing / share with consistency p < "
                f"{P_INCONSISTENT:.4f} / share flagged by the print-rule checks / fails "
                "(nominal 5% not passing):", ""]
        table("faithful", lambda sel: (
            f"{_pct(np.mean([v != 'pass' for _, v, _, _ in sel]))} / "
            f"{_pct(np.mean([p < level for p, _, _, _ in sel if np.isfinite(p)] or [0]))} / "
            f"{_pct(np.mean([bool(f) for _, _, f, _ in sel]))} / "
            f"{sum(v == 'fail' for _, v, _, _ in sel)}"))
    if "bug" in kinds:
        out += ["Power: share caught (review or fail) / share failed:", ""]
        table("bug", lambda sel: (f"{_pct(np.mean([v != 'pass' for _, v, _, _ in sel]))} / "
                                  f"{_pct(np.mean([v == 'fail' for _, v, _, _ in sel]))}"))
    if "slip" in kinds:
        out += ["Print-only slips: share caught (review or fail) / share flagged as that slip / "
                "share failed:", ""]
        table("slip", lambda sel: (
            f"{_pct(np.mean([v != 'pass' for _, v, _, _ in sel]))} / "
            f"{_pct(np.mean([f == s for _, _, f, s in sel]))} / "
            f"{_pct(np.mean([v == 'fail' for _, v, _, _ in sel]))}"))
    if copy_rows:
        out += ["Copies: caught / planted; independent outputs flagged; threshold; 300 files "
                "graded:", "",
                "| game | copies caught | independents flagged | threshold | 300 files |",
                "|---|---:|---:|---:|---:|"]
    for n in names if copy_rows else []:
        c = copy_rows[n]
        out.append(f"| {n} | {c['caught']} / {c['copies']} | {c['false_flags']} / "
                   f"{c['independent']} | {c['threshold']:.4f} | {c['seconds_300']:.1f} s |")
    out.append("")
    out.append(f"Total time {time.perf_counter() - t0:.0f} s with {args.workers} workers.")
    text = "\n".join(out) + "\n"
    print(text)
    if args.out:
        formats.write_atomic(args.out, text)


if __name__ == "__main__":
    main()
