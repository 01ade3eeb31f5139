"""The rubric: points and the verdict (fail only on evidence)."""

from __future__ import annotations

import math

import numpy as np

from dicejack import grade


def test_rubric_pieces():
    assert grade.consistency_points(0.5) == grade.CONSISTENCY_POINTS
    # evidence below the fail level asks for a look but never costs points (issue 32) ...
    assert grade.consistency_points(0.01) == grade.CONSISTENCY_POINTS
    assert grade.consistency_points(0.0005) == grade.CONSISTENCY_POINTS
    assert grade.consistency_points(grade.P_FAIL) == grade.CONSISTENCY_POINTS
    # ... only evidence of another algorithm does
    assert grade.consistency_points(grade.P_FAIL / 2) == 0
    assert grade.consistency_points(math.nan) == grade.CONSISTENCY_POINTS
    ref = np.linspace(0.8, 1.0, 30)
    assert grade.quality_fraction(0.95, ref, +1, 0.01) == 1.0
    assert grade.quality_fraction(0.0, ref, +1, 0.01) == 0.0
    assert 0 < grade.quality_fraction(0.7, ref, +1, 0.01) < 1
    assert grade.quality_fraction(math.nan, ref, +1, 0.01) == 0.0
    assert grade.quality_fraction(0.5, ref, -1, 0.01) == 1.0  # lower is better
    assert grade.quality_fraction(1.5, ref, -1, 0.01) == 0.0
    assert grade.verdict_for(95, 0.5, ()) == "pass"
    assert grade.verdict_for(95, 0.01, ()) == "review"
    assert grade.verdict_for(95, 0.5, ("transposed",)) == "review"
    assert grade.verdict_for(95, 0.5, ("unlabelled",)) == "pass"
    assert grade.verdict_for(95, 0.0001, ()) == "review"  # small, but chance can do it
    assert grade.verdict_for(95, 1e-6, ()) == "fail"  # evidence of another algorithm
    assert grade.verdict_for(40, 0.5, ()) == "review"  # low quality alone is never a fail
    assert grade.verdict_for(40, 0.5, ("no-data",)) == "fail"
    assert grade.verdict_for(95, 0.5, ("copied",)) == "review"
