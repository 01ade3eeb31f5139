"""What grading gives back to a learning-management system: the grades CSV a gradebook imports
(one row per student: generic, Canvas or Moodle columns) and a Gradescope autograder
``results.json`` for one submission (docs/grading.md, "Grades out"; docs/autograder.md).
Written atomically, and only over an empty file or this tool's own earlier output."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dicejack import __version__, formats
from dicejack.formats.escape import spreadsheet_cell
from dicejack.grade.evidence.references import References
from dicejack.grade.outputs.explanations import plain_summary
from dicejack.grade.outputs.output_paths import check_output_path
from dicejack.grade.outputs.terminal import report_text
from dicejack.grade.scoring.record import Grade
from dicejack.grade.scoring.rubric import (
    CONSISTENCY_POINTS,
    FLAG_HELP,
    FLAG_HINTS,
    FORMAT_POINTS,
    P_INCONSISTENT,
    QUALITY_METRICS,
    QUALITY_POINTS,
)
from dicejack.grade.scoring.students import check_hold, mark_kept, owner_ids
from dicejack.grade.settings import GradeError, Parameter, Status, Verdict

__all__ = ["LMS_FORMATS", "GENERIC_HEADER", "CANVAS_HEADER", "MOODLE_HEADER", "MAX_SCORE",
           "BLACKBOARD_HEADER", "lms_format_name", "format_mismatch",
           "GRADESCOPE_VISIBILITY", "StudentScore", "student_scores", "lms_csv", "write_lms_csv",
           "check_lms_path", "is_lms_csv", "gradescope_results", "write_gradescope",
           "check_gradescope_path", "DEFAULT_LMS_HOLD", "lms_hold_reasons"]

#: Scores are out of this many points.
MAX_SCORE = 100.0
LMS_FORMATS = ("generic", "canvas", "moodle", "blackboard")
#: --lms-format generic: one row per student, identifier first.
GENERIC_HEADER = ("student", "score", "max_score", "name", "verdict", "submissions", "note")
#: --lms-format canvas: the identifying columns of a Canvas gradebook export; the assignment's
#: column follows (its name), and a "Points Possible" row.
CANVAS_HEADER = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
#: --lms-format moodle: the columns an assignment's "Upload grading worksheet" reads (the
#: offline grading worksheet; Identifier is "Participant <number>").
MOODLE_HEADER = ("Identifier", "Full name", "Grade", "Last modified (grade)")
#: --lms-format blackboard: Grade Center's upload (Work Offline > Upload) keys rows by Username;
#: the grade column follows, "<assignment> [Total Pts: 100 Score]" (append "|<column id>" to
#: --lms-assignment to fill an existing column; without it Blackboard adds one).
BLACKBOARD_HEADER = ("Username", "Last Name", "First Name")
#: Visibility values of Gradescope's results.json (gradescope-autograders.readthedocs.io, specs).
GRADESCOPE_VISIBILITY = ("visible", "hidden", "after_due_date", "after_published")
#: results.json is written with this beginning (and only such a file is ever replaced).
_GRADESCOPE_FIRST_BYTES = b'{\n  "score": '


#: What the LMS grades hold back unless told otherwise (--lms-hold): only decided grades go out
#: by default; a review, a possible copy and an unreadable file wait for a person's look.
DEFAULT_LMS_HOLD = ("review", "copied", "unreadable")


def lms_hold_reasons(reasons: Sequence[str] | None) -> tuple[str, ...]:
    """lms_hold as the reasons to hold back: None (not given) is :data:`DEFAULT_LMS_HOLD`, ``()``
    sends every grade, else a sequence of HOLD_REASONS
    (:func:`~dicejack.grade.scoring.students.check_hold`: a one-line GradeError naming
    `lms_hold` for anything else)."""
    return DEFAULT_LMS_HOLD if reasons is None else check_hold(reasons)


@dataclass(frozen=True)
class StudentScore:
    """One student's line of the LMS grades: `score` None when no file of theirs could be
    graded or read, or their grade is held back (the LMS cell stays empty), else the score of
    their kept file (:func:`dicejack.grade.scoring.students.mark_kept`; 0 when unreadable)."""

    student: str
    name: str
    lms: str
    score: float | None
    verdict: str
    submissions: tuple[str, ...]
    note: str
    held: str = ""  # why the score is held back (--lms-hold), "" when it goes out


def student_scores(grades: Iterable[Grade], keep: str = "latest") -> list[StudentScore]:
    """One line per student, in order of first appearance: the score of the file kept for them
    (`keep`: the latest or the best; grades not yet marked are marked here), 0 for an
    unreadable file (its reason in the note), no score when their grade is held back
    (:func:`~dicejack.grade.scoring.students.mark_held`) or they have only skipped files. A group
    submission (ids `;`-separated) gives each member a line; a file with no LMS name is its own
    student, named by its file name (noted); a skipped file with no LMS name is nobody's and
    left out."""
    grades = list(grades)
    if any(g.status != Status.SKIPPED and not g.kept for g in grades):
        grades = mark_kept(grades, keep)
    by, meta = _by_student(grades)
    out = []
    for sid, rows in by.items():
        score, verdict, notes, held = _student_line(rows, keep)
        name, lms = meta[sid]
        out.append(StudentScore(sid, name, lms, score, verdict,
                                tuple(g.submission for g in rows), "; ".join(notes), held))
    return out


def _by_student(grades: Sequence[Grade]) -> tuple[dict[str, list[Grade]],
                                                   dict[str, tuple[str, str]]]:
    """Each student's grades (a group's file under each member) in order of first appearance,
    and each student's name and LMS (the first file that names them); skipped files with no
    LMS name are nobody's."""
    by: dict[str, list[Grade]] = {}
    meta: dict[str, tuple[str, str]] = {}
    for g in grades:
        if g.status == Status.SKIPPED and not g.student:
            continue  # nobody's file (system files, an export's metadata)
        ids = owner_ids(g)
        names = [n.strip() for n in g.student_name.split(";")] if g.student_name else []
        for k, sid in enumerate(ids):
            by.setdefault(sid, []).append(g)
            name = names[k] if k < len(names) else ""
            if sid not in meta or (name and not meta[sid][0]):
                meta[sid] = (name, g.lms)
    return by, meta


