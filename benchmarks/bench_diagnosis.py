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
import json
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(1, str(Path(__file__).resolve().parent))

from tests import students  # noqa: E402  (the independent corpus)

from dicejack import grade  # noqa: E402
from dicejack.games.handout_rules import Game  # noqa: E402
from dicejack.grade.evidence import bug_models  # noqa: E402
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


def _grid_games(layers: str) -> list[str]:
    """The calibration grid's settings (benchmarks/bench_calibration_grid.py), added to GAMES."""
    from bench_calibration_grid import settings

    names = []
    for dice, low, m, n_games in settings(layers):
        name = f"n{dice}-l{low}-m{m:g}-g{n_games // 1000}k"
        GAMES[name] = (Game(6, low, low + 2, dice), m, n_games)
        names.append(name)
    return names


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
    model = bug_models.BY_NAME.get(name)
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


def _counts(rows: list[tuple[str, str, str, str, str]]) -> dict[str, int]:
    """caught, right (exact), family (right or a neighbour of its family), named (not
    unusual) among bug outputs; faithful outputs and those with a bug named."""
    out = defaultdict(int)
    for _game, kind, program, verdict, cause in rows:
        if kind == "faithful":
            out["faithful"] += 1
            out["blamed"] += cause not in ("", diagnosis.UNUSUAL)
        elif verdict != "pass":
            out["caught"] += 1
            out["right"] += cause == program
            out["family"] += _family(cause) == _family(program)
            out["named"] += cause != diagnosis.UNUSUAL
    return out


