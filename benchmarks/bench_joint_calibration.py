"""Calibration of `grade --run`'s joint verdicts: how often does a correct student reach review,
against the nominal P_REVIEW (docs/running.md, "Calibration of joint verdicts")?

Usage: python benchmarks/bench_joint_calibration.py [--workers 2] [--students 600] [--batch 25]
                                                   [--plans a,b,...] [--seed 1] [--rows FILE]
                                                   [--cache DIR] [--out FILE]

Reproduce the table of docs/running.md:

    python benchmarks/bench_joint_calibration.py --students 600 --seed 2 --rows calib.jsonl

(about 18 minutes, 16 CPU-minutes, on two busy cores).

Per plan (:data:`PLANS`: an assigned setting and --runs, the default plan's two probes drawn by
draw_probes): `--students` correct students, in batches of `--batch` that share one probe secret
(a batch is one class: a secret per batch, ``calib-<seed>-<plan>-<batch>``). Each student's run
at each planned setting is the output of a correct learner with a seed of its own (far from the
reference runs' seeds): dicejack's compiled handout learner, printed as `dicejack learn` prints
(learn_text); every `--corpus-every`-th student instead is one of the independent compiled
programs of the student corpus (tests/students, written from the handout alone: other
tie-breaks, print layouts and decimals), the same program for all of that student's runs.
Every run is graded by :func:`dicejack.grade.programs.joint.grade_run` against its setting's
reference runs (:func:`dicejack.grade.reference_runs`, cached under `--cache`), and the student
by :func:`~dicejack.grade.programs.joint.joint_grade`, exactly as `grade --run` does (no jail:
each printout is a RunResult that exited 0). A student not passing counts as reaching review.

Printed per plan: students, reviews (review or fail), the rate with its 95% Clopper-Pearson
interval, nominal P_REVIEW, PASS when the interval's lower bound is at most nominal (FAIL: the
rate is above nominal beyond chance), and whether the point estimate is above nominal; then why
(consistency, print-rule count, other) and per learner kind. Below, per role, the share of runs
whose consistency p is below P_INCONSISTENT and whose print-rule check flags (nominal
ALPHA_PRINT), which locate a miscalibration. Rows (one JSON line per student) are appended to
`--rows` per finished batch; a run interrupted resumes from them (same --seed).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import math
import os
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
from scipy import stats

# the corpus imported as pytest imports it: numba's cache of the student programs names them
# tests.students.* (imported as a top-level `students`, the cache it writes breaks the tests)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests import students  # noqa: E402  (tests/students: the independent corpus)

from dicejack import formats, grade  # noqa: E402
from dicejack.formats.tables import learn_text  # noqa: E402
from dicejack.games.handout_rules import Game  # noqa: E402
from dicejack.grade.evidence.references import default_cache_dir  # noqa: E402
from dicejack.grade.programs.conventions import Settings  # noqa: E402
from dicejack.grade.programs.joint import P_REVIEW, grade_run, joint_grade  # noqa: E402
from dicejack.grade.programs.plan import default_plan  # noqa: E402
from dicejack.grade.scoring.rubric import ALPHA_PRINT, P_INCONSISTENT  # noqa: E402
from dicejack.learners import handout  # noqa: E402
from dicejack.runtime.sandbox import RunResult  # noqa: E402

#: The plans measured: name -> (assigned settings (NSides, LTarget, UTarget, NDice, M, NGAMES),
#: runs per setting). The handout's game at the handout's scale with --runs 1, 2 (the default)
#: and 3; at 20,000 games (the issue's observation); a small fast game (LTarget 10, M 1, 2,000
#: games); a large one (LTarget 40, M 10, 20,000 games); three dice (LTarget 25, M 100).
PLANS: dict[str, tuple[tuple[int, int, int, int, float, int], int]] = {
    "handout-r1": ((6, 15, 17, 2, 100.0, 100_000), 1),
    "handout-r2": ((6, 15, 17, 2, 100.0, 100_000), 2),
    "handout-r3": ((6, 15, 17, 2, 100.0, 100_000), 3),
    "n20k-r2": ((6, 15, 17, 2, 100.0, 20_000), 2),
    "small-r2": ((6, 10, 12, 2, 1.0, 2_000), 2),
    "large-r2": ((6, 40, 42, 2, 10.0, 20_000), 2),
    "dice3-r2": ((6, 25, 27, 3, 100.0, 20_000), 2),
}
#: Seeds of the students' runs start here: far from the reference runs' (REFERENCE_SEED =
#: 1,000,000 and the next few thousand).
SEED_BASE = 7_000_000_000
#: The independent compiled programs of the corpus (erin is plain Python: too slow).
CORPUS = [s for s in students.FAITHFUL.values() if s.compiled]


def _settings(t: tuple) -> Settings:
    sides, low, high, dice, m, games = t
    return Settings(sides, low, high, dice, float(m), games)


def _refs(s: Settings, cache: str):
    cfg = grade.GradeConfig(Game(s.sides, s.low, s.high, s.dice), s.m, s.games)
    return grade.reference_runs(cfg, cache_dir=cache, workers=1)


def _printout(kind: str, s: Settings, seed: int) -> str:
    if kind == "dicejack":
        run = handout.learn(Game(s.sides, s.low, s.high, s.dice), s.m, s.games, seed)
        return learn_text(run)
    student = students.FAITHFUL[kind]
    return students.run_student(student, s.sides, s.low, s.high, s.dice, s.m, s.games, seed)


def grade_batch(seed: int, plan_name: str, batch: int, first: int, count: int,
                corpus_every: int, cache: str) -> list[dict]:
    """Grade `count` students (numbered from `first`) of one plan sharing one probe secret."""
    assigned, runs = PLANS[plan_name]
    plan = default_plan(_settings(assigned), runs, secret=f"calib-{seed}-{plan_name}-{batch}")
    refs = {ps.label: _refs(ps.settings, cache) for ps in plan.settings}
    plan_index = list(PLANS).index(plan_name)
    rows = []
    for n in range(first, first + count):
        kind = ("dicejack" if corpus_every <= 0 or n % corpus_every != corpus_every - 1
                else CORPUS[(n // corpus_every) % len(CORPUS)].name)
        program_runs = []
        for si, ps in enumerate(plan.settings):
            for i in range(ps.runs):
                run_seed = SEED_BASE + 10**8 * seed + 10**6 * plan_index + 100 * n + 10 * si + i
                text = _printout(kind, ps.settings, run_seed)
                result = RunResult(0, text.encode(), b"", 0.0, 0.0)
                program_runs.append(grade_run(refs[ps.label], ps, i, run_seed, "bench", result,
                                              f"student-{n}"))
        g, joint = joint_grade(f"student-{n}", program_runs, "argv")
        rejected = joint.rejected
        why = ("consistency" if any(lab.startswith("consistency") for lab in rejected) else
               "print-rule" if rejected else "fixed-output" if "fixed-output" in g.flags else
               "other" if g.verdict != "pass" else "")
        rows.append({
            "seed": seed, "plan": plan_name, "batch": batch, "student": n, "kind": kind,
            "secret": plan.secret, "verdict": str(g.verdict), "why": why,
            "flags": list(g.flags), "joint_p": joint.p_value,
            "runs": [{"role": r.setting.role, "setting": r.setting.settings.describe(),
                      "p": r.grade.consistency_p if r.grade else math.nan,
                      "print_p": (r.grade.print_check.p_value if r.grade and r.grade.print_check
                                  else math.nan),
                      "flag": (r.grade.print_check.flag if r.grade and r.grade.print_check
                               else ""),
                      "verdict": str(r.grade.verdict) if r.grade else "fail",
                      "score": r.grade.score if r.grade else 0.0,
                      "run_flags": list(r.grade.flags) if r.grade else []}
                     for r in program_runs],
        })
    return rows


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    a = (1 - level) / 2
    lo = 0.0 if k == 0 else float(stats.beta.ppf(a, k, n - k + 1))
    hi = 1.0 if k == n else float(stats.beta.ppf(1 - a, k + 1, n - k))
    return lo, hi


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def table(rows: list[dict], plans: list[str]) -> str:
    """The Markdown tables of the module docstring."""
    out = ["| plan | assigned (NSides, LTarget, UTarget, NDice, M, NGAMES) | runs per setting | "
           "students | reviews | rate | 95% interval | nominal | interval <= nominal | "
           "point above nominal | why: consistency / print-rule / other |",
           "|---|---|---:|---:|---:|---:|---|---:|---|---|---|"]
    for name in plans:
        sel = [r for r in rows if r["plan"] == name]
        if not sel:
            continue
        n = len(sel)
        k = sum(r["verdict"] != "pass" for r in sel)
        lo, hi = clopper_pearson(k, n)
        why = Counter(r["why"] for r in sel)
        a, runs = PLANS[name]
        out.append(f"| {name} | {', '.join(f'{v:g}' for v in a)} | {runs} | {n} | {k} | "
                   f"{_pct(k / n)} | {_pct(lo)}-{_pct(hi)} | {_pct(P_REVIEW)} | "
                   f"{'PASS' if lo <= P_REVIEW else 'FAIL'} | "
                   f"{'yes' if k / n > P_REVIEW else 'no'} | {why['consistency']} / "
                   f"{why['print-rule']} / {why['other'] + why['fixed-output']} |")
    out += ["", "Per learner (all plans): | learner | students | reviews | rate |",
            "|---|---:|---:|---:|"]
    by_kind: dict[str, list[dict]] = {}
    for r in rows:
        by_kind.setdefault("dicejack" if r["kind"] == "dicejack" else "corpus", []).append(r)
    for kind, sel in sorted(by_kind.items()):
        k = sum(r["verdict"] != "pass" for r in sel)
        out.append(f"| {kind} | {len(sel)} | {k} | {_pct(k / len(sel))} |")
    out += ["", f"Per run, by plan and role: share with consistency p < P_INCONSISTENT "
            f"({P_INCONSISTENT:.4f}) and share flagged by the print-rule check (nominal "
            f"{ALPHA_PRINT:.4f}):", "",
            "| plan | role | runs | p < P_INCONSISTENT | print flag | KS p (uniform p) |",
            "|---|---|---:|---:|---:|---:|"]
    for name in plans:
        for role in ("assigned", "probe"):
            runs = [x for r in rows if r["plan"] == name for x in r["runs"] if x["role"] == role]
            ps = np.array([x["p"] for x in runs], dtype=float)
            ps = ps[np.isfinite(ps)]
            if not ps.size:
                continue
            flagged = sum(bool(x["flag"]) for x in runs)
            ks = stats.kstest(ps, "uniform").pvalue
            out.append(f"| {name} | {role} | {len(runs)} | {_pct(np.mean(ps < P_INCONSISTENT))} "
                       f"| {_pct(flagged / len(runs))} | {ks:.2g} |")
    return "\n".join(out) + "\n"


def _warm(cache: str) -> None:
    """Compile the learners before the workers fork."""
    g = Game(6, 8, 10, 2)
    handout.learn(g, 10.0, 10, 1)
    handout.learn(Game(6, 8, 10, 3), 10.0, 10, 1)
    for s in CORPUS:
        students.run_student(s, 6, 8, 10, 2, 10.0, 10, 1)
        students.run_student(s, 6, 8, 10, 3, 10.0, 10, 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--students", type=int, default=600, help="correct students per plan")
    ap.add_argument("--batch", type=int, default=25, help="students sharing one probe secret")
    ap.add_argument("--corpus-every", type=int, default=4,
                    help="every N-th student is an independent corpus program (0: none)")
    ap.add_argument("--plans", default=",".join(PLANS), help="comma-separated names of PLANS")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rows", type=Path, default=Path("joint-calibration.jsonl"),
                    help="JSON lines, appended per batch; read back to resume")
    ap.add_argument("--cache", default=str(default_cache_dir()),
                    help="reference-run cache folder")
    ap.add_argument("--out", type=Path, help="also write the Markdown to this file")
    args = ap.parse_args()
    plans = [p for p in args.plans.split(",") if p]
    unknown = [p for p in plans if p not in PLANS]
    if unknown:
        ap.error(f"unknown plan {unknown[0]!r}; plans: {', '.join(PLANS)}")
    rows: list[dict] = []
    if args.rows.exists():
        with open(args.rows) as f:
            rows = [json.loads(line) for line in f if line.strip()]
        rows = [r for r in rows if r["seed"] == args.seed]
    done = {(r["plan"], r["batch"]) for r in rows}
    batches = [(p, b, b * args.batch, min(args.batch, args.students - b * args.batch))
               for p in plans for b in range(math.ceil(args.students / args.batch))
               if (p, b) not in done]
    t0, c0 = time.perf_counter(), os.times()
    for p in plans:  # the assigned references once, before the workers
        _refs(_settings(PLANS[p][0]), args.cache)
    _warm(args.cache)
    print(f"{len(batches)} batches to grade ({len(done)} done)", file=sys.stderr)
    with cf.ProcessPoolExecutor(args.workers) as ex, open(args.rows, "a") as sink:
        futures = [ex.submit(grade_batch, args.seed, p, b, first, count, args.corpus_every,
                             args.cache) for p, b, first, count in batches]
        for n, fut in enumerate(cf.as_completed(futures), start=1):
            new = fut.result()
            for r in new:
                sink.write(json.dumps(r) + "\n")
            sink.flush()
            rows += new
            bad = sum(r["verdict"] != "pass" for r in new)
            print(f"  {n}/{len(batches)} batches ({new[0]['plan']} {new[0]['batch']}: {bad} of "
                  f"{len(new)} not passing; {time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    c1 = os.times()
    cpu = (c1.user - c0.user) + (c1.system - c0.system) + (c1.children_user - c0.children_user) \
        + (c1.children_system - c0.children_system)
    text = (f"Joint verdicts of correct students, per plan ({args.students} students, batches "
            f"of {args.batch} sharing a probe secret, every {args.corpus_every}-th an "
            f"independent corpus program; seed {args.seed}):\n\n" + table(rows, plans)
            + f"\nThis session: {len(batches)} batches in {time.perf_counter() - t0:.0f} s, "
            f"{cpu:.0f} s CPU, {args.workers} workers.\n")
    print(text)
    if args.out:
        formats.write_atomic(args.out, text)


if __name__ == "__main__":
    main()
