"""A batch's files by student: whose files are whose (the LMS identifier; a group's members each),
which one file's grade goes out for each student (``--keep latest|best``) and which grades are
held back from the LMS for a human look first (``--lms-hold``). The rules live here once: copy
detection (a student is never their own copy), the LMS grades and the gradebook's `kept` and
`held` columns all use them."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from dicejack.grade.intake.lms_names import file_owner
from dicejack.grade.scoring.record import Grade
from dicejack.grade.settings import GradeError, Parameter, Status, Verdict

__all__ = ["KEEP", "HOLD_REASONS", "student_ids", "file_owner", "owner_ids", "same_student",
           "mark_kept", "check_hold", "mark_held"]

#: Which of a student's graded files goes out: the latest submitted (as LMSs do), or the best.
KEEP = ("latest", "best")
#: What lms_hold can hold back: verdicts, the `copied` and `late` marks, unreadable files.
HOLD_REASONS = ("review", "fail", "copied", "late", "unreadable")


def student_ids(g: Grade) -> tuple[str, ...]:
    """The identifiers of a file's students: its LMS identifier, a Gradescope group's members
    each (`;`-separated: only Gradescope names groups), or the per-student folder holding it
    (:func:`dicejack.grade.intake.inputs.collect`); () when nothing named it."""
    if not g.student:
        return ()
    if g.lms != "gradescope":
        return (g.student,)
    return tuple(s for s in g.student.split(";") if s)


def owner_ids(g: Grade) -> tuple[str, ...]:
    """Whom a file counts for: its students, else (nothing named it) the file itself, by its
    name without folder and extension (:func:`file_owner`)."""
    return student_ids(g) or (file_owner(g.submission),)


def same_student(a: Grade, b: Grade) -> bool:
    """True when an LMS names a student among both files' (a resubmission, a second file)."""
    return bool(set(student_ids(a)) & set(student_ids(b)))


def _chosen(files: Sequence[tuple[int, Grade]], keep: str) -> int:
    """The batch index of the file that goes out among one student's files."""
    graded = [(i, g) for i, g in files if g.status == Status.OK] or [
        (i, g) for i, g in files if g.status == Status.ERROR]
    if keep == "best":
        return max(graded, key=lambda ig: (ig[1].score, ig[1].order, ig[0]))[0]
    return max(graded, key=lambda ig: (ig[1].order, ig[0]))[0]


def mark_kept(grades: Sequence[Grade], keep: str = "latest") -> list[Grade]:
    """The grades with `kept` set: "yes" on the one file whose grade goes out for each student
    (`keep`: the latest, by the LMS's order of submission, then the order of the download; or
    the best score), "no" on their other graded or unreadable files; skipped files unmarked.
    A group's file is kept when it is kept for any member."""
    if keep not in KEEP:
        raise GradeError(Parameter("keep"), f" must be one of {', '.join(KEEP)}, got {keep!r}")
    by: dict[str, list[tuple[int, Grade]]] = {}
    for i, g in enumerate(grades):
        if g.status != Status.SKIPPED:
            for sid in owner_ids(g):
                by.setdefault(sid, []).append((i, g))
    kept = {_chosen(files, keep) for files in by.values()}
    return [g if g.status == Status.SKIPPED else dataclasses.replace(
        g, kept="yes" if i in kept else "no") for i, g in enumerate(grades)]


def check_hold(reasons: Iterable[str]) -> tuple[str, ...]:
    """lms_hold checked: a sequence of :data:`HOLD_REASONS` (``()`` holds nothing), each once
    (repeats dropped, order kept); GradeError (one line, naming `lms_hold` and the choices) for
    anything else, a string of text included (the command line's text is read in the cli)."""
    if isinstance(reasons, (str, bytes)) or not isinstance(reasons, Iterable):
        raise GradeError(Parameter("lms_hold"), f" must be a sequence of {', '.join(HOLD_REASONS)}"
                         f" (() holds nothing), got {reasons!r}")
    out: list[str] = []
    for word in reasons:
        if not isinstance(word, str) or word not in HOLD_REASONS:
            raise GradeError(Parameter("lms_hold"), f" takes {', '.join(HOLD_REASONS)}, got "
                             f"{word!r}")
        if word not in out:
            out.append(str(word))
    return tuple(out)


def _hold_reason(g: Grade, hold: Sequence[str]) -> str:
    if g.status == Status.ERROR:  # a row for review (a program's input not known) or unreadable
        held = [r for r in (("review",) if g.verdict == Verdict.REVIEW else ()) + ("unreadable",)
                if r in hold]
        return held[0] if held else ""
    if g.status != Status.OK:
        return ""
    reasons = [g.verdict] if g.verdict in (Verdict.REVIEW, Verdict.FAIL) else []
    reasons += ["copied"] * ("copied" in g.flags) + ["late"] * g.late
    return ", ".join(r for r in reasons if r in hold)


def mark_held(grades: Sequence[Grade], hold: Sequence[str]) -> list[Grade]:
    """The grades with `held` set to why each is held back from the LMS (its verdict, `copied`,
    `late`, `unreadable`: whichever of `hold` apply), "" when it goes out."""
    return [dataclasses.replace(g, held=_hold_reason(g, hold)) for g in grades]
