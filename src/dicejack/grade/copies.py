"""Copies within a batch: learned tables are random, so two independent runs never agree closely;
submissions closer to each other than any two independent reference runs ever are get the flag
`copied` and name each other (docs/grading.md, "Copies")."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from dicejack.grade.record import Grade
from dicejack.grade.rubric import verdict_for
from dicejack.grade.students import same_student

if TYPE_CHECKING:  # pragma: no cover
    from dicejack.grade.references import References

__all__ = ["pairwise_distances", "table_distance", "find_copies", "mark_copies",
           "COPY_DECIMALS", "COPY_MIN_STATES", "COPY_FACTOR"]

#: Tables are compared with their estimates rounded to this many decimals ...
COPY_DECIMALS = 3
#: ... over at least this many states where either has an estimate above 0 ...
COPY_MIN_STATES = 5
#: ... and flagged `copied` when closer than this share of the closest two reference runs.
COPY_FACTOR = 0.5


def pairwise_distances(values: np.ndarray) -> np.ndarray:
    """(N, N) :func:`table_distance` between N graded value tables (N, L, L), in blocks."""
    n = values.shape[0]
    flat = values.reshape(n, -1)
    out = np.full((n, n), np.nan)
    step = max(1, 2_000_000 // max(1, n * flat.shape[1]))
    for start in range(0, n, step):
        a = flat[start:start + step, None, :]
        either = (a > 0) | (flat[None, :, :] > 0)
        count = either.sum(axis=-1)
        diff = np.where(either, np.abs(a - flat[None, :, :]), 0.0).sum(axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start:start + step] = np.where(count >= COPY_MIN_STATES, diff / count, np.nan)
    return out


def table_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Mean |a - b| of two graded value tables over the states where either has an estimate
    above 0 (NaN when fewer than COPY_MIN_STATES such states)."""
    return float(pairwise_distances(np.stack([a, b]))[0, 1])


def find_copies(refs: References, grades: Sequence[Grade]) -> list[tuple[str, ...]]:
    """For each graded submission, the others whose tables are closer to it than any two
    independent reference runs are to each other (COPY_FACTOR x refs.copy_distance), with the
    estimates of both rounded to COPY_DECIMALS (or the coarser printed precision of the two).
    One student's files (a resubmission, a second file) are never each other's copies."""
    names = [g.submission for g in grades]
    out: list[list[str]] = [[] for _ in grades]
    ok = [i for i, g in enumerate(grades) if g.status == "ok" and g.probability is not None]
    threshold = COPY_FACTOR * refs.copy_distance
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
