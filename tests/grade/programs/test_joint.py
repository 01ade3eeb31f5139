"""The runs as one family: Holm's adjustment and the print-flag count's binomial p-value; a
run's printout read (or why not)."""

import dataclasses
import math

import numpy as np
import pytest

from dicejack.grade.programs import joint as jt
from dicejack.grade.programs.conventions import Settings
from dicejack.grade.programs.plan import PlannedSetting
from dicejack.runtime.sandbox import RunResult
from tests.grade.support import GAMES, M, tables


def test_holm_step_down():
    assert jt.holm([0.01, 0.04, 0.03, math.nan]) == pytest.approx(
        [0.03, 0.06, 0.06, math.nan], nan_ok=True)
    assert jt.holm([0.5, 0.9]) == [1.0, 1.0]


def test_print_flag_p_weighs_the_runs_of_one_reference_set_as_sharing_it():
    c = 60  # held-out runs: a faithful run is flagged at 1 / (C + 1) over reference sets
    a = 1 / (c + 1)
    assert a == pytest.approx(jt.ALPHA_PRINT)
    assert jt.print_flag_p(0, [(6, c)]) == pytest.approx(1.0)
    assert jt.print_flag_p(1, [(1, c)]) == pytest.approx(a)
    # independent sets: the binomial tail
    assert jt.print_flag_p(2, [(1, c), (1, c)]) == pytest.approx(a * a)
    assert jt.print_flag_p(2, [(1, c)] * 3) == pytest.approx(3 * a * a * (1 - a) + a ** 3)
    # one set: given it, each run tops the held-out maximum with the same q ~ Beta(1, C), so
    # two flags at one setting are E[q^2] = 2 / ((C + 1)(C + 2)), twice as likely as two
    # independent chances (a set whose maximum came low flags every run of that setting)
    assert jt.print_flag_p(2, [(2, c)]) == pytest.approx(2 / ((c + 1) * (c + 2)))
    assert jt.print_flag_p(2, [(2, c)]) > jt.print_flag_p(2, [(1, c), (1, c)])
    assert math.isnan(jt.print_flag_p(0, [])) and math.isnan(jt.print_flag_p(0, [(0, c)]))


def test_one_flag_in_many_faithful_runs_is_not_evidence():
    plan = [(2, 60), (2, 60), (2, 60)]  # the default plan: two runs at each of three settings
    assert jt.print_flag_p(1, plan) > jt.P_REVIEW
    assert jt.print_flag_p(2, plan) < jt.P_REVIEW


def test_a_run_printing_its_tables_with_numpy_is_graded_and_a_summarised_one_says_why(refs):
    """A program printing its tables with print(ndarray) is read; printed summarised with '...'
    (more values than numpy's threshold), its row says so plainly and how to print in full."""
    best, prob = tables()
    game = refs.game
    setting = PlannedSetting(Settings(game.n_sides, game.low, game.high, game.n_dice, M, GAMES),
                             "probe", 1)

    def run(threshold: int) -> jt.ProgramRun:
        with np.printoptions(threshold=threshold):
            text = f"Best J:\n{best}\nProbability of winning:\n{prob}\n"
        assert ("..." in text) == (threshold < best.size)
        result = RunResult(exit_code=0, stdout=text.encode(), stderr=b"", seconds=0.1,
                           cpu_seconds=0.1)
        return jt.grade_run(refs, setting, 0, 1, "python3 learn.py", result, "alice")

    whole = run(1000)
    assert not whole.failed and whole.grade is not None and whole.grade.status == "ok"
    cut = run(20)  # a program (or numpy's default past 1,000 values) printing summarised
    reason = ("the tables were printed summarised with '...' (numpy prints at most 1,000 values "
              "by default): print them in full, e.g. numpy.set_printoptions(threshold=sys.maxsize)")
    assert cut.failed == reason
    row, _ = jt.joint_grade("alice", [whole, cut], "argv")
    assert row.status == "error" and row.error.endswith(reason)
    assert "ignores-settings" not in row.flags  # the tables' size is not guessed from '...'


def _runs_named(monkeypatch, causes: list[str], roles: list[str] | None = None
                ) -> list[jt.ProgramRun]:
    """Runs whose diagnosis (stubbed) names `causes`, in order ("" none)."""
    from dicejack.grade.scoring.diagnosis import Diagnosis
    from dicejack.grade.scoring.record import Grade

    by_name = dict(zip((f"run{i}" for i in range(len(causes))), causes, strict=True))
    monkeypatch.setattr(jt, "diagnose", lambda refs, g: Diagnosis(
        by_name[g.submission], {}, text=f"{by_name[g.submission]} in words"))
    out = []
    for i, _ in enumerate(causes):
        role = roles[i] if roles else "probe"
        setting = PlannedSetting(Settings(6, 10, 12, 2, M, GAMES), role, len(causes))
        g = Grade(submission=f"run{i}", status="ok", score=90.0, verdict="review")
        out.append(jt.ProgramRun(setting, i, None, "prog", None, g, refs=object()))
    return out