def _student_line(rows: Sequence[Grade],
                  keep: str) -> tuple[float | None, str, list[str], str]:
    """One student's score, verdict, notes and hold reason from their files (see
    :func:`student_scores`)."""
    graded = [g for g in rows if g.status in (Status.OK, Status.ERROR)]
    notes = []
    if not any(g.student for g in rows):
        notes.append("no LMS identifier in the file name: identified by the file name")
    elif not any(g.lms for g in rows):
        notes.append("no LMS identifier in the file name: identified by its folder's name")
    if not graded:
        notes.append("no output file: " + "; ".join(
            f"{g.submission} skipped ({g.error})" for g in rows[:3]))
        return None, "", notes, ""
    chosen = next((g for g in graded if g.kept == "yes"), graded[-1])
    score: float | None = chosen.score if chosen.status == Status.OK else 0.0
    verdict = chosen.verdict if chosen.status == Status.OK else Verdict.FAIL
    if len(graded) > 1:
        notes.append(f"{len(graded)} files: kept {chosen.submission} "
                     f"({'the best score' if keep == 'best' else 'the latest'})")
    notes += _chosen_notes(chosen)
    held = ""
    if chosen.held:
        held, score = chosen.held, None
        notes.append(f"held back for a look first: {chosen.held}")
    return score, verdict, notes, held


def _chosen_notes(chosen: Grade) -> list[str]:
    """The notes on the kept file: why it was not graded or its flags, and lateness."""
    notes = []
    if chosen.status == Status.ERROR:
        notes.append(f"not graded: {chosen.error}")
    elif chosen.flags:
        notes.append("flags: " + ";".join(chosen.flags))
    if chosen.late:
        notes.append("late")
    return notes


def _score(value: float | None) -> str:
    return "" if value is None or not math.isfinite(value) else f"{value:.1f}"


def lms_format_name(name: str) -> str:
    """lms_format in any case (``Canvas``, ``MOODLE``) as one of LMS_FORMATS; GradeError (one
    line) naming them otherwise."""
    key = str(name).strip().lower()
    if key not in LMS_FORMATS:
        raise GradeError(Parameter("lms_format"),
                         f" must be one of {', '.join(LMS_FORMATS)}, got {name!r}")
    return key


