"""Diagnosis calibrated on the independent student corpus: how often the likely cause named for
a caught bug output is the right bug, and how often a faithful output is blamed on a bug.

Usage: python benchmarks/bench_diagnosis.py [--games handout,caveat-a,...] [--runs 10]
                                            [--sets 1] [--workers 2]

For every game, `--sets` reference sets (R = 30, C = 60; the bug models' runs with them) grade
`--runs` fresh runs of every bug program (tests/students BUGS, run by Hank), of every print-only
slip (SLIPS, run by Ivy), of two printing slips made from a faithful output (its tables
transposed; its J printed 0-based) and of every faithful convention (FAITHFUL). Printed per game:
- per bug: caught (not pass), and among the caught the share whose likely cause is that very bug
  (right), a bug of the same family (an M of the grid next to it), "unusual", another bug;
- faithful: the share of all faithful outputs for which a bug is named (target <= 3%), and of
  those not passing;
- pooled: right cause among all caught bug outputs (target >= 80%).
The baseline of every figure is the same run's grading: the share caught is what diagnosis can
at most explain.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests import students  # noqa: E402  (the independent corpus)

from dicejack import grade  # noqa: E402
from dicejack.game import Game  # noqa: E402
from dicejack.grade.scoring import diagnosis  # noqa: E402
from dicejack.grade.settings import REFERENCE_SEED

GAMES: dict[str, tuple[Game, float, int]] = {
    "handout": (Game(6, 15, 17, 2), 100.0, 100_000),
    "caveat-a": (Game(3, 10, 20, 2), 10.0, 50_000),
    "two-sided": (Game(2, 10, 12, 3), 100.0, 50_000),
    "three-dice": (Game(6, 20, 24, 3), 100.0, 100_000),
    "few-games": (Game(6, 15, 17, 2), 100.0, 2_000),
    "small": (Game(4, 8, 9, 2), 100.0, 20_000),
    # corners of the calibration grid (benchmarks/bench_calibration_grid.py: 6 sides, UTarget =
    # LTarget + 2): NDice x LTarget x M x NGAMES
    "g2-10-m0.5-2k": (Game(6, 10, 12, 2), 0.5, 2_000),
    "g3-20-m10-20k": (Game(6, 20, 22, 3), 10.0, 20_000),
    "g4-40-m1000-20k": (Game(6, 40, 42, 4), 1000.0, 20_000),
    "g2-40-m1-20k": (Game(6, 40, 42, 2), 1.0, 20_000),
    "g4-10-m100-2k": (Game(6, 10, 12, 4), 100.0, 2_000),
}
GRID_GAMES = ("g2-10-m0.5-2k", "g3-20-m10-20k", "g4-40-m1000-20k", "g2-40-m1-20k",
              "g4-10-m100-2k")
DEFAULT_GAMES = ("handout", "caveat-a", "two-sided", "three-dice", "few-games")
SEED = 8_000_000
PLAIN_PYTHON_GAMES = 20_000
#: printing slips made from a faithful output (the grader corrects them; diagnosis names them)
MADE = ("transposed", "zero-based-j")


def _transposed(text: str) -> str:
    """A labelled output's two grids printed transposed (rows Y, columns X)."""
    out, grid = [], []
    for line in [*text.splitlines(), ""]:
        if re.fullmatch(r"\s*-?[\d.]+(\s+-?[\d.]+)+\s*", line):
            grid.append(line.split())
            continue
        if grid:
            out += [" ".join(row) for row in zip(*grid, strict=True)]
            grid = []
        out.append(line)
    return "\n".join(out)


def _zero_based(text: str) -> str:
    """A labelled output's best-J grid printed 0-based (J - 1 where J >= 1)."""
    head, _, tail = text.partition("Probability of winning:")
    lines = [" ".join(str(int(v) - 1) if v.isdigit() and int(v) >= 1 else v
                      for v in line.split()) if re.fullmatch(r"[\s\d-]+", line) else line
             for line in head.splitlines()]
    return "\n".join(lines) + "\nProbability of winning:" + tail


def _family(name: str) -> str:
    model = next((m for m in diagnosis.MODELS if m.name == name), None)
    return model.family if model is not None else name


