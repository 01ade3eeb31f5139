"""Input detection judged by consistency, not size (docs/running.md "How programs get their
settings"): the programs of tests/students/programs/conventions/ (written from the handout,
each taking its settings its own way) are graded with no --input; each is found and named,
the one reading no input is held (never failed), and a program reading NGAMES before M is
never taken to read M first, which size alone cannot tell (the mutation below)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from dicejack.game import Game
from dicejack.grade import GradeConfig
from dicejack.grade import programs as pg
from dicejack.grade.programs import batch as pb
from dicejack.grade.programs import running as pr
from dicejack.grade.programs.languages import find_program
from dicejack.runtime import sandbox as sb

CONVENTIONS = Path(__file__).resolve().parents[2] / "students" / "programs" / "conventions"
TINY = pr.TINY

pytestmark = pytest.mark.skipif(not Path("/usr/bin/python3").exists(),
                                reason="no /usr/bin/python3")


def _runner() -> pg.Runner:
    try:
        box = sb.choose_sandbox()
    except sb.SandboxError as exc:
        pytest.skip(f"no sandbox on this machine: {exc}")
    return pg.Runner(box, sb.Limits(wall_seconds=30.0, cpu_seconds=30))


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("refs")


@pytest.fixture(scope="module")
def batch(cache, tmp_path_factory):
    out = tmp_path_factory.mktemp("out")
    config = GradeConfig(Game(TINY.sides, TINY.low, TINY.high, TINY.dice), TINY.m, TINY.games)
    plan = pg.RunPlan((pg.PlannedSetting(TINY, "assigned", 1),))
    names = sorted(p.name for p in CONVENTIONS.glob("*.py"))
    result = pg.grade_programs(config, plan, [CONVENTIONS / n for n in names], _runner(),
                               cache_dir=cache, lms_csv=out / "lms.csv")
    lms = list(csv.DictReader((out / "lms.csv").open()))
    return {s.label: s for s in result.students}, lms


@pytest.mark.parametrize(("label", "convention"), [
    ("dice_first_games_m_stdin", "stdin: {dice} {sides} {low} {high} {games} {m}"),
    ("dice_first_games_m_argv", "argv: {dice} {sides} {low} {high} {games} {m}"),
    ("argparse_long", "argv: --NSides {sides} --LTarget {low} --UTarget {high} --NDice {dice} "
                      "--M {m} --NGAMES {games}"),
    ("short_flags", "argv: -NS {sides} -LT {low} -UT {high} -ND {dice} -M {m} -NG {games}"),
    ("output_file", "argv: {sides} {low} {high} {dice} {m} {games} > output.txt"),
])
def test_each_convention_is_found_and_named(batch, label, convention):
    rows, _ = batch
    s = next(v for k, v in rows.items() if k.startswith(label))
    assert s.convention == convention, s.grade.error
    # graded (its verdict the statistics' own: a review at the 5% level now and then)
    assert s.grade.status == "ok" and "input-unknown" not in s.grade.flags, s.grade.error
    assert f"input {convention}" in s.grade.layout


def test_a_program_reading_no_input_is_held_with_a_plain_reason(batch):
    rows, lms = batch
    s = next(v for k, v in rows.items() if k.startswith("hard_coded"))
    assert s.grade.verdict == "review" and s.grade.held
    assert "input-unknown" in s.grade.flags and "ignores-settings" in s.grade.flags
    assert "--input" in s.grade.error and "whatever it is given" in s.grade.error
    line = next(r for r in lms if "hard_coded" in " ".join(r.values()))
    assert "held back" in " ".join(line.values())


def _built(name: str, tmp_path: Path) -> tuple[pr.Build, pg.Runner]:
    runner = _runner()
    folder = tmp_path / name
    folder.mkdir()
    (folder / f"{name}.py").write_bytes((CONVENTIONS / f"{name}.py").read_bytes())
    return pr.build(find_program(folder, name), runner), runner


def test_size_alone_takes_the_swapped_order_consistency_does_not(batch, cache, tmp_path):
    """The mutation: with size-only acceptance (no judge) the program reading NGAMES before M
    is taken to read M first (7 games at M 1500: tables of the right size), the wrong order
    the issue saw graded and sent to the LMS; judged by consistency, its own order wins."""
    built, runner = _built("dice_first_games_m_argv", tmp_path)
    size_only = pr.detect(built, runner)
    assert size_only.convention is not None
    assert size_only.convention.order == ("dice", "sides", "low", "high", "m", "games")
    config = GradeConfig(Game(TINY.sides, TINY.low, TINY.high, TINY.dice), TINY.m, TINY.games)
    judge = pb._tiny_judge(config, lambda _: None, cache, None, False)
    judged = pr.detect(built, runner, judge=judge)
    assert judged.convention is not None
    assert judged.convention.order == ("dice", "sides", "low", "high", "games", "m")
    assert any("inconsistent" in what for _, what in judged.tries)
