"""Copies within a batch are flagged; independent runs never are."""

from __future__ import annotations

import numpy as np
import pytest

from dicejack.grade.evidence.calibration import calibration
from dicejack.grade.evidence.copies import (
    COPY_DECIMALS,
    COPY_FACTOR,
    pairwise_distances,
    table_distance,
)
from dicejack.grade.scoring.copied import mark_copies

from .support import grade_of, tables


def test_copies_are_flagged_and_independent_runs_are_not(refs):
    outputs = [tables(seed=s) for s in range(30, 50)]
    grades = [grade_of(refs, b, p, submission=f"s{i}") for i, (b, p) in enumerate(outputs)]
    b, p = outputs[0]
    rounded = np.where(p >= 0, np.round(p, 3), -1.0)
    grades.append(grade_of(refs, b, rounded, submission="rounded copy of s0"))
    b, p = outputs[1]
    grades.append(grade_of(refs, b, p, submission="exact copy of s1"))
    marked = mark_copies(refs, grades)
    by_name = {g.submission: g for g in marked}
    assert by_name["rounded copy of s0"].similar_to == ("s0",)
    assert by_name["s0"].similar_to == ("rounded copy of s0",)
    assert by_name["exact copy of s1"].similar_to == ("s1",)
    assert "copied" in by_name["s1"].flags and by_name["s1"].verdict == "review"
    assert all(not by_name[f"s{i}"].similar_to for i in range(2, 20))
    # the threshold is below the closest pair of independent reference runs
    distance = calibration(refs).copy_distance
    assert 0 < COPY_FACTOR * distance < distance


def test_copy_distance_is_calibrated_on_independent_runs(refs):
    values = np.round(refs.values, COPY_DECIMALS)
    d = pairwise_distances(values)
    assert d[0, 1] == pytest.approx(table_distance(values[0], values[1]))
    distance = calibration(refs).copy_distance
    assert distance == pytest.approx(np.nanmin(d[np.triu_indices(30, 1)]))
    assert np.isnan(d[0, 0]) or d[0, 0] == 0
