"""Calibration over the settings instructors choose: false alarms and power on a grid of games,
M and NGAMES, graded from the independent student corpus (tests/students).

Usage: python benchmarks/bench_calibration_grid.py [--workers 2] [--faithful 15] [--bug-runs 4]
                                                  [--slip-runs 4] [--layers a,b] [--out FILE]

Two layers (6-sided dice, UTarget = LTarget + 2):
- a: NDice in {2, 3, 4} x LTarget in {10, 20, 40} x M in {0.5, 1, 10, 100, 1000} x NGAMES in
  {2,000, 20,000}: the full factorial, 90 settings;
- b: NGAMES 10^6, one factor at a time from the handout's setting (NDice 2, LTarget 15, M 100):
  NDice 3 and 4, LTarget 10 and 40, M 0.5, 1, 10 and 1000, and the handout's own: 9 settings.

Per setting: one reference set (R = 30, C = 60, its own seed); `--faithful` outputs of the
compiled faithful conventions (one run each, in turn); `--bug-runs` outputs of every bug the
grader must catch and `--slip-runs` of every print-only slip; the setting's own probe power
(setting_power: is it flagged low-power?). Printed: pooled false alarms (overall and per
level of each factor), fails, and per setting the power of every bug, with the settings where a
bug is caught in fewer than half of its runs listed plainly.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import itertools
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
# numba's cache of the student programs, written under pytest, names them tests.students.*
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))

import students  # noqa: E402  (tests/students: the independent corpus)
from dicejack import formats, grade  # noqa: E402
from dicejack.games.handout_rules import Game  # noqa: E402
from dicejack.grade.evidence.power import setting_power
from dicejack.grade.scoring.rubric import P_INCONSISTENT
from dicejack.grade.settings import REFERENCE_SEED

#: The bugs the grader must catch (tests/grade/test_corpus.py REQUIRED).
REQUIRED = ("pb-factor-misplaced", "xy-swapped", "last-sampled", "integer-division", "greedy",
            "m-tenth", "m-tenfold")
SEED = 31_000_000


def settings(layers: str) -> list[tuple[int, int, float, int]]:
    """(NDice, LTarget, M, NGAMES) of the chosen layers."""
    out: list[tuple[int, int, float, int]] = []
    if "a" in layers:
        out += list(itertools.product((2, 3, 4), (10, 20, 40), (0.5, 1.0, 10.0, 100.0, 1000.0),
                                      (2_000, 20_000)))
    if "b" in layers:
        base = (2, 15, 100.0, 1_000_000)
        out += [base, (3, 15, 100.0, 1_000_000), (4, 15, 100.0, 1_000_000),
                (2, 10, 100.0, 1_000_000), (2, 40, 100.0, 1_000_000),
                *((2, 15, m, 1_000_000) for m in (0.5, 1.0, 10.0, 1000.0))]
    return out


def grade_setting(index: int, setting: tuple[int, int, float, int], faithful: int,
                  bug_runs: int, slip_runs: int) -> dict:
    """Grade the corpus at one setting: rows (kind, student, verdict, p, print flag)."""
    dice, low, m, n_games = setting
    game = Game(6, low, low + 2, dice)
    t0 = time.perf_counter()
    refs = grade.reference_runs(grade.GradeConfig(game, m, n_games,
                                                  seed=REFERENCE_SEED + 7_919 * index),
                                cache_dir=False)
    compiled = [s for s in students.FAITHFUL.values() if s.compiled]
    plan = [("faithful", compiled[i % len(compiled)], i) for i in range(faithful)]
    plan += [("bug", students.BUGS[b], r) for b in REQUIRED for r in range(bug_runs)]
    plan += [("slip", s, r) for s in students.SLIPS.values() for r in range(slip_runs)]
    rows = []
    for k, (kind, student, r) in enumerate(plan):
        seed = SEED + 1_000 * index + k
        text = students.run_student(student, 6, low, low + 2, dice, m, n_games, seed)
        g = grade.grade_text(refs, text, name=f"{student.name}-{r}")
        rows.append((kind, student.name, g.verdict, g.consistency_p,
                     g.print_check.flag if g.print_check else "", _why(g)))
    power = setting_power(refs)
    return {"setting": setting, "rows": rows, "low_power": power.low,
            "probes": power.caught, "seconds": time.perf_counter() - t0}


def _why(g: grade.Grade) -> str:
    """Why a grade is not a pass: the consistency test, a print-rule flag, or the rest (a low
    score or another review flag)."""
    if g.verdict == "pass":
        return ""
    if g.consistency_p < P_INCONSISTENT:
        return "consistency"
    if g.print_check is not None and g.print_check.flag:
        return "print-rule"
    return "score or flag"


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--faithful", type=int, default=15, help="faithful outputs per setting")
    ap.add_argument("--bug-runs", type=int, default=4, help="runs per required bug")
    ap.add_argument("--slip-runs", type=int, default=4, help="runs per print-only slip")
    ap.add_argument("--layers", default="a,b", help="a (90 settings), b (10^6 games, 9)")
    ap.add_argument("--limit", type=int, help="only the first N settings (a quick look)")
    ap.add_argument("--out", type=Path, help="also write the Markdown to this file")
    args = ap.parse_args()
    grid = settings(args.layers)[: args.limit]
    t0 = time.perf_counter()
    results = []
    with cf.ProcessPoolExecutor(args.workers) as ex:
        futures = [ex.submit(grade_setting, i, s, args.faithful, args.bug_runs, args.slip_runs)
                   for i, s in enumerate(grid)]
        for n, fut in enumerate(cf.as_completed(futures), start=1):
            results.append(fut.result())
            print(f"  {n}/{len(grid)} settings ({time.perf_counter() - t0:.0f} s)",
                  file=sys.stderr)
    results.sort(key=lambda r: grid.index(r["setting"]))
    out = [f"Calibration grid: {len(grid)} settings; per setting {args.faithful} faithful "
           f"outputs, {args.bug_runs} per required bug, {args.slip_runs} per print-only slip; "
           f"6-sided dice, UTarget = LTarget + 2; one reference set (R 30, C 60) per setting.",
           ""]
    faithful = [(r["setting"], v, p, f) for r in results for k, _, v, p, f, _ in r["rows"]
                if k == "faithful"]
    why = [w for r in results for k, _, _, _, _, w in r["rows"] if k == "faithful" and w]
    total = len(faithful)
    not_pass = sum(v != "pass" for _, v, _, _ in faithful)
    fails = sum(v == "fail" for _, v, _, _ in faithful)
    flagged = sum(bool(f) for _, _, _, f in faithful)
    out += [f"**False alarms, pooled:** {not_pass} of {total} faithful outputs not passing "
            f"({100 * not_pass / total:.1f}%; nominal 5%), {fails} failed, {flagged} flagged by "
            "the print-rule checks. Why not passing: "
            + ", ".join(f"{w} {why.count(w)}" for w in ("consistency", "print-rule",
                                                         "score or flag")) + ".", "",
            "| factor | level | faithful outputs | not passing | failed |",
            "|---|---|---:|---:|---:|"]
    for f_index, factor in enumerate(("NDice", "LTarget", "M", "NGAMES")):
        for level in sorted({s[f_index] for s, *_ in faithful}):
            sel = [v for s, v, _, _ in faithful if s[f_index] == level]
            out.append(f"| {factor} | {level:g} | {len(sel)} | "
                       f"{100 * np.mean([v != 'pass' for v in sel]):.1f}% | "
                       f"{sum(v == 'fail' for v in sel)} |")
    out += ["", "**Power per setting** (share of each bug's outputs caught, review or fail; "
            "slips: caught as any review); `low-power`: the setting's probe runs flag it:", ""]
    bugs = [*REQUIRED, *students.SLIP_NAMES]
    out += ["| NDice | LTarget | M | NGAMES | faithful not passing | " + " | ".join(bugs)
            + " | low-power |", "|" + "---:|" * 5 + "---:|" * len(bugs) + "---|"]
    blind: dict[str, list[str]] = {b: [] for b in bugs}
    for r in results:
        dice, low, m, n_games = r["setting"]
        cells = []
        for b in bugs:
            sel = [v for k, name, v, *_ in r["rows"] if name == b and k in ("bug", "slip")]
            share = float(np.mean([v != "pass" for v in sel])) if sel else float("nan")
            cells.append(_pct(share) if sel else "-")
            if sel and share < 0.5:
                blind[b].append(f"({dice}, {low}, {m:g}, {n_games:,})")
        fa = [v for k, _, v, *_ in r["rows"] if k == "faithful"]
        out.append(f"| {dice} | {low} | {m:g} | {n_games:,} | "
                   f"{sum(v != 'pass' for v in fa)} / {len(fa)} | " + " | ".join(cells)
                   + f" | {', '.join(r['low_power']) or '-'} |")
    out += ["", "**Settings where a bug is caught in fewer than half of its runs** "
            "(NDice, LTarget, M, NGAMES):", ""]
    for b in bugs:
        out.append(f"- {b}: {len(blind[b])} of {len(results)} settings"
                   + (f": {'; '.join(blind[b])}" if blind[b] else ""))
    low_flagged = [r for r in results if r["low_power"]]
    out += ["", f"`low-power` flagged at {len(low_flagged)} of {len(results)} settings.",
            f"Total time {time.perf_counter() - t0:.0f} s with {args.workers} workers."]
    text = "\n".join(out) + "\n"
    print(text)
    if args.out:
        formats.write_atomic(args.out, text)


if __name__ == "__main__":
    main()
