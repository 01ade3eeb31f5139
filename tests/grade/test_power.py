"""Setting-level power (grade.power): probe runs with a wrong M say when grading cannot see
such bugs at the instructor's settings, and the gradebook says so (flag low-power, one note)."""

from __future__ import annotations

import warnings

import pytest

from dicejack import grade
from dicejack.games.handout_rules import Game
from dicejack.grade.evidence.power import LOW_POWER, PROBE_RUNS, PROBES, setting_power
from dicejack.grade.outputs.site import index_html
from dicejack.grade.outputs.student_reports import report_markdown
from dicejack.grade.scoring.rubric import REVIEW_FLAGS, verdict_for
from dicejack.learners import formulas, handout
from tests.grade.support import layouts

HANDOUT = Game(6, 15, 17, 2)


def _output(game, m, games, seed) -> str:
    run = handout.learn(game, m, games, seed)
    return layouts(*formulas.learned_tables(run.win, run.lose))["labelled"]


@pytest.mark.parametrize(("games", "low"), [(2_000, True), (50_000, False)])
def test_probes_measure_the_power_of_the_setting(games, low):
    refs = grade.reference_runs(grade.GradeConfig(HANDOUT, 100.0, games), cache_dir=False)
    power = setting_power(refs)
    assert set(power.caught) == set(PROBES) and power.runs == PROBE_RUNS
    assert power.caught["greedy"] >= 0.8  # M = 0 is seen at any NGAMES here
    if low:  # measured in the corpus too: at 2,000 games M x 10 looks like faithful play
        assert power.caught["m-tenfold"] < LOW_POWER and "m-tenfold" in power.low
        assert "m-tenfold in" in power.note() and "--games" in power.note()
    else:
        assert power.low == () and power.note() == ""
    assert setting_power(refs) is power  # computed once per reference set


def test_a_low_power_batch_says_so_on_every_row(tmp_path):
    config = grade.GradeConfig(HANDOUT, 100.0, 2_000)
    files = []
    for i in range(2):
        path = tmp_path / f"s{i}.txt"
        path.write_text(_output(HANDOUT, 100.0, 2_000, 900 + i))
        files.append(path)
    (tmp_path / "empty.txt").write_text("")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", grade.GradeWarning)
        refs, grades = grade.grade_files(config, [*files, tmp_path / "empty.txt"],
                                         out=tmp_path / "book.csv", cache_dir=False)
    notes = [str(w.message) for w in caught if "low power" in str(w.message)]
    assert len(notes) == 1 and "m-tenfold" in notes[0]
    ok = [g for g in grades if g.status == "ok"]
    assert len(ok) == 2 and all("low-power" in g.flags for g in ok)
    assert all("low-power" not in g.flags for g in grades if g.status != "ok")
    assert "low-power" in (tmp_path / "book.csv").read_text()
    assert "low power at these settings" in index_html(refs, grades)  # the class page
    assert "a pass does not rule such bugs out" in report_markdown(refs, ok[0])
    # informative only: it never sends a file to review by itself
    assert "low-power" not in REVIEW_FLAGS
    assert verdict_for(100.0, 0.5, ("low-power",)) == "pass"
