"""Breaking a tie between two likely causes (grade.programs.tiebreak, joint.tied_causes;
diagnosis.pair_separation is tested with the diagnosis): which runs leave two causes tied,
where the program is run again, when the extra runs name one, and that they never touch the
verdict; and a batch that runs a student's program again at the separating setting."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from dicejack.games.handout_rules import Game
from dicejack.grade import GradeConfig
from dicejack.grade import programs as pg
from dicejack.grade.programs import batch_run as bt
from dicejack.grade.programs import joint as jt
from dicejack.grade.programs import tiebreak as tb
from dicejack.grade.programs.conventions import Settings
from dicejack.grade.programs.plan import PlannedSetting
from dicejack.grade.scoring.diagnosis import Diagnosis
from dicejack.grade.scoring.record import Grade
from dicejack.runtime import sandbox as sb

SETTING = PlannedSetting(Settings(6, 10, 12, 2, 100.0, 2000), "probe", 3)


def _runs(monkeypatch, diagnoses: list[Diagnosis], role: str = "probe") -> list[jt.ProgramRun]:
    """Runs whose diagnosis (stubbed) is `diagnoses`, in order."""
    by_name = {f"run{i}": d for i, d in enumerate(diagnoses)}
    monkeypatch.setattr(jt, "diagnose", lambda refs, g: by_name[g.submission])
    setting = dataclasses.replace(SETTING, role=role)
    return [jt.ProgramRun(setting, i, None, "prog", None,
                          Grade(submission=f"run{i}", status="ok", score=90.0, verdict="review"),
                          refs=object())
            for i in range(len(diagnoses))]


def _named(*causes: str) -> list[Diagnosis]:
    return [Diagnosis(c, {}, text=f"{c} in words") for c in causes]


@pytest.mark.parametrize("causes, pair", [
    (("m-tenth", "xy-swapped"), ("m-tenth", "xy-swapped")),
    (("xy-swapped", "m-tenth", "xy-swapped"), ("xy-swapped", "m-tenth")),  # most named first
    (("m-tenth", "m-hundredth", "xy-swapped"), ("m-tenth", "xy-swapped")),  # a family's first
    (("m-tenth", "m-hundredth"), None),  # one family: nothing to weigh it against
    (("m-tenth", "unusual", "unusual"), None),  # a bug against no known bug is no tie
    (("", ""), None),  # runs that passed
])
def test_runs_naming_bugs_of_two_families_are_tied(monkeypatch, causes, pair):
    assert jt.tied_causes(_runs(monkeypatch, _named(*causes))) == pair


def _unusual(**loglik: float) -> Diagnosis:
    return Diagnosis("unusual", dict(sorted(loglik.items(), key=lambda kv: -kv[1])))


def test_unusual_runs_two_bugs_explain_alike_are_tied_when_both_beat_the_handouts(monkeypatch):
    # summed over the runs: xy-swapped -15, last-sampled -21, handout -30, m-tenth -32
    runs = _runs(monkeypatch, [
        _unusual(**{"xy-swapped": -5, "last-sampled": -11, "handout": -15, "m-tenth": -16}),
        _unusual(**{"xy-swapped": -10, "last-sampled": -10, "handout": -15, "m-tenth": -16})])
    assert jt.tied_causes(runs) == ("xy-swapped", "last-sampled")
    # the runner-up of the same family does not count; another family's does, if it beats
    # the handout's algorithm
    runs = _runs(monkeypatch, [
        _unusual(**{"m-tenth": -5, "m-hundredth": -6, "handout": -8, "xy-swapped": -9})])
    assert jt.tied_causes(runs) is None
    runs = _runs(monkeypatch, [_unusual(**{"handout": -1, "m-tenth": -2, "xy-swapped": -3})])
    assert jt.tied_causes(runs) is None


def test_an_unflagged_print_only_slip_is_never_a_candidate(monkeypatch):
    # a slip model fits any output that exploits early: unflagged, it is no candidate
    runs = _runs(monkeypatch, [_unusual(**{"printed-by-plays": -1, "xy-swapped": -5,
                                           "last-sampled": -6, "handout": -9})])
    assert jt.tied_causes(runs) == ("xy-swapped", "last-sampled")


def _settled(monkeypatch, causes: list[str]) -> Grade:
    g = Grade(submission="alice", status="ok", score=72.5, verdict="review",
              flags=("inconsistent",), notes="before")
    extra = _runs(monkeypatch, _named(*causes), role=tb.ROLE)
    return tb.settle(g, ("xy-swapped", "last-sampled"), SETTING, 0.93, extra)


@pytest.mark.parametrize("causes, named", [
    (["xy-swapped", "xy-swapped", "unusual"], "xy-swapped"),
    (["last-sampled", "last-sampled", "last-sampled"], "last-sampled"),
    (["xy-swapped", "unusual", "unusual"], ""),  # fewer than TIEBREAK_AGREE
    (["xy-swapped", "xy-swapped", "last-sampled"], ""),  # the other named: still tied
    (["m-tenth", "m-tenth", "m-tenth"], ""),  # a third bug is not one of the pair
])
def test_the_extra_runs_name_a_cause_only_when_they_agree(monkeypatch, causes, named):
    g = _settled(monkeypatch, causes)
    assert g.cause == named
    assert (g.score, g.verdict, g.flags) == (72.5, "review", ("inconsistent",))  # untouched
    assert g.notes.startswith("before; ") and "3 tie-break runs at NSides=6" in g.notes
    assert "told apart in 93% of their own runs" in g.notes
    if named:
        # said as that run's (its M values are the tie-break setting's, not the assigned)
        assert g.cause_text.startswith("in tie-break run 1 (NSides=6 LTarget=10")
        assert g.cause_text.endswith(f": {named} in words")
        assert f"likely cause {named}: xy-swapped and last-sampled tied" in g.notes
    else:
        assert "still tied" in g.notes


def test_the_separating_setting_is_the_best_candidate_and_the_cheaper_of_equals(monkeypatch):
    scores = {s: 0.5 for s in tb.CANDIDATES}
    best = tb.CANDIDATES[-1]  # LTarget 20, M 100, 20,000 games
    cheaper = dataclasses.replace(best, games=2_000)
    scores[best] = scores[cheaper] = 0.9
    monkeypatch.setattr(tb, "pair_separation", lambda refs, a, b, cache_dir=False: scores[refs])
    setting, sep = tb.separating_setting(("xy-swapped", "last-sampled"), lambda s: s)
    assert (setting.settings, setting.role, setting.runs, sep) == (cheaper, tb.ROLE,
                                                                  tb.TIEBREAK_RUNS, 0.9)


def test_every_candidate_is_cheap_and_printable():
    from dicejack.grade.programs.plan import MAX_PROBE_LOW

    assert all(s.games <= 20_000 and s.low <= MAX_PROBE_LOW for s in tb.CANDIDATES)


CORPUS = Path(__file__).resolve().parents[2] / "students" / "programs"


@pytest.mark.slow
def test_a_tied_student_is_run_again_at_the_separating_setting(monkeypatch, tmp_path):
    try:
        box = sb.choose_sandbox()
    except sb.SandboxError as exc:
        pytest.skip(f"no sandbox on this machine: {exc}")
    # a program printing one fixed pair of tables (never passes), its runs taken to name no
    # cause but to tie m-tenth with xy-swapped; one candidate
    monkeypatch.setattr(jt, "joint_cause", lambda runs, slip="": ("", "", "no likely cause"))
    monkeypatch.setattr(bt, "mark_wrong_m", lambda g, runs, refs_for: g)
    monkeypatch.setattr(bt, "tied_causes", lambda runs, slip="": ("m-tenth", "xy-swapped"))
    monkeypatch.setattr(tb, "CANDIDATES", (Settings(6, 10, 12, 2, 100.0, 2000),))
    plan = pg.parse_plan("", assigned=pg.Settings(6, 10, 12, 2, 10.0, 2000), runs=1)
    plan = dataclasses.replace(plan, settings=plan.settings[:1])
    batch = pg.grade_programs(GradeConfig(Game(6, 10, 12, 2), 10.0, 2000), plan,
                              [CORPUS / "bugs" / "fixed_table.py"],
                              pg.Runner(box, sb.Limits(wall_seconds=120, cpu_seconds=120)),
                              conventions=[pg.parse_convention("argv: {sides} {low} {high} "
                                                               "{dice} {m} {games}")],
                              cache_dir=tmp_path)
    (student,) = batch.students
    extra = [r for r in student.runs if r.setting.role == tb.ROLE]
    assert len(extra) == tb.TIEBREAK_RUNS and len(student.runs) == 1 + tb.TIEBREAK_RUNS
    assert all(r.setting.settings == tb.CANDIDATES[0] and not r.failed for r in extra)
    assert "3 tie-break runs at NSides=6 LTarget=10" in student.grade.notes
    assert student.joint is not None and len(student.joint.p_values) == 2  # the plan's only
    assert student.grade.verdict != "pass"
    assert student.grade.cause in ("m-tenth", "xy-swapped", "")  # one of the pair, or none