@pytest.mark.parametrize("causes, named", [
    (["m-tenth", "m-tenth", ""], "m-tenth"),  # runs that passed are not diagnosed
    (["m-tenth", "m-tenth", "unusual"], "m-tenth"),  # unusual contradicts nothing
    (["m-tenth", "m-tenth", "m-hundredth"], "m-tenth"),  # one family: not contradicted
    (["m-tenth", "m-tenth", "xy-swapped"], ""),  # another known bug contradicts it
    (["m-tenth", "unusual"], "m-tenth"),  # half the runs diagnosed
    (["m-tenth", "unusual", "unusual"], ""),  # fewer than half
    (["m-tenth", "m-hundredth", "unusual"], "m-tenth"),  # a family: the one named most often
    (["unusual", "unusual", ""], "unusual"),  # no known bug explains them
    (["", ""], ""),
])
def test_the_cause_is_the_one_the_runs_back(monkeypatch, causes, named):
    from dicejack.grade.evidence.bug_models import BY_NAME

    assert all(c in BY_NAME for c in causes if c not in ("", "unusual"))
    cause, text, note = jt.joint_cause(_runs_named(monkeypatch, causes))
    assert cause == named
    assert (text != "") == (named != "")
    assert (note != "") == any(causes)


def test_the_causes_words_are_an_assigned_runs_else_say_which_run(monkeypatch):
    runs = _runs_named(monkeypatch, ["m-tenth", "m-tenth"], ["probe", "assigned"])
    assert jt.joint_cause(runs)[1] == "m-tenth in words"
    runs = _runs_named(monkeypatch, ["m-tenth", "m-tenth"], ["probe", "probe"])
    assert jt.joint_cause(runs)[1].startswith("in probe run 1 (")


def test_a_student_who_passes_has_no_cause_and_one_in_review_gets_the_runs_cause(monkeypatch):
    runs = _runs_named(monkeypatch, ["m-tenth", "m-tenth"], ["assigned", "assigned"])
    from dicejack.grade.scoring.record import Grade
    passing = [dataclasses.replace(r, grade=Grade(submission=r.grade.submission, status="ok",
                                                  score=95.0, verdict="pass"))
               for r in runs]
    row, _ = jt.joint_grade("alice", passing, "argv")
    assert row.verdict == "pass" and row.cause == ""
    low = [dataclasses.replace(r, grade=dataclasses.replace(r.grade, score=50.0,
                                                            verdict="review"))
           for r in runs]
    row, _ = jt.joint_grade("alice", low, "argv")
    assert row.verdict == "review" and row.cause == "m-tenth" and row.cause_text
    assert "likely cause m-tenth: named by 2 of 2 runs" in row.notes


@pytest.mark.parametrize("cause, named", [("", "m-tenth"), ("unusual", "m-tenth"),
                                          ("m-hundredth", "m-tenth"),
                                          ("xy-swapped", "xy-swapped")])
def test_a_wrong_m_named_by_refitting_is_the_cause_unless_another_bug_is(monkeypatch, cause,
                                                                         named):
    from dicejack.grade.programs import wrong_m as dg
    from dicejack.grade.scoring.record import Grade

    monkeypatch.setattr(dg, "wrong_m", lambda runs, refs_for: "m-tenth")
    g = Grade(submission="a", status="ok", verdict="review", flags=("inconsistent",),
              cause=cause, cause_text="before")
    out = dg.mark_wrong_m(g, [], lambda s, f: None)
    assert out.cause == named
    assert ("m-tenth" in out.flags) == (named == "m-tenth")
    if named == "m-tenth":
        assert "M ten times too small" in out.cause_text
    assert dg.mark_wrong_m(dataclasses.replace(g, flags=()), [], lambda s, f: None) is not None


def test_a_print_only_slip_on_the_row_keeps_a_refitted_m_from_being_named(monkeypatch):
    """A print-only slip the family rejected (a printed-* flag on the row) explains an
    inconsistent run as well: no wrong M is named. Print flags on single runs do not count (a
    wrong M is flagged printed-by-plays on some of its runs)."""
    from dicejack.grade.programs import wrong_m as dg
    from dicejack.grade.scoring.record import Grade

    monkeypatch.setattr(dg, "wrong_m", lambda runs, refs_for: "m-tenfold")
    g = Grade(submission="a", status="ok", verdict="review",
              flags=("inconsistent", "printed-by-wins"), cause="unusual", cause_text="before")
    assert dg.mark_wrong_m(g, [], lambda s, f: None) is g
    plain = dataclasses.replace(g, flags=("inconsistent",))
    setting = PlannedSetting(Settings(6, 10, 12, 2, M, GAMES), "probe", 3)
    flagged = dataclasses.replace(plain, flags=("printed-by-plays",))
    runs = [jt.ProgramRun(setting, i, None, "prog", None, flagged) for i in range(3)]
    assert dg.mark_wrong_m(plain, runs, lambda s, f: None).cause == "m-tenfold"


