"""The drawn probe settings (grade.programs.plan.PROBE_REGIONS) between the calibration grid's
points: are the print-only slips caught there, and how near must a printout made beforehand be
to a probe's settings to pass it?

Usage: python benchmarks/bench_probe_regions.py [--secrets 20] [--slip-runs 4] [--faithful 6]
                                                [--near 4] [--near-runs 6] [--workers 2]

- power: the probes drawn with the secrets "bench-0", "bench-1", ... (one per region each, as
  the default plan draws them); at each, `--slip-runs` outputs of every print-only slip and
  `--faithful` faithful outputs of the student corpus (tests/students), graded against the
  probe's own reference set (R 30) as `dicejack grade` grades a file; the share caught (not
  pass) per region, per UTarget - LTarget and per LTarget band;
- near: at the first `--near` of those probes, faithful printouts made at other settings (M x 0.5
  and x 2, NGAMES x 0.5 and x 2, UTarget +- 1) graded against the probe's references: the share
  passing is how well a program of printouts made beforehand could do with a near one.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import sys
import time
from pathlib import Path

# tests.students, as pytest names it: numba's cache of the student programs then serves both
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests import students  # noqa: E402  (the independent corpus)

from dicejack import grade  # noqa: E402
from dicejack.games.handout_rules import Game  # noqa: E402
from dicejack.grade.programs import plan as pl  # noqa: E402
from dicejack.grade.settings import REFERENCE_SEED  # noqa: E402

SEED = 41_000_000
#: How a printout made beforehand may differ from the probe's settings: (name, (dM, dGames,
#: dUTarget)) as factors of M and NGAMES and a step of UTarget.
NEAR = (("exact", (1.0, 1.0, 0)), ("M x 0.5", (0.5, 1.0, 0)), ("M x 2", (2.0, 1.0, 0)),
        ("NGAMES x 0.5", (1.0, 0.5, 0)), ("NGAMES x 2", (1.0, 2.0, 0)),
        ("UTarget - 1", (1.0, 1.0, -1)), ("UTarget + 1", (1.0, 1.0, 1)))


def _refs(index: int, s: pl.Settings) -> grade.References:
    return grade.reference_runs(grade.GradeConfig(Game(s.sides, s.low, s.high, s.dice), s.m,
                                                  s.games, seed=REFERENCE_SEED + 7_919 * index),
                                cache_dir=False)


def _faithful() -> list:
    return [s for s in students.FAITHFUL.values() if s.compiled]


def power(index: int, s: pl.Settings, slip_runs: int, faithful: int) -> dict:
    """Every slip's and the faithful outputs' (caught or not) at one probe."""
    refs = _refs(index, s)
    rows: list[tuple[str, bool]] = []
    runs = [(slip, r) for slip in students.SLIPS.values() for r in range(slip_runs)]
    runs += [(_faithful()[(index + i) % len(_faithful())], i) for i in range(faithful)]
    for k, (student, _) in enumerate(runs):
        text = students.run_student(student, s.sides, s.low, s.high, s.dice, s.m, s.games,
                                    SEED + 1_000 * index + k)
        g = grade.grade_text(refs, text, name=student.name)
        kind = "faithful" if student.name in students.FAITHFUL else student.name
        rows.append((kind, g.verdict != "pass"))
    return {"index": index, "settings": s, "rows": rows}


def near(index: int, s: pl.Settings, runs: int) -> dict:
    """How many of `runs` faithful printouts made at each NEAR setting pass at the probe."""
    refs = _refs(index, s)
    passed = {}
    for n, (name, (dm, dg, du)) in enumerate(NEAR):
        ok = 0
        for k in range(runs):
            student = _faithful()[k % len(_faithful())]
            text = students.run_student(student, s.sides, s.low, s.high + du, s.dice, s.m * dm,
                                        max(1, round(s.games * dg)),
                                        SEED + 500_000 + 10_000 * index + 100 * n + k)
            ok += grade.grade_text(refs, text, name=student.name).verdict == "pass"
        passed[name] = ok
    return {"index": index, "settings": s, "passed": passed}


def _share(flags: list[bool]) -> str:
    return f"{sum(flags)}/{len(flags)} ({100 * sum(flags) / len(flags):.0f}%)" if flags else "-"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--secrets", type=int, default=20, help="secrets drawn (two probes each)")
    ap.add_argument("--slip-runs", type=int, default=4, help="outputs per slip per probe")
    ap.add_argument("--faithful", type=int, default=6, help="faithful outputs per probe")
    ap.add_argument("--near", type=int, default=4, help="probes the near printouts are tried at")
    ap.add_argument("--near-runs", type=int, default=6, help="printouts per near setting")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    probes = [p for i in range(args.secrets) for p in pl.draw_probes(f"bench-{i}")]
    region = {p: next(r.name for r in pl.PROBE_REGIONS if p in r) for p in probes}
    t0 = time.perf_counter()
    with cf.ProcessPoolExecutor(args.workers) as ex:
        futures = [ex.submit(power, i, p, args.slip_runs, args.faithful)
                   for i, p in enumerate(probes)]
        futures += [ex.submit(near, i, p, args.near_runs)
                    for i, p in enumerate(probes[: args.near])]
        results = [f.result() for f in futures]
    powers = [r for r in results if "rows" in r]
    nears = sorted((r for r in results if "passed" in r), key=lambda r: r["index"])
    kinds = [*students.SLIPS, "faithful"]
    print(f"{len(probes)} probes drawn with the secrets bench-0..bench-{args.secrets - 1}; per "
          f"probe {args.slip_runs} outputs per print-only slip, {args.faithful} faithful; "
          "caught = not pass (faithful: not passing)")
    print()
    print("| group | probes | " + " | ".join(kinds) + " |")
    print("|---|---:|" + "---:|" * len(kinds))

    def line(name: str, group: list[dict]) -> None:
        cells = [_share([c for r in group for k, c in r["rows"] if k == kind]) for kind in kinds]
        print(f"| {name} | {len(group)} | " + " | ".join(cells) + " |")

    for r in pl.PROBE_REGIONS:
        line(f"region {r.name}", [p for p in powers if region[p["settings"]] == r.name])
    gaps = sorted({p["settings"].high - p["settings"].low for p in powers})
    for gap in gaps:
        line(f"UTarget = LTarget + {gap}",
             [p for p in powers if p["settings"].high - p["settings"].low == gap])
    for r in pl.PROBE_REGIONS:  # each region's LTarget range in halves
        lo, hi = r.low
        for a, b in ((lo, (lo + hi) // 2), ((lo + hi) // 2 + 1, hi)):
            line(f"LTarget {a}-{b}", [p for p in powers if a <= p["settings"].low <= b])
    line("all", powers)
    missed = [(p["settings"], [k for k, c in p["rows"] if k != "faithful" and not c])
              for p in sorted(powers, key=lambda p: p["index"])]
    missed = [(st, ks) for st, ks in missed if ks]
    if missed:
        print()
        print("Probes where a slip's output passed:")
        for st, ks in missed:
            print(f"- {st.describe()}: "
                  + ", ".join(f"{k} {ks.count(k)}" for k in dict.fromkeys(ks)))
    if nears:
        print()
        print(f"Faithful printouts made at other settings, graded at the probe's ({args.near_runs}"
              " each): how many pass")
        print()
        print("| probe | " + " | ".join(name for name, _ in NEAR) + " |")
        print("|---|" + "---:|" * len(NEAR))
        for r in nears:
            print(f"| {r['settings'].describe()} | "
                  + " | ".join(str(r["passed"][name]) for name, _ in NEAR) + " |")
    print()
    print(f"Total time {time.perf_counter() - t0:.0f} s with {args.workers} workers.")


if __name__ == "__main__":
    main()
