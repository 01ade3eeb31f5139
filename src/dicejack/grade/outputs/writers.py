"""What grading writes for people: the gradebook CSV (and its records for a DataFrame), the
terminal summary, a student's terminal report, and one Markdown report (with a heatmap PNG from
:mod:`dicejack.figures`) per submission under a safe name; and the one check of an output path
(never a submission, never a file this tool did not write), made before any work."""

from __future__ import annotations

import csv
import hashlib
import io
import math
import os
import re
import stat
import textwrap
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

from dicejack import compare, figures, formats
from dicejack.compare.metrics import state_classes
from dicejack.formats.atomic import check_output_file, ensure_output_folder
from dicejack.formats.escape import markdown_code, markdown_text, safe_text, spreadsheet_cell
from dicejack.grade.evidence.consistency import Consistency
from dicejack.grade.evidence.references import References
from dicejack.grade.intake.inputs import resolved_path
from dicejack.grade.intake.skip_rules import REPORT_FIRST_BYTES
from dicejack.grade.scoring.record import Grade
from dicejack.grade.scoring.rubric import (
    ALPHA_PRINT,
    CONSISTENCY_POINTS,
    FLAG_DEDUCTIONS,
    FLAG_HELP,
    FLAG_HINTS,
    FORMAT_POINTS,
    P_INCONSISTENT,
    P_REVIEW,
    PRINT_RULE_FLAGS,
    QUALITY_METRICS,
    QUALITY_POINTS,
    SCORE_STANDS,
)
from dicejack.grade.settings import GradeError, GradeWarning, Parameter, Status, Verdict
from dicejack.runtime import parallel

__all__ = ["GRADEBOOK_HEADER", "gradebook_csv", "gradebook_records", "write_gradebook",
           "summary_text", "report_names", "plain_summary", "format_points_taken",
           "report_markdown", "report_text",
           "write_reports", "check_gradebook_path", "check_output_path",
           "prepare_reports_folder", "same_as_any", "quality_rows", "REVIEW_BELOW"]

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


class _Inputs:
    """The submissions, by resolved path and by (device, inode), to recognise any spelling or
    link of one of them."""

    def __init__(self, inputs: Iterable[str | os.PathLike[str] | bytes]) -> None:
        self.by_path: dict[Path, str] = {}
        self.by_inode: dict[tuple[int, int], str] = {}
        for item in inputs:
            resolved = resolved_path(item)
            if resolved is None:
                continue
            self.by_path.setdefault(resolved, str(item))
            try:
                st = os.stat(resolved)
            except (OSError, ValueError):
                continue
            self.by_inode.setdefault((st.st_dev, st.st_ino), str(item))

    def match(self, path: Path) -> str | None:
        resolved = resolved_path(path)
        if resolved is not None and resolved in self.by_path:
            return self.by_path[resolved]
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            return None
        return self.by_inode.get((st.st_dev, st.st_ino))


def same_as_any(path: Path, inputs: Iterable[str | os.PathLike[str] | bytes]) -> str | None:
    """The first of `inputs` that is `path` under another spelling or link (equal resolved
    paths, or the same file: os.path.samefile), else None."""
    return _Inputs(inputs).match(path)


def _head(path: Path, size: int) -> bytes | None:
    """The first `size` bytes of `path` when it is a regular file (read without blocking;
    nothing else is read), else None."""
    try:
        if not path.is_file():
            return None
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        try:
            return os.read(fd, size)
        finally:
            os.close(fd)
    except (OSError, ValueError):
        return None


def _starts_with(path: Path, prefix: bytes) -> bool:
    """True when `path` is a regular file whose content starts with `prefix`."""
    head = _head(path, len(prefix))
    return head is not None and head == prefix


_GRADEBOOK_FIRST_LINES = tuple((",".join(h) + "\n").encode()
                               for h in (GRADEBOOK_HEADER, *_EARLIER_HEADERS))


