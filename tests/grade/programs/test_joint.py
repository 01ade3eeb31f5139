"""The runs as one family: Holm's adjustment and the print-flag count's binomial p-value; a
run's printout read (or why not)."""

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


def test_print_flag_p_is_the_binomial_tail():
    a = jt.ALPHA_PRINT
    assert jt.print_flag_p(0, 6) == pytest.approx(1.0)
    assert jt.print_flag_p(1, 1) == pytest.approx(a)
    assert jt.print_flag_p(2, 3) == pytest.approx(3 * a * a * (1 - a) + a ** 3)
    assert math.isnan(jt.print_flag_p(0, 0))


def test_one_flag_in_many_faithful_runs_is_not_evidence():
    assert jt.print_flag_p(1, 6) > jt.P_REVIEW
    assert jt.print_flag_p(2, 6) < jt.P_REVIEW


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
