"""The run plan: the default (assigned settings and the probes) and TOML plans."""

import pytest

from dicejack.grade import GradeError
from dicejack.grade.programs import plan as pl
from dicejack.grade.programs.conventions import Settings

A = Settings(6, 15, 17, 2, 100.0, 100_000)


def test_default_plan_is_assigned_then_probes():
    p = pl.default_plan(A, runs=3)
    assert [s.role for s in p.settings] == ["assigned", "probe", "probe"]
    assert p.settings[0].settings == A and p.runs == 9
    assert {s.settings for s in p.settings[1:]} == set(pl.DEFAULT_PROBES)


def test_a_probe_equal_to_the_assigned_settings_is_not_run_twice():
    p = pl.default_plan(pl.DEFAULT_PROBES[0])
    assert len(p.settings) == 2


def test_toml_plan():
    text = """
runs = 4
[[setting]]
sides = 6
low = 20
high = 22
dice = 3
m = 10
games = 2000
runs = 1

[[setting]]
role = "probe"
sides = 4
low = 10
high = 12
dice = 2
m = 0.5
games = 500
"""
    p = pl.parse_plan(text, assigned=A)
    assert [(s.role, s.runs) for s in p.settings] == [("assigned", 4), ("probe", 1),
                                                      ("probe", 4)]
    assert p.settings[1].settings == Settings(6, 20, 22, 3, 10.0, 2000)
    assert pl.parse_plan(text, assigned=A, runs=2).settings[0].runs == 2


@pytest.mark.parametrize("text, message", [
    ("runs = [", "not valid TOML"),
    ("speed = 1", "unknown key 'speed'"),
    ("[[setting]]\nsides = 6", "missing 'low'"),
    ("[[setting]]\nsides=6\nlow=9\nhigh=8\ndice=2\nm=1\ngames=5", "low must be <= high"),
    ("[[setting]]\nsides=6\nlow=9\nhigh=10\ndice=2\nm=-1\ngames=5", "m must be"),
    ("runs = 0", "--runs must be"),
    ("assigned = false", "no setting"),
])
def test_bad_plans_are_one_line_errors(text, message):
    with pytest.raises(GradeError, match=message):
        pl.parse_plan(text, assigned=A)


def test_load_plan_refuses_a_missing_file(tmp_path):
    with pytest.raises(GradeError, match="cannot read the run plan"):
        pl.load_plan(tmp_path / "nope.toml", assigned=A)