def check_output_path(
    out: Path | None, *, option: str, what: str, ours: Sequence[bytes] = (),
    inputs: Sequence[str | os.PathLike[str] | bytes] = (), hint: str = "",
    recognise: Callable[[bytes], bool] | None = None,
) -> None:
    """Refuse an output path before any work: one that cannot be written (a folder, a missing
    folder: :func:`dicejack.formats.check_output_file`), one that is a submission of `inputs`
    (by any spelling or link), and an existing file that is not empty and does not start with
    one of `ours` (the first bytes this tool writes there) nor is recognised by `recognise`
    (given its first 64 KiB): a run replaces only its own previous output."""
    if out is None:
        return
    try:
        check_output_file(out, option=option, hint=hint or None)
    except formats.FormatError as exc:
        raise _named(option, str(exc)) from None
    clash = same_as_any(out, inputs)
    if clash is not None:
        raise GradeError(Parameter(option), f" {out} is the submission {clash}; grading never "
                         "replaces a submission: give another ", Parameter(option))
    try:
        st = out.stat() if out.exists() or out.is_symlink() else None
    except (OSError, ValueError):
        st = None
    if st is None:
        return
    if not stat.S_ISREG(st.st_mode):
        raise GradeError(Parameter(option), f" {out} exists and is not a regular file; give "
                         "another ", Parameter(option))
    if st.st_size and not any(_starts_with(out, first) for first in ours) and not (
            recognise is not None and recognise(_head(out, 2**16) or b"")):
        raise GradeError(Parameter(option), f" {out} exists and is not {what}; move it away or "
                         "give another ", Parameter(option))


def _named(option: str, message: str) -> GradeError:
    """A GradeError of `message` (formats' words for a path given as `option`), the option
    marked as the parameter it is where the message names it first."""
    if message.startswith(option + " "):
        return GradeError(Parameter(option), message[len(option):])
    return GradeError(message)


def check_gradebook_path(
    out: Path | None, inputs: Sequence[str | os.PathLike[str] | bytes] = ()
) -> None:
    """:func:`check_output_path` for the gradebook (`out`): an existing file is replaced only
    when empty or a previous gradebook (its first line is :data:`GRADEBOOK_HEADER`, or an
    earlier version's)."""
    check_output_path(out, option="out", what="a dicejack gradebook",
                      ours=_GRADEBOOK_FIRST_LINES, inputs=inputs,
                      hint="give a file name such as gradebook.csv")


def prepare_reports_folder(folder: Path | None) -> None:
    """Create the reports folder, or refuse it (:func:`dicejack.formats.ensure_output_folder`)."""
    if folder is not None:
        try:
            ensure_output_folder(folder, option="reports", what="reports folder")
        except formats.FormatError as exc:
            raise _named("reports", str(exc)) from None


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


def _middle(text: str, width: int) -> str:
    """`text` in at most `width` characters, shortened in the middle (``abc...xyz``): both the
    start (a student's name) and the end (the file name) stay readable."""
    if len(text) <= width:
        return text
    head = (width - 3 + 1) // 2
    return text[:head] + "..." + text[len(text) - (width - 3 - head):]


def _plural(n: int, word: str, words: str | None = None) -> str:
    return f"{n} {word if n == 1 else words or word + 's'}"


#: The terminal's note on a file whose student has another file whose grade goes out.
EARLIER = "earlier attempt: not counted"