def _assigned_runs(*grades) -> list[jt.ProgramRun]:
    setting = PlannedSetting(Settings(6, 10, 12, 2, M, GAMES), "assigned", len(grades))
    return [jt.ProgramRun(setting, i, None, "prog", None, g) for i, g in enumerate(grades)]


@pytest.mark.parametrize("layout", ["unlabelled", "rows-reordered", "prob-percent"])
def test_a_layout_flag_never_sends_a_student_to_review(layout):
    """A run reviewed for its own p-value (the family decides that) and laid out unlabelled is
    a pass when the family rejects nothing; the flag is still shown."""
    from dicejack.grade.scoring.record import Grade

    own = Grade(submission="r", status="ok", score=95.0, verdict="review",
                flags=("inconsistent", layout))
    clean = Grade(submission="r", status="ok", score=95.0, verdict="pass", flags=(layout,))
    row, joint = jt.joint_grade("alice", _assigned_runs(own, clean), "argv")
    assert not joint.rejected
    assert row.verdict == "pass" and layout in row.flags and "inconsistent" not in row.flags


def test_a_review_flag_still_sends_a_student_to_review():
    from dicejack.grade.scoring.record import Grade

    own = Grade(submission="r", status="ok", score=95.0, verdict="review",
                flags=("inconsistent", "transposed"))
    row, _ = jt.joint_grade("alice", _assigned_runs(own), "argv")
    assert row.verdict == "review"
    low = Grade(submission="r", status="ok", score=60.0, verdict="review")
    assert jt.joint_grade("alice", _assigned_runs(low), "argv")[0].verdict == "review"


def _quality_graded(shares: tuple[float, float, float], seed: int = 0):
    """A run graded with these shares of each quality metric's points (and the rubric's own
    per-run score, verdict and flags for them)."""
    from dicejack.grade.scoring.rubric import (
        CONSISTENCY_POINTS,
        FORMAT_POINTS,
        QUALITY_METRICS,
        QUALITY_POINTS,
        verdict_for,
    )

    per = QUALITY_POINTS / len(QUALITY_METRICS)
    points = {name: per * share for (name, _, _), share in zip(QUALITY_METRICS, shares,
                                                               strict=True)}
    score = FORMAT_POINTS + sum(points.values()) + CONSISTENCY_POINTS
    flags = ("low-quality",) if min(shares) < 0.5 else ()
    return dataclasses.replace(_graded(0.5, seed=seed), score=score, metric_points=points,
                               flags=flags, verdict=str(verdict_for(score, 0.5, flags)))


def test_one_assigned_runs_low_quality_among_several_is_chance_judged_on_the_mean():
    """Score and quality are judged on the student's means over the assigned runs, as the
    p-values are by the family: a correct program's one run in a metric's tail (here 0.3 of its
    points: that run's own verdict is review, low-quality) is not a review when the mean is
    fine (it was: the runs multiplied the false alarms, 5.0% with one run per setting, 7.0%
    with three, measured)."""
    low, fine = _quality_graded((0.3, 1.0, 1.0), seed=1), _quality_graded((1.0, 1.0, 1.0), 2)
    assert low.verdict == "review" and "low-quality" in low.flags
    other = _quality_graded((1.0, 1.0, 1.0), 6)  # tables of its own: not a fixed output
    row, joint = jt.joint_grade("alice", _assigned_runs(low, fine, other), "argv")
    assert not joint.rejected
    assert row.verdict == "pass" and "low-quality" not in row.flags
    assert row.score == pytest.approx((low.score + fine.score + other.score) / 3)
    # alone it is the printout's own verdict, as before
    row, _ = jt.joint_grade("alice", _assigned_runs(low), "argv")
    assert row.verdict == "review" and "low-quality" in row.flags
    # low on average (a real shortfall) is a review, flagged, whichever run is shown
    runs = _assigned_runs(fine, _quality_graded((0.4, 1.0, 1.0), 3),
                          _quality_graded((0.05, 1.0, 1.0), 4))
    row, _ = jt.joint_grade("alice", runs, "argv")
    assert row.verdict == "review" and "low-quality" in row.flags
    # a mean score below the review level is a review without any metric's mean under half
    mid = _quality_graded((0.55, 0.55, 0.55), 5)
    assert "low-quality" not in mid.flags and mid.score < 80
    row, _ = jt.joint_grade("alice", _assigned_runs(mid, _quality_graded((0.55,) * 3, 7)),
                            "argv")
    assert row.verdict == "review" and "low-quality" not in row.flags


