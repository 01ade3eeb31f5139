"""The runs as one family: Holm's adjustment and the print-flag count's binomial p-value."""

import math

import pytest

from dicejack.grade.programs import joint as jt


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
