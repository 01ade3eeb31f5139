"""Copies within a batch: submissions closer to each other than any two independent reference
runs ever are get the flag `copied` and name each other (docs/grading.md, "Copies"); one
student's files are never each other's copies."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from dicejack.grade.evidence.calibration import calibration
from dicejack.grade.evidence.copies import COPY_DECIMALS, COPY_FACTOR, pairwise_distances
from dicejack.grade.evidence.references import References
from dicejack.grade.scoring.record import Grade
from dicejack.grade.scoring.rubric import verdict_for
from dicejack.grade.scoring.students import same_student
from dicejack.grade.settings import Status

__all__ = ["find_copies", "mark_copies"]


def find_copies(refs: References, grades: Sequence[Grade]) -> list[tuple[str, ...]]:
    """For each graded submission, the others whose tables are closer to it than any two
    independent reference runs are to each other (COPY_FACTOR x the calibration's
    copy_distance), with the
    estimates of both rounded to COPY_DECIMALS (or the coarser printed precision of the two).
    One student's files (a resubmission, a second file) are never each other's copies."""
    names = [g.submission for g in grades]
    out: list[list[str]] = [[] for _ in grades]
    ok = [i for i, g in enumerate(grades) if g.status == Status.OK and g.probability is not None]
    threshold = COPY_FACTOR * calibration(refs).copy_distance
    if len(ok) < 2 or not np.isfinite(threshold) or threshold <= 0:
        return [tuple(s) for s in out]
    level = {i: COPY_DECIMALS if grades[i].decimals is None
             else min(grades[i].decimals, COPY_DECIMALS) for i in ok}
    for d in sorted(set(level.values())):
        group = [i for i in ok if level[i] >= d]  # each pair at the coarser of its two precisions
        dist = pairwise_distances(np.stack([np.round(grades[i].probability, d) for i in group]))
        levels = np.array([level[i] for i in group])
        close = np.triu((dist < threshold) & (np.minimum.outer(levels, levels) == d), 1)
        for a, b in zip(*np.nonzero(close), strict=True):
            if names[group[a]] == names[group[b]] or same_student(grades[group[a]],
                                                                  grades[group[b]]):
                continue  # the same file given twice, or one student's two files
            out[group[a]].append(names[group[b]])
            out[group[b]].append(names[group[a]])
    return [tuple(dict.fromkeys(s)) for s in out]


def mark_copies(refs: References, grades: Sequence[Grade]) -> list[Grade]:
    """The grades with `copied` flagged and `similar_to` filled (:func:`find_copies`); a copied
    submission goes to review (the verdict is the instructor's)."""
    out = []
    for g, similar in zip(grades, find_copies(refs, grades), strict=True):
        if similar:
            flags = (*g.flags, "copied") if "copied" not in g.flags else g.flags
            g = dataclasses.replace(g, flags=flags, similar_to=similar,
                                    verdict=verdict_for(g.score, g.consistency_p, flags))
        out.append(g)
    return out
