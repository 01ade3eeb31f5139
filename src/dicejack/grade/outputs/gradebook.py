"""The gradebook: its CSV (docs/design/formats.md's columns), its rows as plain values for a
DataFrame, written atomically; and the check of its path (replacing only an earlier
gradebook)."""
from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from dicejack import formats
from dicejack.formats.escape import spreadsheet_cell
from dicejack.grade.outputs.output_paths import check_output_path
from dicejack.grade.scoring.record import Grade
from dicejack.grade.settings import Status

__all__ = ["GRADEBOOK_HEADER", "gradebook_csv", "gradebook_records", "write_gradebook",
           "check_gradebook_path"]


#: The gradebook's header, exactly as in docs/design/formats.md (columns are only ever added at
#: the end).
GRADEBOOK_HEADER: tuple[str, ...] = (
    "submission", "status", "score", "verdict", "consistency_p", "agreement_decisive",
    "rmse_onpath", "score_vs_optimal", "layout", "flags", "error", "similar_to", "student",
    "exploitability", "late", "kept", "held", "likely_cause",
)


#: Headers of earlier versions: such a gradebook is still this tool's own, and replaceable.
_EARLIER_HEADERS: tuple[tuple[str, ...], ...] = (
    GRADEBOOK_HEADER[:-6], GRADEBOOK_HEADER[:-5], GRADEBOOK_HEADER[:-4], GRADEBOOK_HEADER[:-1])


_GRADEBOOK_FIRST_LINES = tuple((",".join(h) + "\n").encode()
                               for h in (GRADEBOOK_HEADER, *_EARLIER_HEADERS))


def check_gradebook_path(
    out: Path | None, inputs: Sequence[str | os.PathLike[str] | bytes] = ()
) -> None:
    """:func:`check_output_path` for the gradebook (`out`): an existing file is replaced only
    when empty or a previous gradebook (its first line is :data:`GRADEBOOK_HEADER`, or an
    earlier version's)."""
    check_output_path(out, option="out", what="a dicejack gradebook",
                      ours=_GRADEBOOK_FIRST_LINES, inputs=inputs,
                      hint="give a file name such as gradebook.csv")


def _num(value: float, fmt: str) -> str:
    return format(value, fmt) if value is not None and np.isfinite(value) else ""


#: How the gradebook CSV prints its number columns (the others are text).
_NUMBER_FORMATS = {"score": ".1f", "consistency_p": ".4g", "agreement_decisive": ".4f",
                   "rmse_onpath": ".4f", "score_vs_optimal": ".4f", "exploitability": ".4f"}


def gradebook_csv(grades: Iterable[Grade]) -> str:
    """The gradebook: docs/design/formats.md's header, one row per file (a skipped one: status
    ``skipped``, no score or verdict, the reason in `error`); the cells of
    :func:`gradebook_records`."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(GRADEBOOK_HEADER)
    for row in gradebook_records(grades):
        writer.writerow([
            _num(row[k], _NUMBER_FORMATS[k]) if k in _NUMBER_FORMATS else
            row[k] if k == "status" else spreadsheet_cell(row[k]) for k in GRADEBOOK_HEADER])
    return buffer.getvalue()


def gradebook_records(grades: Iterable[Grade], metrics: bool = False) -> list[dict[str, object]]:
    """The gradebook's rows as plain values (for a DataFrame): the :data:`GRADEBOOK_HEADER`
    columns, numbers as floats (NaN where the CSV is empty), flags and similar_to `;`-joined;
    with `metrics`, every compare metric after them and the student's name and LMS."""
    rows = []
    for g in grades:
        ok = g.status == Status.OK
        row: dict[str, object] = {
            "submission": g.submission, "status": g.status,
            "score": float(g.score) if g.status != Status.SKIPPED else math.nan,
            "verdict": g.verdict, "consistency_p": float(g.consistency_p) if ok else math.nan,
        }
        for name in ("agreement_decisive", "rmse_onpath", "score_vs_optimal"):
            row[name] = float(g.metrics.get(name, math.nan))
        row.update(layout=g.layout, flags=";".join(g.flags), error=g.error,
                   similar_to=";".join(g.similar_to), student=g.student,
                   exploitability=float(g.metrics.get("exploitability", math.nan)),
                   late="yes" if g.late else "", kept=g.kept, held=g.held,
                   likely_cause=g.cause)
        if metrics:
            row.update(student_name=g.student_name, lms=g.lms)
            for name, value in g.metrics.items():
                row.setdefault(name, float(value))
        rows.append(row)
    return rows


def write_gradebook(path: str | os.PathLike[str], grades: Iterable[Grade]) -> None:
    """Write the gradebook atomically."""
    formats.write_atomic(path, gradebook_csv(grades))
