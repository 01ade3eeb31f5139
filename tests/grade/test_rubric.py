"""The rubric: points and the verdict (fail only on evidence)."""

from __future__ import annotations

import math

import numpy as np

from dicejack.grade.scoring.rubric import (
    CONSISTENCY_POINTS,
    P_FAIL,
    consistency_points,
    quality_fraction,
    verdict_for,
)


def test_rubric_pieces():
    assert consistency_points(0.5) == CONSISTENCY_POINTS
    # evidence below the fail level asks for a look but never costs points (issue 32) ...
    assert consistency_points(0.01) == CONSISTENCY_POINTS
    assert consistency_points(0.0005) == CONSISTENCY_POINTS
    assert consistency_points(P_FAIL) == CONSISTENCY_POINTS
    # ... only evidence of another algorithm does
    assert consistency_points(P_FAIL / 2) == 0
    assert consistency_points(math.nan) == CONSISTENCY_POINTS
    ref = np.linspace(0.8, 1.0, 30)
    assert quality_fraction(0.95, ref, +1, 0.01) == 1.0
    assert quality_fraction(0.0, ref, +1, 0.01) == 0.0
    assert 0 < quality_fraction(0.7, ref, +1, 0.01) < 1
    assert quality_fraction(math.nan, ref, +1, 0.01) == 0.0
    assert quality_fraction(0.5, ref, -1, 0.01) == 1.0  # lower is better
    assert quality_fraction(1.5, ref, -1, 0.01) == 0.0
    assert verdict_for(95, 0.5, ()) == "pass"
    assert verdict_for(95, 0.01, ()) == "review"
    assert verdict_for(95, 0.5, ("transposed",)) == "review"
    assert verdict_for(95, 0.5, ("unlabelled",)) == "pass"
    assert verdict_for(95, 0.0001, ()) == "review"  # small, but chance can do it
    assert verdict_for(95, 1e-6, ()) == "fail"  # evidence of another algorithm
    assert verdict_for(40, 0.5, ()) == "review"  # low quality alone is never a fail
    assert verdict_for(40, 0.5, ("no-data",)) == "fail"
    assert verdict_for(95, 0.5, ("copied",)) == "review"