def grade_game(name: str, set_index: int, runs: int) -> list[tuple[str, str, str, str, str]]:
    """Rows (game, kind, program, verdict, cause) for one reference set of one game."""
    game, m, n_games = GAMES[name]
    config = grade.GradeConfig(game, m, n_games, seed=REFERENCE_SEED + 10_000 * set_index)
    refs = grade.reference_runs(config, cache_dir=False)
    params = (game.n_sides, game.low, game.high, game.n_dice)
    rows = []
    groups = [("bug", students.BUGS), ("slip", students.SLIPS), ("faithful", students.FAITHFUL)]
    for kind, group in groups:
        for s_index, (label, student) in enumerate(group.items()):
            if not student.compiled and n_games > PLAIN_PYTHON_GAMES:
                continue
            for r in range(runs):
                seed = SEED + 1_000_000 * set_index + 10_000 * s_index + 100 * len(kind) + r
                text = students.run_student(student, *params, m, n_games, seed)
                g = grade.grade_text(refs, text, name=label)
                d = diagnosis.diagnose(refs, g)
                rows.append((name, kind, label, g.verdict, d.cause))
    base = students.FAITHFUL["hank-labelled"]
    for made in MADE:
        for r in range(runs):
            seed = SEED + 1_000_000 * set_index + 900_000 + r
            text = students.run_student(base, *params, m, n_games, seed)
            text = _transposed(text) if made == "transposed" else _zero_based(text)
            g = grade.grade_text(refs, text, name=made)
            d = diagnosis.diagnose(refs, g)
            rows.append((name, "slip", made, g.verdict, d.cause))
    return rows


def _pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:.0f}%" if b else "-"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", default=",".join(DEFAULT_GAMES),
                        help="comma list of GAMES, or 'grid' for the grid corners")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--sets", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    names = list(GRID_GAMES) if args.games == "grid" else args.games.split(",")
    t0 = time.perf_counter()
    jobs = [(n, s) for n in names for s in range(args.sets)]
    rows: list[tuple[str, str, str, str, str]] = []
    if args.workers > 1:
        with cf.ProcessPoolExecutor(args.workers) as pool:
            for part in pool.map(grade_game, *zip(*jobs, strict=True),
                                 [args.runs] * len(jobs)):
                rows += part
    else:
        for n, s in jobs:
            rows += grade_game(n, s, args.runs)
    print(f"# diagnosis on the student corpus: {args.runs} runs per program and set, "
          f"{args.sets} set(s) per game ({time.perf_counter() - t0:.0f} s)\n")
    print("**Bug outputs**: caught (not pass) / among the caught: right cause / same family / "
          "unusual / another bug\n")
    print("| bug | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    bugs = [*students.BUGS, *students.SLIPS, *MADE]
    pooled = defaultdict(int)
    for bug in bugs:
        cells = []
        for n in names:
            mine = [r for r in rows if r[0] == n and r[2] == bug]
            caught = [r for r in mine if r[3] != "pass"]
            right = sum(r[4] == bug for r in caught)
            fam = sum(r[4] != bug and _family(r[4]) == _family(bug) for r in caught)
            unusual = sum(r[4] == diagnosis.UNUSUAL for r in caught)
            other = len(caught) - right - fam - unusual
            pooled["caught"] += len(caught)
            pooled["right"] += right
            pooled["family"] += fam
            pooled[f"caught-{n}"] += len(caught)
            pooled[f"right-{n}"] += right
            cells.append(f"{_pct(len(caught), len(mine))} / {_pct(right, len(caught))} / "
                         f"{_pct(fam, len(caught))} / {_pct(unusual, len(caught))} / "
                         f"{_pct(other, len(caught))}" if mine else "-")
        print(f"| {bug} | " + " | ".join(cells) + " |")
    print("| all caught | " + " | ".join(
        f"right {_pct(pooled[f'right-{n}'], pooled[f'caught-{n}'])} of "
        f"{pooled[f'caught-{n}']}" for n in names) + " |")
    print("\n**Faithful outputs**: a bug named / of all outputs; (not passing)\n")
    print("| game | named | of all | not passing |")
    print("|---|---:|---:|---:|")
    total_named = total = 0
    for n in names:
        mine = [r for r in rows if r[0] == n and r[1] == "faithful"]
        named = [r for r in mine if r[4] not in ("", diagnosis.UNUSUAL)]
        total_named += len(named)
        total += len(mine)
        print(f"| {n} | {len(named)} | {_pct(len(named), len(mine))} of {len(mine)} | "
              f"{sum(r[3] != 'pass' for r in mine)} |")
    print(f"\nPooled: right cause for {pooled['right']} of {pooled['caught']} caught bug outputs "
          f"({_pct(pooled['right'], pooled['caught'])}; same family {pooled['family']}); a bug "
          f"named for {total_named} of {total} faithful outputs ({_pct(total_named, total)}).")


if __name__ == "__main__":
    main()