def summary_text(grades: Sequence[Grade]) -> str:
    """A plain table for the terminal: one line per file (the student first, then the file's
    name shortened in the middle; a file or program that could not be graded reads `fail`, as
    in the gradebook, its reason after it), then counts that add up to the files counted: each
    student's kept file once, as the class page counts them (an earlier attempt, kept "no",
    is listed and said not counted)."""
    names = [safe_text(g.submission) for g in grades]
    who = [safe_text(g.who) for g in grades]
    show_who = any(who)
    who_width = min(max([len(w) for w in who] + [7]), 24)
    width = min(max([len(n) for n in names] + [10]), 48)
    head = f"{'student':<{who_width}}  " if show_who else ""
    lines = [f"{head}{'submission':<{width}}  {'score':>5}  {'verdict':<10}  {'p':>8}  "
             "flags / error"]
    for g, name, student in zip(grades, names, who, strict=True):
        p = _num(g.consistency_p, ".2g") if g.status == Status.OK else ""
        tail = (";".join([*g.flags, *([f"likely: {g.cause}"] if g.cause else [])])
                if g.status == Status.OK else
                f"skipped: {g.error}" if g.status == Status.SKIPPED else f"error: {g.error}")
        if g.kept == "no" and g.status != Status.SKIPPED:
            tail = f"{tail}; {EARLIER}" if tail else EARLIER
        score = f"{g.score:5.1f}" if g.status != Status.SKIPPED else f"{'':5}"
        verdict = g.verdict  # one word per outcome: the gradebook's (an error row is a fail)
        first = f"{_middle(student, who_width):<{who_width}}  " if show_who else ""
        lines.append(f"{first}{_middle(name, width):<{width}}  {score}  {verdict:<10}  "
                     f"{p:>8}  {safe_text(tail)}")
    counted = [g for g in grades if g.status != Status.SKIPPED and g.kept != "no"]
    counts = {v: sum(1 for g in counted if g.verdict == v)
              for v in (Verdict.PASS, Verdict.REVIEW, Verdict.FAIL)}
    errors = sum(1 for g in counted if g.status == Status.ERROR)
    skipped = sum(1 for g in grades if g.status == Status.SKIPPED)
    earlier = sum(1 for g in grades if g.status != Status.SKIPPED and g.kept == "no")
    graded = len(counted)
    tail = (f" ({_plural(earlier, 'earlier attempt')} listed apart, not counted)" if earlier
            else "")
    tail += f" ({_plural(skipped, 'other file')} skipped)" if skipped else ""
    lines.append(f"{_plural(graded, 'submission')}: {counts['pass']} pass, {counts['review']} "
                 f"review, {counts['fail']} fail ({errors} of them could not be graded){tail}")
    return "\n".join(lines) + "\n"


_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def report_names(submissions: Sequence[str]) -> list[str]:
    """A distinct, safe file stem per submission: its file name, with its folder's name in front
    when two submissions share a file name (alice/out.txt -> alice__out.txt); only
    [A-Za-z0-9._-], no leading dot, at most 80 characters (a hash keeps long names apart), so no
    name can leave the reports folder."""

    parts = [[p for p in re.split(r"[\\/]+", str(sub)) if p not in ("", ".", "..")]
             for sub in submissions]
    base_count: dict[str, int] = {}
    for p in parts:
        key = p[-1].lower() if p else ""
        base_count[key] = base_count.get(key, 0) + 1
    names: list[str] = []
    taken: set[str] = set()
    for sub, p in zip(submissions, parts, strict=True):
        keep = p[-2:] if p and base_count[p[-1].lower()] > 1 else p[-1:]
        stem = _SAFE.sub("_", "__".join(keep)).strip("._-") or "submission"
        if len(stem) > 80:
            digest = hashlib.sha256(str(sub).encode("utf-8", "replace")).hexdigest()[:8]
            stem = f"{stem[:71]}-{digest}"
        name, n = stem, 2
        while name.lower() in taken:
            name = f"{stem}-{n}"
            n += 1
        taken.add(name.lower())
        names.append(name)
    return names


def _fmt(v: float, spec: str = ".4f") -> str:
    return format(v, spec) if v is not None and np.isfinite(v) else "n/a"


#: What each verdict means, in a student's words.
_VERDICT_MEANING = {
    Verdict.PASS: "Your tables look like what the handout's algorithm produces at these "
    "settings: as good as it gets, and statistically consistent with it.",
    Verdict.REVIEW: "Something deserves a human look (see the flags): the look itself takes "
    "no points.",
    Verdict.FAIL: "The tables show evidence of a different algorithm or an unusable output "
    "(a consistency p-value a correct program essentially never reaches, or no usable table).",
}


