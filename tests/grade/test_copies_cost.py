"""Copy detection stays linear for hostile batches (issue 39): identical tables are compared once,
one student's many files never make an N x N matrix, a file names at most COPY_MAX_NAMED others;
and it finds what comparing every pair finds."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dicejack import grade
from dicejack.grade.evidence import copies
from dicejack.grade.evidence.calibration import calibration
from dicejack.grade.evidence.copies import COPY_DECIMALS, COPY_FACTOR, table_distance
from dicejack.grade.scoring.copied import (
    COPY_MAX_NAMED,
    COPY_MAX_PER_STUDENT,
    find_copies,
    mark_copies,
)
from dicejack.grade.scoring.students import same_student

from .support import grade_of, tables


@pytest.fixture
def computed(refs, monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """The (rows, columns) of every block of distances computed; N x N refused (the reference
    runs' own calibration, computed lazily, is done before)."""
    assert calibration(refs).copy_distance > 0
    shapes: list[tuple[int, int]] = []
    real = copies._distance_rows

    def counting(rows, flat):
        shapes.append((rows.shape[0], flat.shape[0]))
        return real(rows, flat)

    def refused(values):
        raise AssertionError(f"pairwise_distances of {values.shape[0]} tables")

    monkeypatch.setattr(copies, "_distance_rows", counting)
    monkeypatch.setattr(copies, "pairwise_distances", refused)
    return shapes


def _copies(g: grade.Grade, n: int, prefix: str, student: str, noise: float = 0.0,
            ) -> list[grade.Grade]:
    rng = np.random.default_rng(1)
    out = []
    for i in range(n):
        prob = g.probability
        if noise:
            prob = np.where(prob > 0, np.clip(prob + rng.uniform(-noise, noise, prob.shape),
                                              0.0001, 1), prob)
        out.append(dataclasses.replace(g, submission=f"{prefix}{i:05d}.txt", student=student,
                                       order=f"{i:05d}", probability=prob))
    return out


def test_thousands_of_copies_in_one_students_zip_are_compared_once(refs, computed) -> None:
    b, p = tables(seed=30)
    g = grade_of(refs, b, p, submission="x")
    batch = _copies(g, 3000, "a", "111") + _copies(g, 1, "b", "222")
    marked = mark_copies(refs, batch)
    assert sum(r * c for r, c in computed) == 1  # one distinct table
    assert marked[-1].similar_to == tuple(f"a{i:05d}.txt" for i in range(2984, 3000))
    assert all(m.similar_to == ("b00000.txt",) for m in marked[2984:3000])
    assert not any(m.similar_to for m in marked[:2984])
    assert "not compared for copies" in marked[0].notes
    assert "not compared" not in marked[2999].notes


def test_distinct_near_copies_of_one_student_are_capped(refs, computed) -> None:
    """3,000 perturbed tables of one student: only their latest take part (not 3,000^2)."""
    b, p = tables(seed=31)
    g = grade_of(refs, b, p, submission="x")
    batch = _copies(g, 3000, "a", "111", noise=1e-4) + _copies(g, 1, "b", "222")
    found = find_copies(refs, batch)
    cells = sum(r * c for r, c in computed)
    assert cells <= (COPY_MAX_PER_STUDENT + 1) ** 2
    assert len(found[-1]) == COPY_MAX_PER_STUDENT


def test_identical_files_without_lms_names_name_at_most_a_few(refs, computed) -> None:
    b, p = tables(seed=32)
    g = grade_of(refs, b, p, submission="x")
    batch = [dataclasses.replace(g, submission=f"c{i}.txt") for i in range(3000)]
    found = find_copies(refs, batch)
    assert sum(r * c for r, c in computed) == 1
    assert all(len(f) == COPY_MAX_NAMED for f in found)
    assert all(f"c{i}.txt" not in f for i, f in enumerate(found))


def _every_pair(refs, grades) -> list[tuple[str, ...]]:
    """Copies by comparing every pair (the definition), for small batches."""
    out: list[list[str]] = [[] for _ in grades]
    threshold = COPY_FACTOR * calibration(refs).copy_distance
    level = [COPY_DECIMALS if g.decimals is None else min(g.decimals, COPY_DECIMALS)
             for g in grades]
    pairs = []
    for a in range(len(grades)):
        for b in range(a + 1, len(grades)):
            d = min(level[a], level[b])
            dist = table_distance(np.round(grades[a].probability, d),
                                        np.round(grades[b].probability, d))
            same = grades[a].submission == grades[b].submission or \
                same_student(grades[a], grades[b])
            if dist < threshold and not same:
                pairs.append((d, a, b))
    for _, a, b in sorted(pairs):
        out[a].append(grades[b].submission)
        out[b].append(grades[a].submission)
    return [tuple(dict.fromkeys(o)) for o in out]


def test_copies_are_those_of_comparing_every_pair(refs) -> None:
    outputs = [tables(seed=s) for s in range(40, 52)]
    grades = [grade_of(refs, b, p, submission=f"s{i}") for i, (b, p) in enumerate(outputs)]
    b, p = outputs[0]
    rounded = np.where(p >= 0, np.round(p, 2), -1.0)
    grades.append(grade_of(refs, b, rounded, submission="2 decimals of s0"))
    grades.append(dataclasses.replace(grades[1], submission="s1 again"))
    grades.append(dataclasses.replace(grades[1], submission="s1 by 7", student="7"))
    grades.append(dataclasses.replace(grades[1], submission="s1 by 7 too", student="7"))
    grades.append(dataclasses.replace(grades[1], submission="s1 by 7;8", student="7;8"))
    grades.append(dataclasses.replace(grades[2], submission="s2 by 8", student="8"))
    grades.append(dataclasses.replace(grades[2], submission="s2 by 9", student="9"))
    grades.append(grades[3])  # the same file given twice
    expected = _every_pair(refs, grades)
    assert any(expected) and not all(expected)
    assert find_copies(refs, grades) == expected