def format_mismatch(grades: Iterable[Grade], lms_format: str) -> str:
    """A one-line warning when the LMS grades CSV is for another LMS than the one whose names
    identified most of the batch's students (their identifiers would not match), else ""."""
    counts: dict[str, int] = {}
    for g in grades:
        if g.lms:
            counts[g.lms] = counts.get(g.lms, 0) + 1
    if lms_format == "generic" or not counts:
        return ""
    source = max(counts, key=lambda k: counts[k])
    if source == lms_format:
        return ""
    return (f"--lms-format {lms_format} writes {lms_format.capitalize()} identifiers, but "
            f"{counts[source]} files were named by {source.capitalize()}: the gradebook will not "
            f"match them (use --lms-format {source if source in LMS_FORMATS else 'generic'})")


def lms_csv(grades: Iterable[Grade], lms_format: str = "generic", *,
            assignment: str = "dicejack", now: dt.datetime | None = None,
            keep: str = "latest") -> str:
    """The grades as a CSV a gradebook imports, one row per student (:func:`student_scores`):

    - ``generic``: :data:`GENERIC_HEADER` (map `student` and `score` in any gradebook's import);
    - ``canvas``: :data:`CANVAS_HEADER` + `assignment`, a "Points Possible" row, then the Canvas
      user id in ID (other identifiers in SIS Login ID);
    - ``moodle``: :data:`MOODLE_HEADER`, Identifier "Participant <number>" for Moodle files,
      the time of writing (`now`) as the grade's last modification;
    - ``blackboard``: :data:`BLACKBOARD_HEADER` + "`assignment` [Total Pts: 100 Score]", the
      Blackboard user name in Username.

    A held-back grade (:func:`~dicejack.grade.scoring.students.mark_held`) leaves its cell empty.
    """
    lms_format = lms_format_name(lms_format)
    rows = student_scores(grades, keep)
    buffer = io.StringIO()
    w = csv.writer(buffer, lineterminator="\n")
    if lms_format == "generic":
        w.writerow(GENERIC_HEADER)
        for r in rows:
            w.writerow([spreadsheet_cell(r.student), _score(r.score), f"{MAX_SCORE:.0f}",
                        spreadsheet_cell(r.name), r.verdict,
                        spreadsheet_cell(";".join(r.submissions)), spreadsheet_cell(r.note)])
    elif lms_format == "canvas":
        w.writerow([*CANVAS_HEADER, spreadsheet_cell(assignment)])
        w.writerow(["Points Possible", "", "", "", "", f"{MAX_SCORE:.0f}"])
        for r in rows:
            canvas = r.lms == "canvas"
            w.writerow([spreadsheet_cell(r.name or r.student), r.student if canvas else "", "",
                        "" if canvas else spreadsheet_cell(r.student), "", _score(r.score)])
    elif lms_format == "blackboard":
        w.writerow([*BLACKBOARD_HEADER,
                    spreadsheet_cell(f"{assignment} [Total Pts: {MAX_SCORE:.0f} Score]")])
        for r in rows:  # Blackboard's download names no one: the names stay empty
            w.writerow([spreadsheet_cell(r.student), "", "", _score(r.score)])
    else:
        stamp = (now or dt.datetime.now()).strftime("%Y-%m-%d %H:%M:%S")
        w.writerow(MOODLE_HEADER)
        for r in rows:
            ident = f"Participant {r.student}" if r.lms == "moodle" else spreadsheet_cell(r.student)
            w.writerow([ident, spreadsheet_cell(r.name), _score(r.score), stamp])
    return buffer.getvalue()