def format_points_taken(g: Grade) -> str:
    """The format points a printing slip cost, in words ("" when none): the tables are graded
    corrected (transposed back, J shifted back, ...) less these points, a deduction for how
    they were printed, which the review that comes with it does not undo."""
    if g.status != Status.OK or g.points.get("format", FORMAT_POINTS) >= FORMAT_POINTS:
        return ""
    lost = FORMAT_POINTS - g.points["format"]
    flags = [f for f in g.flags if f in FLAG_DEDUCTIONS]
    return (f"{lost:g} format points were taken for how the tables were printed "
            f"({'; '.join(flags) or 'format'}); the rest of the score is what the tables "
            "get read as meant.")


def plain_summary(g: Grade) -> str:
    """A plain-language paragraph: what the verdict means and where to look first (the flags'
    checklist, given once below it, or the worst state when no flag says more)."""
    text = _VERDICT_MEANING.get(g.verdict, "")
    taken = format_points_taken(g)
    if taken:
        text += " " + taken
    why = evidence_reason(g)
    if why:
        text += " " + SCORE_STANDS.format(why=why)
    if g.cause_text:
        text += f" Likely cause: {g.cause_text}"
    listed = [f for f, _ in flag_checklist(g) if f]  # as many as the checklist lists
    if listed:
        text += (" Check the flag below: it says what to look at." if len(listed) == 1 else
                 f" Check the {len(listed)} flags below, in order: each says what to look at.")
    elif g.verdict != Verdict.PASS and g.worst:
        w = g.worst[0]
        text += (f" Check first: state <{w.x},{w.y}>, where your estimate is least like the "
                 "reference runs (the worst states are listed below).")
    return text


def evidence_reason(g: Grade) -> str:
    """Why statistical evidence below the fail level sent a graded output to review, in words
    ("" when none did): that evidence never costs points (rubric.EVIDENCE_FLAGS)."""
    if g.status != Status.OK or g.verdict != Verdict.REVIEW:
        return ""
    reasons = []
    if "inconsistent" in g.flags and g.decided_by:  # grade --run: the run that decided it
        reasons.append(g.decided_by)
    elif "inconsistent" in g.flags:
        reasons.append(f"the tables are unusual for the handout's algorithm (consistency p = "
                       f"{_fmt(g.consistency_p, '.3g')}, below {P_INCONSISTENT:.3f})")
    reasons += [f"a print-rule check fired: {FLAG_HELP[f]}" for f in g.flags
                if f in PRINT_RULE_FLAGS]
    return "; and ".join(reasons)


def flag_checklist(g: Grade) -> list[tuple[str, str]]:
    """The flags as one checklist, the one every report and page shows: (flag, what it means
    and what to check), then ("", what-if sentence) per score the tables would get fixed."""
    items = []
    for f in g.flags:
        hint = FLAG_HINTS.get(f, "")
        items.append((f, f"{FLAG_HELP.get(f, 'reported by the reader')}."
                         + (f" {hint[:1].upper()}{hint[1:]}" if hint else "")))
    items += [("", f"With the tables {fix}, the score would be {score:.1f} / 100.")
              for fix, score in g.what_if.items()]
    return items


#: When the consistency p-value sends tables to review, in words (every report says it alike).
REVIEW_BELOW = (f"Below {P_INCONSISTENT:.3f} is unusual for a correct program and goes to review "
                f"(the print-rule checks take the other {ALPHA_PRINT:.3f} of the "
                f"{P_REVIEW} level)")


def p_value_text(c: Consistency, calibration: int) -> str:
    """The consistency test's two p-values, naming the one that decides the verdict and the
    points (the log-t fit's), and what the other one is."""
    return (f"p-value {_fmt(c.p_value, '.3g')} (log-t fit of the calibration runs; this one "
            f"decides the verdict and the points), rank p-value {_fmt(c.p_rank, '.3g')} (a "
            f"check on the fit; it cannot go below 1/{calibration + 1})")


