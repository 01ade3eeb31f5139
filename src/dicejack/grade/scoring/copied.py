"""Copies within a batch: submissions closer to each other than any two independent reference
runs ever are get the flag `copied` and name each other (docs/grading.md, "Copies"); one
student's files are never each other's copies.

Hostile batches stay cheap: identical tables are compared once (by their bytes), at most
COPY_MAX_PER_STUDENT of one student's files take part (the latest; a student is never their own
copy anyway), distances come from :func:`~dicejack.grade.evidence.copies.close_pairs` (never
N x N), and a file names at most COPY_MAX_NAMED others."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from dicejack.grade.evidence.calibration import calibration
from dicejack.grade.evidence.copies import COPY_DECIMALS, COPY_FACTOR, close_pairs
from dicejack.grade.evidence.references import References
from dicejack.grade.scoring.record import Grade
from dicejack.grade.scoring.rubric import verdict_for
from dicejack.grade.scoring.students import same_student, student_ids
from dicejack.grade.settings import Status

__all__ = ["find_copies", "mark_copies", "copy_left_out", "COPY_MAX_PER_STUDENT",
           "COPY_MAX_NAMED"]

#: Of one student's files, the latest this many take part (the others get a note).
COPY_MAX_PER_STUDENT = 16
#: A copied file names at most this many others (every one of them is flagged too).
COPY_MAX_NAMED = 20


def _owner_keys(g: Grade) -> tuple[str, ...]:
    """Whose files a file is counted among for COPY_MAX_PER_STUDENT: its LMS students, else the
    file itself (by name)."""
    return student_ids(g) or ("\0" + g.submission,)


def _taking_part(grades: Sequence[Grade], ok: list[int]) -> tuple[list[int], list[int]]:
    """The files compared (for each of its students, among their latest COPY_MAX_PER_STUDENT,
    by the LMS's order then the batch's) and the others."""
    by_owner: dict[str, list[int]] = {}
    for i in ok:
        for key in _owner_keys(grades[i]):
            by_owner.setdefault(key, []).append(i)
    left_out: set[int] = set()
    for files in by_owner.values():
        if len(files) > COPY_MAX_PER_STUDENT:
            latest = sorted(files, key=lambda i: (grades[i].order, i))
            left_out.update(latest[:-COPY_MAX_PER_STUDENT])
    return [i for i in ok if i not in left_out], sorted(left_out)


class _Partners:
    """Each file's copies found so far: the other's index and the precision they matched at,
    at most COPY_MAX_NAMED a file."""

    def __init__(self, grades: Sequence[Grade]) -> None:
        self.grades = grades
        self.names = [g.submission for g in grades]
        self.found: dict[int, dict[int, int]] = {}

    def full(self, i: int) -> bool:
        return len(self.found.get(i, ())) >= COPY_MAX_NAMED

    def add(self, a: int, b: int, d: int) -> None:
        for x, y in ((a, b), (b, a)):
            mine = self.found.setdefault(x, {})
            if y not in mine and len(mine) < COPY_MAX_NAMED:
                mine[y] = d

    def link(self, a: int, groups: list[tuple[tuple[str, ...], list[int]]],
             level: dict[int, int], d: int) -> None:
        """Pair file `a` with files of `groups` (files of one table, by owner) at precision d:
        each pair at the coarser of its two precisions, never one student's (or one file's)
        two files; stops once `a` names COPY_MAX_NAMED."""
        mine = set(student_ids(self.grades[a])) or None
        for key, files in groups:
            if (key[0].startswith("\0") and key[0][1:] == self.names[a]) or (
                    mine and mine.intersection(key)):
                continue  # the file itself (or one of its name), or one of its students' files
            for b in files:
                if self.full(a):
                    return
                if b == a or min(level[a], level[b]) != d or self.names[a] == self.names[b]:
                    continue
                if same_student(self.grades[a], self.grades[b]):
                    continue
                self.add(a, b, d)


def find_copies(refs: References, grades: Sequence[Grade]) -> list[tuple[str, ...]]:
    """For each graded submission, the others whose tables are closer to it than any two
    independent reference runs are to each other (COPY_FACTOR x the calibration's
    copy_distance), with the estimates of both rounded to COPY_DECIMALS (or the coarser printed
    precision of the two); at most COPY_MAX_NAMED of them, by batch order at the coarsest
    precision first. One student's files (a resubmission, a second file) are never each other's
    copies, and of one student's files only the latest COPY_MAX_PER_STUDENT take part
    (:func:`copy_left_out`)."""
    out: list[tuple[str, ...]] = [() for _ in grades]
    ok = [i for i, g in enumerate(grades) if g.status == Status.OK and g.probability is not None]
    threshold = COPY_FACTOR * calibration(refs).copy_distance
    if len(ok) < 2 or not np.isfinite(threshold) or threshold <= 0:
        return out
    ok, _ = _taking_part(grades, ok)
    level = {i: COPY_DECIMALS if grades[i].decimals is None
             else min(grades[i].decimals, COPY_DECIMALS) for i in ok}
    partners = _Partners(grades)
    for d in sorted(set(level.values())):
        group = [i for i in ok if level[i] >= d]  # each pair at the coarser of its two precisions
        tables: dict[bytes, int] = {}  # identical tables (at precision d) are compared once
        members: list[dict[tuple[str, ...], list[int]]] = []
        for i in group:
            rounded = np.round(np.asarray(grades[i].probability, dtype=np.float64), d)
            key = rounded.tobytes() + str(rounded.shape).encode()
            u = tables.setdefault(key, len(tables))
            if u == len(members):
                members.append({})
            members[u].setdefault(_owner_keys(grades[i]), []).append(i)
        firsts = [next(iter(m.values()))[0] for m in members]
        values = np.stack([np.round(grades[i].probability, d) for i in firsts])
        for u, v in close_pairs(values, threshold):
            for x, y in ((u, v), (v, u)) if u != v else ((u, u),):
                groups = list(members[y].items())
                for files in members[x].values():
                    for a in files:
                        partners.link(a, groups, level, d)
    for a, found in partners.found.items():
        ordered = sorted(found, key=lambda b: (found[b], b))
        out[a] = tuple(dict.fromkeys(grades[b].submission for b in ordered))
    return out


def copy_left_out(grades: Sequence[Grade]) -> list[int]:
    """The batch indexes of graded files left out of copy detection: beyond the latest
    COPY_MAX_PER_STUDENT of one student's files."""
    ok = [i for i, g in enumerate(grades) if g.status == Status.OK and g.probability is not None]
    return _taking_part(grades, ok)[1]


def mark_copies(refs: References, grades: Sequence[Grade]) -> list[Grade]:
    """The grades with `copied` flagged and `similar_to` filled (:func:`find_copies`); a copied
    submission goes to review (the verdict is the instructor's). A file left out of the
    comparison (one student's beyond the latest COPY_MAX_PER_STUDENT) says so in its notes."""
    left_out = set(copy_left_out(grades))
    out = []
    for i, (g, similar) in enumerate(zip(grades, find_copies(refs, grades), strict=True)):
        if similar:
            flags = (*g.flags, "copied") if "copied" not in g.flags else g.flags
            g = dataclasses.replace(g, flags=flags, similar_to=similar,
                                    verdict=verdict_for(g.score, g.consistency_p, flags))
        if i in left_out:
            note = (f"not compared for copies: its student has over {COPY_MAX_PER_STUDENT} "
                    "files; their latest were")
            g = dataclasses.replace(g, notes="; ".join(n for n in (g.notes, note) if n))
        out.append(g)
    return out