def test_a_review_flag_of_one_run_is_not_averaged_away():
    from dicejack.grade.scoring.record import Grade

    fine = _quality_graded((1.0, 1.0, 1.0), 2)
    transposed = Grade(submission="r", status="ok", score=85.0, verdict="review",
                       flags=("transposed",))
    row, _ = jt.joint_grade("alice", _assigned_runs(fine, transposed), "argv")
    assert row.verdict == "review"


def _consistent(p: float):
    from dicejack.grade.evidence.consistency import Consistency

    return Consistency(1.0, p, p, 10, 0.0, 1.0, np.zeros((2, 2)), np.zeros((2, 2)))


def _graded(p: float, verdict: str = "pass", flags: tuple[str, ...] = (), seed: int = 0):
    from dicejack.grade.scoring.record import Grade

    rng = np.random.default_rng(seed)  # distinct tables: no run repeats another's
    return Grade(submission="r", status="ok", score=95.0, verdict=verdict, flags=flags,
                 consistency=_consistent(p), policy=rng.integers(1, 3, (2, 2)),
                 probability=rng.random((2, 2)))


def test_the_row_names_the_run_that_decided_the_verdict_with_its_numbers():
    """A probe run's p decided it: the row (page, reports) says which run and its numbers, not
    the first assigned run's p-value."""
    from dicejack.grade.outputs.explanations import plain_summary

    assigned = PlannedSetting(Settings(6, 10, 12, 2, M, GAMES), "assigned", 1)
    probe = PlannedSetting(Settings(6, 20, 22, 2, 1000.0, GAMES), "probe", 2)
    runs = [jt.ProgramRun(assigned, 0, None, "p", None, _graded(0.212, seed=1)),
            jt.ProgramRun(probe, 0, None, "p", None, _graded(0.5, seed=2)),
            jt.ProgramRun(probe, 1, None, "p", None,
                          _graded(0.002, "review", ("inconsistent",), seed=3))]
    row, joint = jt.joint_grade("alice", runs, "argv")
    assert row.verdict == "review" and "inconsistent" in row.flags
    assert joint.deciding() is not None and joint.deciding()[0] is runs[2]
    assert "probe run 2" in row.decided_by and "consistency p = 0.002" in row.decided_by
    text = plain_summary(row)
    assert "probe run 2" in text and "0.212" not in text
    assert "the verdict came from probe run 2" in row.notes


def test_an_assigned_run_that_decided_is_the_one_shown():
    assigned = PlannedSetting(Settings(6, 10, 12, 2, M, GAMES), "assigned", 2)
    runs = [jt.ProgramRun(assigned, 0, None, "p", None, _graded(0.6, seed=1)),
            jt.ProgramRun(assigned, 1, None, "p", None,
                          _graded(0.001, "review", ("inconsistent",), seed=2))]
    row, _ = jt.joint_grade("alice", runs, "argv")
    assert row.consistency_p == pytest.approx(0.001) and "assigned run 2" in row.decided_by


def test_the_flags_counted_are_the_flags_listed_and_each_says_what_it_is():
    from dicejack.grade.outputs.explanations import flag_checklist, plain_summary
    from dicejack.grade.scoring.record import Grade

    flags = ("unlabelled", "fixed-output", "m-tenth", "m-tenfold", "ignores-settings")
    g = Grade(submission="r", status="ok", score=95.0, verdict="review", flags=flags)
    assert f"Check the {len(flags)} flags below" in plain_summary(g)
    for f, text in flag_checklist(g):
        assert "reported by the reader" not in text, f


def test_the_runs_page_says_what_decided_the_verdict_and_the_likely_cause():
    from dicejack.grade.programs.joint import StudentResult
    from dicejack.grade.programs.pages import runs_html

    assigned = PlannedSetting(Settings(6, 10, 12, 2, M, GAMES), "assigned", 2)
    runs = [jt.ProgramRun(assigned, 0, None, "p", None, _graded(0.6, seed=1)),
            jt.ProgramRun(assigned, 1, None, "p", None,
                          _graded(0.001, "review", ("inconsistent",), seed=2))]
    row, joint = jt.joint_grade("alice", runs, "argv")
    row = dataclasses.replace(row, cause="m-tenth", cause_text="M <ten> times too small")
    page = runs_html([StudentResult("alice", "python", "argv", tuple(runs), row, joint)],
                     "bwrap", "2 x assigned")
    assert "Decided by: the tables of assigned run 2" in page
    assert "likely cause m-tenth" in page and "M &lt;ten&gt; times too small" in page