def quality_rows(refs: References, g: Grade) -> list[tuple[str, float, float, float, float,
                                                              float]]:
    """The quality table of a graded submission, one row per scored metric and then the
    unscored exploitability: (metric, the submission's value, the reference runs' median, 5th
    and 95th percentiles, the share of runs it is as good as; NaN when not scored)."""
    rows = []
    for name in [*(q[0] for q in QUALITY_METRICS), "exploitability"]:
        lo, med, hi = refs.quantile(name, [0.05, 0.5, 0.95], g.decimals)
        rows.append((name, float(g.metrics.get(name, math.nan)), float(med), float(lo),
                     float(hi), float(g.percentiles.get(name, math.nan))))
    return rows


def report_markdown(refs: References, g: Grade, image: str | None = None) -> str:
    """One submission's report: score, verdict, flags, metrics against the reference runs'
    percentiles, the consistency test, the worst states and the heatmap."""
    cfg = refs.config
    lines = [f"# Grade: {markdown_code(g.submission)}", ""]
    if g.status != Status.OK:
        lines += ["**Could not be graded: score 0 / 100, fail.**", "",
                  f"Reason: {markdown_text(g.error)}", ""]
        return "\n".join(lines)
    lines += [
        f"**Score {g.score:.1f} / 100 — {g.verdict}.**", "",
        plain_summary(g), "",
        f"Graded against {cfg.describe()}.", "",
        f"Layout read: `{g.layout or 'unknown'}`."
        + (f" Reader's notes: {markdown_text(g.notes)}." if g.notes else ""), "",
    ]
    if g.flags or g.what_if:
        lines.append("Flags, and what to check first:")
        for f, text in flag_checklist(g):
            lines.append(f"- {markdown_code(f)}: {text}" if f else f"- {text}")
            if f == "copied" and g.similar_to:
                lines.append("  Similar to: " + ", ".join(markdown_code(n) for n in g.similar_to)
                             + ".")
        lines.append("")
    c = g.consistency
    assert c is not None
    lines += [
        "## Points", "",
        "| part | points | out of |", "|---|---:|---:|",
        f"| format | {g.points['format']:.1f} | {FORMAT_POINTS:.0f} |",
        f"| quality | {g.points['quality']:.1f} | {QUALITY_POINTS:.0f} |",
        f"| consistency | {g.points['consistency']:.1f} | {CONSISTENCY_POINTS:.0f} |",
        f"| **total** | **{g.score:.1f}** | 100 |", "",
        "## Quality against the reference runs", "",
        "| metric | submission | reference median | reference 5%..95% | as good as |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, yours, med, lo, hi, pct in quality_rows(refs, g):
        if name in g.percentiles:
            lines.append(f"| {name} | {_fmt(yours)} | {_fmt(med)} | {_fmt(lo)}..{_fmt(hi)} "
                         f"| {_fmt(pct, '.0f')}% of runs |")
        else:
            lines.append(f"| {name} (not scored) | {_fmt(yours)} | {_fmt(med)} | "
                         f"{_fmt(lo)}..{_fmt(hi)} | |")
    lines += [
        "", "## Consistency with the handout's algorithm", "",
        f"Statistic T = {_fmt(c.statistic)} over {c.usable} usable states; reference runs "
        f"(held-out calibration runs): mean {_fmt(c.null_mean)}, sd {_fmt(c.null_sd)}; "
        f"{p_value_text(c, cfg.calibration)}. {REVIEW_BELOW}.",
    ]
    if g.print_check is not None:
        lines += ["", g.print_check.sentence()]
    if c.decimals is not None:
        lines.append(f"The probabilities are printed with {c.decimals} decimals; the reference "
                     "estimates were rounded likewise.")
    lines += ["", "## Worst states", "",
              "States where the submission is least like the reference runs (estimate 0: no "
              "data or every J lost; J -: not graded there, any J may be printed).", "",
              "| <X,Y> | contribution | estimate | reference mean | reference 5%..95% | J | "
              "runs agreeing with this J | optimal J |", "|---|---:|---:|---:|---:|---:|---:|---|"]
    for w in g.worst:
        est = f"{w.estimate:.4f}"
        share = "any" if w.policy == 0 else f"{100 * w.policy_share:.0f}%"
        j = "-" if w.policy == 0 else str(w.policy)
        lines.append(
            f"| <{w.x},{w.y}> | {w.contribution:.2f} | {est} | {_fmt(w.reference_mean)} | "
            f"{_fmt(w.reference_low)}..{_fmt(w.reference_high)} | {j} | "
            f"{share} | {','.join(map(str, w.optimal))} |")
    if image:
        lines += ["", "## Where it differs", "",
                  "Rows X (the mover's score, 0 at the top), columns Y (the opponent's). Left: "
                  "the printed policy against the optimal one: green = optimal; light grey = "
                  "unreachable (caveat B); dark grey = lost, P* = 0 (A); mid grey = no data; "
                  "yellow = wrong in a near-tie (E); orange = wrong where optimal play rarely or "
                  "never goes (C, D); red = wrong on a decisive state. Right: where the estimate "
                  "sits among the reference runs: white = typical, red = higher, blue = lower "
                  "(full colour at 2.5 standard deviations); grey = not enough reference data.",
                  "", f"![heatmap]({image})"]
    return "\n".join(lines) + "\n"


def report_text(refs: References, g: Grade, worst: int = 5, width: int = 88) -> str:
    """A submission's report for the terminal (a student checking their own output): the
    verdict and what it means, the flags with what to check first, the points, the quality
    against the reference runs, the consistency test and the worst states, as plain text."""
    def para(text: str, indent: str = "") -> list[str]:
        return textwrap.wrap(text, width, initial_indent=indent,
                             subsequent_indent=indent + "  " if indent else "") or [""]

    lines = [f"dicejack grade: {g.submission}"]
    if g.student:
        lines.append(f"Student: {g.who}")
    if g.status == Status.SKIPPED:
        return "\n".join([*lines, f"Skipped: {g.error}."]) + "\n"
    if g.status != Status.OK:
        lines += ["", "Could not be graded: score 0 / 100, fail.", *para(f"Reason: {g.error}"),
                  *para("Check that the file holds what your program printed: the two "
                        f"{refs.game.low}x{refs.game.low} arrays (best number of dice, win "
                        "probability; -1 where there is no data), as plain text.")]
        return "\n".join(lines) + "\n"
    c = g.consistency
    assert c is not None
    lines += ["", f"Score {g.score:.1f} / 100: {g.verdict}.", "", *para(plain_summary(g)), ""]
    if g.flags or g.what_if:
        lines.append("Flags, and what to check first:")
        for f, text in flag_checklist(g):
            lines += para(f"- {f}: {text}" if f else f"- {text}", "  ")
            if f == "copied" and g.similar_to:
                lines += para(f"Similar to: {', '.join(g.similar_to)}.", "    ")
        lines.append("")
    lines += [f"Points: format {g.points['format']:.1f} / {FORMAT_POINTS:.0f}, quality "
              f"{g.points['quality']:.1f} / {QUALITY_POINTS:.0f}, consistency "
              f"{g.points['consistency']:.1f} / {CONSISTENCY_POINTS:.0f}.", "",
              f"Quality against {refs.config.references} reference runs of the handout's "
              "algorithm:",
              f"  {'metric':<20} {'yours':>8} {'median':>8} {'5%..95% of runs':>17}  as good as"]
    for name, yours, med, lo, hi, pct in quality_rows(refs, g):
        tail = f"{_fmt(pct, '.0f')}% of runs" if name in g.percentiles else "(not scored)"
        lines.append(f"  {name:<20} {_fmt(yours):>8} {_fmt(med):>8} "
                     f"{_fmt(lo) + '..' + _fmt(hi):>17}  {tail}")
    lines += ["", *para(
        f"Consistency with the handout's algorithm: statistic T = {_fmt(c.statistic)} over "
        f"{c.usable} usable states (faithful runs: mean {_fmt(c.null_mean)}, sd "
        f"{_fmt(c.null_sd)}); {p_value_text(c, refs.config.calibration)}. {REVIEW_BELOW}.")]
    if g.print_check is not None:
        lines += ["", *para(g.print_check.sentence())]
    if g.worst:
        lines += ["", "Worst states (least like the reference runs; J -: any J may be printed):",
                  f"  {'<X,Y>':<8} {'estimate':>8} {'ref mean':>8} {'ref 5%..95%':>15} "
                  f"{'J':>2} {'runs with J':>11}  optimal J"]
        for w in g.worst[:worst]:
            share = "any" if w.policy == 0 else f"{100 * w.policy_share:.0f}%"
            j = "-" if w.policy == 0 else str(w.policy)
            lines.append(f"  {f'<{w.x},{w.y}>':<8} {w.estimate:>8.4f} "
                         f"{_fmt(w.reference_mean):>8} "
                         f"{_fmt(w.reference_low) + '..' + _fmt(w.reference_high):>15} {j:>2} "
                         f"{share:>11}  {','.join(map(str, w.optimal))}")
    lines += ["", *para(f"Graded against {refs.config.describe()}. Layout read: "
                        f"{g.layout or 'unknown'}.")]
    return "\n".join(lines) + "\n"


def _free_stem(folder: Path, stem: str, taken: set[str], inputs: _Inputs) -> str:
    """`stem`, or `stem-2`, `stem-3`... : the first whose .md and .png this run may write: not
    taken by another report of this run, not a submission, and either absent or this tool's
    previous report (its .md starts with "# Grade: `")."""
    n = 1
    while True:
        name = stem if n == 1 else f"{stem}-{n}"
        n += 1
        if name.lower() in taken:
            continue
        md, png = folder / f"{name}.md", folder / f"{name}.png"
        present = [p for p in (md, png) if p.exists() or p.is_symlink()]
        if not present:
            return name
        if any(inputs.match(p) is not None for p in present):
            continue
        if all(p.is_file() and not p.is_symlink() for p in present) and _starts_with(
                md, REPORT_FIRST_BYTES):
            return name


def write_reports(
    refs: References, grades: Sequence[Grade], folder: str | os.PathLike[str], *,
    progress: bool = False, inputs: Sequence[str | os.PathLike[str] | bytes] = (),
) -> list[Path]:
    """One Markdown report (and, when graded, one PNG heatmap) per submission into `folder`,
    under :func:`report_names` (skipped files get none); returns the Markdown paths.

    Never replaces a file it did not write: a name whose .md or .png exists and is not a
    previous dicejack report (or is one of `inputs`, the submissions) moves to `name-2` and so
    on, with a :class:`GradeWarning` saying so."""
    folder = Path(folder)
    prepare_reports_folder(folder)
    grades = [g for g in grades if g.status != Status.SKIPPED]
    paths = []
    advance, stop = parallel.progress_bar("reports", len(grades), progress)
    drawn = [g for g in grades if g.status == Status.OK and g.consistency is not None]
    heatmaps = figures.SubmissionHeatmaps(refs.game) if drawn else None
    wanted = report_names([g.submission for g in grades])
    taken = {name.lower() for name in wanted}
    known = _Inputs(inputs)
    try:
        for g, wish in zip(grades, wanted, strict=True):
            taken.discard(wish.lower())
            stem = _free_stem(folder, wish, taken, known)
            taken.add(stem.lower())
            if stem != wish:
                warnings.warn(f"report of {g.submission} written as {stem}.md: {wish}.md or "
                              f"{wish}.png already exists and was not written by dicejack",
                              GradeWarning, stacklevel=2)
            image = None
            if heatmaps is not None and g.status == Status.OK and g.consistency is not None:
                image = f"{stem}.png"
                learned = compare.learned_from_tables(refs.game, g.policy, g.probability)
                heatmaps.draw(state_classes(refs.truth, learned), g.consistency.score,
                              f"{g.submission}: {g.score:.1f} / 100, {g.verdict}", folder / image)
            md = folder / f"{stem}.md"
            formats.write_atomic(md, report_markdown(refs, g, image))
            paths.append(md)
            advance()
    finally:
        if heatmaps is not None:
            heatmaps.close()
        stop()
    return paths
