"""A small part of issue 44's class (tests/students/programs/class/, written from the handout) as a
Canvas download through `grade --run`'s library call: the numpy program printing its tables with
`print(ndarray)` and reading stdin NDice NSides LTarget UTarget NGAMES M is found in that order
and not failed; the C program computing f_J by integer division, inconsistent in every order at
the tiny game, is graded in the order guessed from the states it played, its cause named, and
held from the LMS (a guess is never a decided grade). The whole class:
benchmarks/bench_class_run.py.

Python programs run on the default numpy environment (as `grade --run` without --python): built
once and cached; skipped, saying why, when pip cannot reach the package index."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from dicejack.games.handout_rules import Game
from dicejack.grade import GradeConfig, GradeError
from dicejack.grade import programs as pg
from dicejack.grade.programs import pyenv
from dicejack.runtime import sandbox as sb

CLASS = Path(__file__).resolve().parents[2] / "students" / "programs" / "class"
ASSIGNED = pg.Settings(6, 10, 12, 2, 10.0, 2000)
#: The assigned run and two at one probe of the default regions' kind (few games, large M).
PLAN = """
[[setting]]
sides = 6
low = 20
high = 23
dice = 2
m = 500
games = 3000
runs = 2
"""

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not pyenv.SYSTEM_PYTHON.exists(), reason="no /usr/bin/python3"),
    pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed"),
]


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    try:
        box = sb.choose_sandbox()
    except sb.SandboxError as exc:
        pytest.skip(f"no sandbox on this machine: {exc}")
    try:
        python = pyenv.default_python(box)
    except GradeError as exc:
        if "pip cannot install" in str(exc):
            pytest.skip(f"pip cannot reach the package index here: {exc}")
        raise
    tmp = tmp_path_factory.mktemp("class")
    download = tmp / "submissions"
    download.mkdir()
    shutil.copy(CLASS / "numpy_stdin.py", download / "anaperez_2001_9001_pa3.py")
    shutil.copy(CLASS / "intdiv.c", download / "ivyzhang_2009_9002_intdiv.c")
    config = GradeConfig(Game(6, 10, 12, 2), 10.0, 2000)
    plan = pg.parse_plan(PLAN, assigned=ASSIGNED, runs=1)
    runner = pg.Runner(box, sb.Limits(wall_seconds=60.0, cpu_seconds=60), python=python)
    result = pg.grade_programs(config, plan, [download], runner, cache_dir=tmp / "refs",
                               lms_csv=tmp / "lms.csv", lms_format="canvas")
    lms = {row[1]: row[5] for row in csv.reader((tmp / "lms.csv").open())}
    return {s.grade.student: s for s in result.students}, lms


def test_one_row_per_student(batch):
    rows, lms = batch
    assert set(rows) == {"2001", "2009"} and {"2001", "2009"} <= set(lms)


def test_the_numpy_program_is_found_in_its_order_and_not_failed(batch):
    rows, _ = batch
    s = rows["2001"]
    assert s.language == "python"
    assert s.convention == "stdin: {dice} {sides} {low} {high} {games} {m}", s.grade.error
    # graded (a review at the 5% level now and then is the statistics' own)
    assert s.grade.status == "ok" and s.grade.verdict in ("pass", "review")
    assert not {"input-unknown", "input-guessed"} & set(s.grade.flags)
    assert "numpy-str" in s.grade.layout and all(not r.failed for r in s.runs)


def test_integer_division_is_graded_in_the_guessed_order_named_and_held(batch):
    rows, lms = batch
    s = rows["2009"]
    found = pg.parse_convention(s.convention)  # one line or one value a line: both read
    assert (found.kind, found.file) == ("file", "input.txt")
    assert found.order == ("sides", "low", "high", "dice", "m", "games")
    assert "input-guessed" in s.grade.flags and "input-unknown" not in s.grade.flags
    assert "input guessed" in s.grade.notes and "--input" in s.grade.notes
    assert s.grade.verdict == "review" and s.grade.held == "review"
    assert s.grade.cause == "integer-division", (s.grade.cause, s.grade.notes)
    assert lms["2009"] == ""  # no grade from a guess reaches the LMS
