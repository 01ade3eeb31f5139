"""What grading prints on the terminal: the summary table of a batch (with counts that add up
to the files counted) and a student's report of one submission as plain text."""
from __future__ import annotations

import textwrap
from collections.abc import Sequence

from dicejack.formats.escape import safe_text
from dicejack.grade.evidence.references import References
from dicejack.grade.outputs.explanations import (
    REVIEW_BELOW,
    flag_checklist,
    fmt,
    p_value_text,
    plain_summary,
    quality_rows,
)
from dicejack.grade.scoring.record import Grade
from dicejack.grade.scoring.rubric import (
    CONSISTENCY_POINTS,
    FORMAT_POINTS,
    QUALITY_POINTS,
)
from dicejack.grade.settings import Status, Verdict

__all__ = ["EARLIER", "summary_text", "report_text"]


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
        p = fmt(g.consistency_p, ".2g", missing="") if g.status == Status.OK else ""
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
        tail = f"{fmt(pct, '.0f')}% of runs" if name in g.percentiles else "(not scored)"
        lines.append(f"  {name:<20} {fmt(yours):>8} {fmt(med):>8} "
                     f"{fmt(lo) + '..' + fmt(hi):>17}  {tail}")
    lines += ["", *para(
        f"Consistency with the handout's algorithm: statistic T = {fmt(c.statistic)} over "
        f"{c.usable} usable states (faithful runs: mean {fmt(c.null_mean)}, sd "
        f"{fmt(c.null_sd)}); {p_value_text(c, refs.config.calibration)}. {REVIEW_BELOW}.")]
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
                         f"{fmt(w.reference_mean):>8} "
                         f"{fmt(w.reference_low) + '..' + fmt(w.reference_high):>15} {j:>2} "
                         f"{share:>11}  {','.join(map(str, w.optimal))}")
    lines += ["", *para(f"Graded against {refs.config.describe()}. Layout read: "
                        f"{g.layout or 'unknown'}.")]
    return "\n".join(lines) + "\n"