def _per_setting(rows: list[tuple[str, str, str, str, str]], names: list[str],
                 args: argparse.Namespace) -> None:
    """The grid's table: one row per setting, then per bug pooled over the settings."""
    print(f"# diagnosis over {len(names)} settings: {args.runs} runs per program, "
          f"{args.sets} reference set(s) each\n")
    print("| setting | caught | right | right (family) | named | right when named | "
          "faithful: bug named |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    low_family, low_named, high_blamed = [], [], []
    for n in names:
        c = _counts([r for r in rows if r[0] == n])
        print(f"| {n} | {c['caught']} | {_pct(c['right'], c['caught'])} | "
              f"{_pct(c['family'], c['caught'])} | {c['named']} | "
              f"{_pct(c['family'], c['named'])} | {c['blamed']} of {c['faithful']} |")
        if c["caught"] and c["family"] < 0.8 * c["caught"]:
            low_family.append(n)
        if c["named"] and c["family"] < 0.8 * c["named"]:
            low_named.append(n)
        if c["faithful"] and c["blamed"] > 0.03 * c["faithful"]:
            high_blamed.append(n)
    print("\n| bug | caught | right | right (family) | unusual | another bug |")
    print("|---|---:|---:|---:|---:|---:|")
    for bug in [*students.BUGS, *students.SLIPS, *MADE]:
        mine = [r for r in rows if r[2] == bug and r[1] != "faithful"]
        caught = [r for r in mine if r[3] != "pass"]
        right = sum(r[4] == bug for r in caught)
        fam = sum(_family(r[4]) == _family(bug) for r in caught)
        unusual = sum(r[4] == diagnosis.UNUSUAL for r in caught)
        print(f"| {bug} | {_pct(len(caught), len(mine))} of {len(mine)} | "
              f"{_pct(right, len(caught))} | {_pct(fam, len(caught))} | "
              f"{_pct(unusual, len(caught))} | {_pct(len(caught) - fam - unusual, len(caught))} |")
    c = _counts(rows)
    print(f"\nPooled: caught {c['caught']}; right cause {c['right']} "
          f"({_pct(c['right'], c['caught'])}), right family {c['family']} "
          f"({_pct(c['family'], c['caught'])}); named {c['named']}, right when named "
          f"{_pct(c['family'], c['named'])}; faithful outputs with a bug named: {c['blamed']} of "
          f"{c['faithful']} ({_pct(c['blamed'], c['faithful'])}).")
    print(f"Settings below 80% right (family) among the caught: {len(low_family)} of "
          f"{len(names)} ({', '.join(low_family) or 'none'}).")
    print(f"Settings below 80% right among the named: {len(low_named)} of {len(names)} "
          f"({', '.join(low_named) or 'none'}).")
    print(f"Settings with a bug named for more than 3% of faithful outputs: {len(high_blamed)} "
          f"of {len(names)} ({', '.join(high_blamed) or 'none'}).")


def separability_of(name: str) -> dict[str, tuple[int, int]]:
    """diagnosis.separability at one setting (its first reference set)."""
    game, m, n_games = GAMES[name]
    config = grade.GradeConfig(game, m, n_games, seed=REFERENCE_SEED)
    return diagnosis.separability(grade.reference_runs(config, cache_dir=False))


def _separability(names: list[str], workers: int) -> None:
    """Per setting: the bug models' own runs told from the handout's algorithm, and among them
    the share whose best model is of their own family (all models, then the corpus's bugs)."""
    print("| setting | runs told from the handout's | own family (all models) | "
          "own family (the corpus's bugs) |")
    print("|---|---:|---:|---:|")
    corpus = {*students.BUGS, *students.SLIPS}
    with cf.ProcessPoolExecutor(max(1, workers)) as pool:
        for name, result in zip(names, pool.map(separability_of, names), strict=True):
            told = sum(t for t, _ in result.values())
            right = sum(r for _, r in result.values())
            c_told = sum(t for n, (t, _) in result.items() if n in corpus)
            c_right = sum(r for n, (_, r) in result.items() if n in corpus)
            print(f"| {name} | {told} | {_pct(right, told)} | {_pct(c_right, c_told)} |",
                  flush=True)


def _pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:.0f}%" if b else "-"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", default=",".join(DEFAULT_GAMES),
                        help="comma list of GAMES, 'grid' for the grid corners, 'grid-a', "
                             "'grid-b' or 'grid-ab' for the calibration grid's layers (per "
                             "setting rows)")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--sets", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--separability", action="store_true",
                        help="instead: per setting, how well the bug models' own runs are told "
                             "apart at all (diagnosis.separability; no student programs)")
    parser.add_argument("--rows", help="JSON lines file of graded rows: appended per setting, "
                                       "and settings already in it are not graded again")
    args = parser.parse_args()
    grid = _grid_games("ab")  # every grid setting can also be named alone
    if args.games == "grid":
        names = list(GRID_GAMES)
    elif args.games.startswith("grid-"):
        layers = args.games.removeprefix("grid-")
        names = [n for n in grid if ("a" in layers and not n.endswith("g1000k"))
                 or ("b" in layers and n.endswith("g1000k"))]
    else:
        names = args.games.split(",")
    t0 = time.perf_counter()
    if args.separability:
        _separability(names, args.workers)
        return
    jobs = [(n, s) for n in names for s in range(args.sets)]
    rows: list[tuple[str, str, str, str, str]] = []
    done: set[tuple[str, int]] = set()
    if args.rows and Path(args.rows).is_file():  # resume: settings already graded are kept
        for line in Path(args.rows).read_text().splitlines():
            record = json.loads(line)
            if record["runs"] == args.runs and (record["game"], record["set"]) in jobs:
                done.add((record["game"], record["set"]))
                rows += [tuple(r) for r in record["rows"]]
    todo = [job for job in jobs if job not in done]
    with cf.ProcessPoolExecutor(max(1, args.workers)) as pool:
        futures = {pool.submit(grade_game, n, s, args.runs): (n, s) for n, s in todo}
        for count, future in enumerate(cf.as_completed(futures), 1):
            (n, s), part = futures[future], future.result()
            rows += part
            if args.rows:
                with open(args.rows, "a") as out:
                    out.write(json.dumps({"game": n, "set": s, "runs": args.runs,
                                          "rows": part}) + "\n")
            print(f"[{count + len(done)}/{len(jobs)}] {n} set {s} "
                  f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
    if len(names) > 6:
        _per_setting(rows, names, args)
        return
    print(f"# diagnosis on the student corpus: {args.runs} runs per program and set, "
          f"{args.sets} set(s) per game ({time.perf_counter() - t0:.0f} s)\n")
    print("**Bug outputs**: caught (not pass) / among the caught: right cause / same family / "
          "unusual / another bug\n")
    print("| bug | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    bugs = [*students.BUGS, *students.SLIPS, *MADE]
    for bug in bugs:
        cells = []
        for n in names:
            mine = [r for r in rows if r[0] == n and r[2] == bug]
            caught = [r for r in mine if r[3] != "pass"]
            right = sum(r[4] == bug for r in caught)
            fam = sum(r[4] != bug and _family(r[4]) == _family(bug) for r in caught)
            unusual = sum(r[4] == diagnosis.UNUSUAL for r in caught)
            other = len(caught) - right - fam - unusual
            cells.append(f"{_pct(len(caught), len(mine))} / {_pct(right, len(caught))} / "
                         f"{_pct(fam, len(caught))} / {_pct(unusual, len(caught))} / "
                         f"{_pct(other, len(caught))}" if mine else "-")
        print(f"| {bug} | " + " | ".join(cells) + " |")
    per = {n: _counts([r for r in rows if r[0] == n]) for n in names}
    print("| all caught | " + " | ".join(
        f"right {_pct(per[n]['right'], per[n]['caught'])} of {per[n]['caught']}"
        for n in names) + " |")
    print("| cause right (family) | " + " | ".join(
        f"{_pct(per[n]['family'], per[n]['caught'])}" for n in names) + " |")
    print("| right when named | " + " | ".join(
        f"{_pct(per[n]['family'], per[n]['named'])} of {per[n]['named']}" for n in names) + " |")
    print("\n**Faithful outputs**: a bug named / of all outputs; (not passing)\n")
    print("| game | named | of all | not passing |")
    print("|---|---:|---:|---:|")
    for n in names:
        mine = [r for r in rows if r[0] == n and r[1] == "faithful"]
        named = [r for r in mine if r[4] not in ("", diagnosis.UNUSUAL)]
        print(f"| {n} | {len(named)} | {_pct(len(named), len(mine))} of {len(mine)} | "
              f"{sum(r[3] != 'pass' for r in mine)} |")
    c = _counts(rows)
    print(f"\nPooled: right cause for {c['right']} of {c['caught']} caught bug outputs "
          f"({_pct(c['right'], c['caught'])}; same family {c['family'] - c['right']}; "
          f"right when a cause is named: {c['family']} of {c['named']}, "
          f"{_pct(c['family'], c['named'])}); a bug named for {c['blamed']} of {c['faithful']} "
          f"faithful outputs ({_pct(c['blamed'], c['faithful'])}).")


if __name__ == "__main__":
    main()