def _csv_line(row: Sequence[str]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(row)
    return buffer.getvalue()


def is_lms_csv(head: bytes) -> bool:
    """True when `head` (a file's first bytes) begins an LMS grades CSV this tool writes, in any
    format and for any assignment name: the generic or Moodle header line exactly, or the
    Canvas header (its five columns and one assignment column) followed by our "Points
    Possible" line (a Canvas gradebook export has more columns and is never taken for ours)."""
    text = head.decode("utf-8", "replace")
    if text.startswith((_csv_line(GENERIC_HEADER), _csv_line(MOODLE_HEADER))):
        return True
    first_line = text.split("\n", 1)[0]
    try:
        first_cells = next(csv.reader([first_line]))
    except (csv.Error, StopIteration):
        first_cells = []
    if (tuple(first_cells[:3]) == BLACKBOARD_HEADER and len(first_cells) == 4
            and first_cells[3].endswith(f" [Total Pts: {MAX_SCORE:.0f} Score]")):
        return True
    lines = text.split("\n", 2)
    if len(lines) < 3:
        return False
    try:
        first, second = (next(csv.reader([line])) for line in lines[:2])
    except (csv.Error, StopIteration):
        return False
    return (tuple(first[:5]) == CANVAS_HEADER and len(first) == 6
            and second == ["Points Possible", "", "", "", "", f"{MAX_SCORE:.0f}"])


def check_lms_path(path: Path | None, inputs: Sequence[str | os.PathLike[str] | bytes] = ()
                   ) -> None:
    """Refuse --lms-csv before any work
    (:func:`~dicejack.grade.outputs.output_paths.check_output_path`): an
    existing file is replaced only when empty or an earlier LMS CSV of this tool
    (:func:`is_lms_csv`, whatever the assignment was called)."""
    check_output_path(path, option="lms_csv", what="a dicejack LMS grades CSV",
                      recognise=is_lms_csv, inputs=inputs,
                      hint="give a file name such as grades.csv")


def write_lms_csv(path: str | os.PathLike[str], grades: Iterable[Grade],
                  lms_format: str = "generic", *, assignment: str = "dicejack",
                  keep: str = "latest") -> None:
    """Write :func:`lms_csv` atomically."""
    formats.write_atomic(path, lms_csv(grades, lms_format, assignment=assignment, keep=keep))


# ------------------------------------------------------------------------- Gradescope
#: Flags a Gradescope test other than the format one explains (or the output, for copies).
_NOT_FORMAT = frozenset({"inconsistent", "untestable", "low-quality", "copied"})


def _num(value: float) -> float | None:
    """A JSON number, 6 significant digits (None for NaN or infinity: valid JSON)."""
    return float(f"{value:.6g}") if value is not None and math.isfinite(value) else None


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _fmt(value: float, spec: str = ".4f") -> str:
    return format(value, spec) if value is not None and math.isfinite(value) else "n/a"


def gradescope_results(refs: References | None, g: Grade, *, visibility: str = "visible",
                       skipped: Sequence[Grade] = ()) -> dict[str, Any]:
    """Gradescope's autograder results for one submission: ``score`` and ``max_score`` (out of
    100), ``output`` (the verdict, what it means and what to check first), ``tests``: the rubric's
    parts (format, each quality metric, consistency), each with ``name``, ``score``,
    ``max_score``, ``output`` and ``visibility`` (:data:`GRADESCOPE_VISIBILITY`); and
    ``extra_data`` (verdict, flags, p-value, dicejack's version). `skipped`: files found beside
    it that were not graded (named in the output). An unreadable submission scores 0 in every
    test, the reason in the output."""
    if visibility not in GRADESCOPE_VISIBILITY:
        raise GradeError(Parameter("gradescope_visibility"), " must be one of "
                         f"{', '.join(GRADESCOPE_VISIBILITY)}, got {visibility!r}")
    ok = g.status == Status.OK and g.consistency is not None
    per_metric = QUALITY_POINTS / len(QUALITY_METRICS)

    def test(name: str, score: float, max_score: float, output: str) -> dict[str, Any]:
        return {"name": name, "score": round(score, 2), "max_score": round(max_score, 2),
                "status": "passed" if score >= max_score - 1e-9 else "failed",
                "output": output, "visibility": visibility}

    tests = []
    if ok:
        def explained(names: Iterable[str]) -> str:
            return "\n".join(f"{f}: {FLAG_HELP.get(f, 'reported by the reader')}."
                             + (f" {_sentence(FLAG_HINTS[f])}" if f in FLAG_HINTS else "")
                             for f in names)

        fmt_flags = [f for f in g.flags if f not in _NOT_FORMAT]
        tests.append(test("Format: the two tables are readable", g.points["format"],
                          FORMAT_POINTS, f"Layout read: {g.layout or 'unknown'}. "
                          + (explained(fmt_flags) if fmt_flags else "No format problems.")))
        for name, _, _ in QUALITY_METRICS:
            lo, med, hi = refs.quantile(name, [0.05, 0.5, 0.95], g.decimals) if refs else (
                math.nan,) * 3
            tests.append(test(
                f"Quality: {name}", g.metric_points.get(name, 0.0), per_metric,
                f"Yours: {_fmt(g.metrics.get(name, math.nan))}; the handout's algorithm at these "
                f"settings: median {_fmt(med)}, 5%..95% of runs {_fmt(lo)}..{_fmt(hi)}; yours is "
                f"as good as {_fmt(g.percentiles.get(name, math.nan), '.0f')}% of its runs."))
        c = g.consistency
        why = [f for f in g.flags if f in ("inconsistent", "untestable")]
        tests.append(test(
            "Consistency with the handout's algorithm", g.points["consistency"],
            CONSISTENCY_POINTS,
            f"p-value {_fmt(c.p_value, '.3g')} (below {P_INCONSISTENT:.3f} is unusual for a "
            f"correct program); statistic T = {_fmt(c.statistic)} over {c.usable} usable states."
            + ("\n" + explained(why) if why else "")))
        output = report_text(refs, g) if refs is not None else plain_summary(g)
    else:
        reason = g.error or "not graded"
        tests.append(test("Format: the two tables are readable", 0.0, FORMAT_POINTS, reason))
        for name, _, _ in QUALITY_METRICS:
            tests.append(test(f"Quality: {name}", 0.0, per_metric, "not graded"))
        tests.append(test("Consistency with the handout's algorithm", 0.0, CONSISTENCY_POINTS,
                          "not graded"))
        what = "was skipped" if g.status == Status.SKIPPED else "could not be graded"
        output = (f"Your file {g.submission} {what}: {reason}.\nUpload one text file holding "
                  "exactly what your program printed: the two tables (best number of dice, win "
                  "probability; -1 where there is no data).")
    if skipped:
        output += "\nOther files not graded: " + "; ".join(
            f"{s.submission} ({s.error})" for s in skipped) + "."
    return {
        "score": round(float(g.score), 1) if ok else 0.0,
        "max_score": MAX_SCORE,
        "output": output,
        "output_format": "text",
        "visibility": visibility,
        "tests": tests,
        "extra_data": {"verdict": str(g.verdict or Verdict.FAIL), "flags": list(g.flags),
                       "consistency_p": _num(g.consistency_p) if ok else None,
                       "submission": g.submission, "student": g.student,
                       "dicejack": __version__},
    }


def check_gradescope_path(path: Path | None,
                          inputs: Sequence[str | os.PathLike[str] | bytes] = ()) -> None:
    """Refuse --gradescope before any work: an existing file is replaced only when empty or an
    earlier results.json of this tool."""
    check_output_path(path, option="gradescope", what="a dicejack results.json",
                      ours=(_GRADESCOPE_FIRST_BYTES,), inputs=inputs,
                      hint="give a file name such as /autograder/results/results.json")


def write_gradescope(path: str | os.PathLike[str], refs: References | None,
                     grades: Sequence[Grade], *, visibility: str = "visible") -> None:
    """Write :func:`gradescope_results` atomically, for the one submission among `grades` (the
    others must be skipped files; with none, the first skipped file is reported)."""
    graded = [g for g in grades if g.status != Status.SKIPPED]
    skipped = [g for g in grades if g.status == Status.SKIPPED]
    if len(graded) > 1:
        raise GradeError(Parameter("gradescope"),
                         f" grades one submission; found {len(graded)}")
    if not graded and not skipped:
        raise GradeError(Parameter("gradescope"), ": no submission found")
    target = graded[0] if graded else skipped[0]
    others = [s for s in skipped if s is not target]
    text = json.dumps(gradescope_results(refs, target, visibility=visibility, skipped=others),
                      indent=2, ensure_ascii=False, allow_nan=False)
    formats.write_atomic(path, text + "\n")
