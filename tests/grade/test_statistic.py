"""Tests of dicejack.grade.evidence.statistic: the p-value's formula (a Student-t predictive tail
of log T with scale sd * sqrt(1 + 1/n)) against numbers computed by hand, and the rank terms on
a family small enough to count."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dicejack.grade.evidence.statistic import p_value, rank_terms


def _t2_tail(z: float) -> float:
    """The upper tail of Student's t with 2 degrees of freedom, in closed form:
    1/2 - z / (2 sqrt(z^2 + 2))."""
    return 0.5 - z / (2.0 * math.sqrt(z * z + 2.0))


def test_the_p_value_is_the_predictive_t_tail_with_its_sqrt_1_plus_1_over_n():
    # n = 3 calibration runs: 2 degrees of freedom, predictive scale sd * sqrt(4/3).
    # log T = mean + sd * sqrt(4/3) * sqrt(2): z = sqrt(2), tail 1/2 - sqrt(2)/4 = 0.146447
    mean, sd, n = 0.5, 0.25, 3
    t = math.exp(mean + sd * math.sqrt(4 / 3) * math.sqrt(2))
    assert p_value(t, (mean, sd, n)) == pytest.approx(0.5 - math.sqrt(2) / 4, rel=1e-12)
    assert 0.5 - math.sqrt(2) / 4 == pytest.approx(0.1464466094, abs=1e-10)
    # without the predictive factor z would be sqrt(8/3) and the tail 0.1213: not this
    assert abs(p_value(t, (mean, sd, n)) - _t2_tail(math.sqrt(8 / 3))) > 0.02
    # at the mean the tail is one half; below it more than one half
    assert p_value(math.exp(mean), (mean, sd, n)) == pytest.approx(0.5, abs=1e-15)
    t_low = math.exp(mean - sd * math.sqrt(4 / 3))
    assert p_value(t_low, (mean, sd, n)) == pytest.approx(_t2_tail(-1.0), rel=1e-12)


def test_the_p_value_is_nan_where_the_statistic_or_the_fit_cannot_give_one():
    assert math.isnan(p_value(0.0, (0.0, 1.0, 10)))
    assert math.isnan(p_value(math.inf, (0.0, 1.0, 10)))
    assert math.isnan(p_value(1.0, (0.0, 1.0, 1)))


def test_rank_terms_count_the_runs_below_and_equal():
    # three runs of a 1x1 game, values 0.2, 0.4, 0.4; the printed value 0.4 has one run below
    # and two equal: u = (1 + 0.5 * 2 + 0.5) / 4 = 0.625
    from scipy.special import ndtri

    values = np.array([0.2, 0.4, 0.4]).reshape(3, 1, 1)
    agree = np.array([[[0, 3, 1]]])  # J = 1 agrees with all three runs, J = 2 with one
    policy = np.array([[2]])
    per, w = rank_terms(values, agree, policy, np.array([[0.4]]))
    assert w[0, 0] == pytest.approx(ndtri(0.625), rel=1e-12)
    f = (1 + 0.5) / (3 + 1)  # the smoothed share agreeing with J = 2
    assert per[0, 0] == pytest.approx(0.5 * ndtri(0.625) ** 2 - 0.25 * math.log(f), rel=1e-12)
