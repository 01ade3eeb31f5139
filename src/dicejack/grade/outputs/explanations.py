"""What a grade means, in the words every report shares (the terminal's, the Markdown reports,
the web pages, the LMS): the verdict's meaning and where to look first, the flags' checklist,
the format points taken, why evidence sent it to review, the p-values and the quality table."""
from __future__ import annotations

import math

import numpy as np

from dicejack.grade.evidence.consistency import Consistency
from dicejack.grade.evidence.references import References
from dicejack.grade.scoring.record import Grade
from dicejack.grade.scoring.rubric import (
    ALPHA_PRINT,
    FLAG_DEDUCTIONS,
    FLAG_HELP,
    FLAG_HINTS,
    FORMAT_POINTS,
    P_INCONSISTENT,
    P_REVIEW,
    PRINT_RULE_FLAGS,
    QUALITY_METRICS,
    SCORE_STANDS,
)
from dicejack.grade.settings import Status, Verdict

__all__ = ["fmt", "format_points_taken", "plain_summary", "evidence_reason", "flag_checklist",
           "REVIEW_BELOW", "p_value_text", "quality_rows"]


def fmt(v: float, spec: str = ".4f", missing: str = "n/a") -> str:
    """A figure in words: `v` formatted by `spec`, or `missing` when it is None or not finite."""
    return format(v, spec) if v is not None and np.isfinite(v) else missing


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
                       f"{fmt(g.consistency_p, '.3g')}, below {P_INCONSISTENT:.3f})")
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
    return (f"p-value {fmt(c.p_value, '.3g')} (log-t fit of the calibration runs; this one "
            f"decides the verdict and the points), rank p-value {fmt(c.p_rank, '.3g')} (a "
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
