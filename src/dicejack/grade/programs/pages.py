"""The runs page of `grade --run` (``<gradebook>.runs.html`` beside runs.csv): one section per
student with the joint verdict, the family of p-values behind it, and every run (settings,
command, seconds, exit code, stderr tail, its grade). Self-contained like every dicejack page
(:func:`dicejack.formats.html.html_page`); everything a program printed or was named is escaped."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from dicejack.formats.html import HtmlColumn, Markup, html_page, html_table, html_text

if TYPE_CHECKING:  # pragma: no cover
    from dicejack.grade.programs.joint import StudentResult

__all__ = ["runs_html"]

_RUN_COLUMNS = (
    HtmlColumn("role"), HtmlColumn("settings"), HtmlColumn("run", numeric=True, fmt="d"),
    HtmlColumn("command"), HtmlColumn("seconds", numeric=True, fmt=".2f"),
    HtmlColumn("exit", numeric=True, fmt="d"), HtmlColumn("outcome"),
    HtmlColumn("score", numeric=True, fmt=".1f"), HtmlColumn("verdict"),
    HtmlColumn("consistency p", numeric=True, fmt=".3g"),
    HtmlColumn("print p", numeric=True, fmt=".3g"), HtmlColumn("print flag"),
    HtmlColumn("stderr (tail)"),
)
_FAMILY_COLUMNS = (HtmlColumn("test"), HtmlColumn("p", numeric=True, fmt=".3g"),
                   HtmlColumn("Holm-adjusted", numeric=True, fmt=".3g"))


def _section(s: StudentResult) -> list[Markup]:
    g = s.grade
    head = f"{s.label}" + (f" ({g.who})" if g.who else "")
    summary = (f"{g.verdict or g.status}, score {g.score:.1f}; {s.language or 'language ?'}; "
               f"input {s.convention or '-'}" + (f"; {g.error}" if g.error else "")
               + (f"; flags {', '.join(g.flags)}" if g.flags else ""))
    if g.cause:
        summary += f"; likely cause {g.cause}"
    out = [Markup(f"<h2>{html_text(head)}</h2>"), Markup(f"<p>{html_text(summary)}</p>")]
    if g.decided_by:  # the run whose evidence decided the verdict, with its numbers
        out.append(Markup(f"<p>Decided by: {html_text(g.decided_by)}</p>"))
    if g.cause_text:
        out.append(Markup(f"<p>Likely cause: {html_text(g.cause_text)}</p>"))
    if g.notes:
        out.append(Markup(f"<p>{html_text(g.notes)}</p>"))
    if s.joint is not None:
        rows = [(lab, p, a) for lab, p, a in zip(s.joint.labels, s.joint.p_values,
                                                  s.joint.adjusted, strict=True)]
        out.append(html_table(_FAMILY_COLUMNS, rows))
    rows = []
    for r in s.runs:
        rg, res = r.grade, r.result
        pc = rg.print_check if rg is not None else None
        rows.append((
            r.setting.role, r.setting.settings.describe(), r.index + 1, r.command,
            res.seconds if res else math.nan, res.exit_code if res else math.nan,
            r.failed or "graded", rg.score if rg else math.nan, rg.verdict if rg else "fail",
            rg.consistency_p if rg else math.nan,
            pc.p_value if pc is not None and pc.runs else math.nan,
            pc.flag if pc is not None else "", r.stderr_tail))
    if rows:
        out.append(html_table(_RUN_COLUMNS, rows))
    return out


def runs_html(students: Sequence[StudentResult], sandbox: str, plan: str,
              python: str = "") -> str:
    """The page: the sandbox, the Python programs ran on (when said) and the plan, then one
    section per student."""
    body: list[object] = [
        Markup("<h1>dicejack grade --run</h1>"),
        Markup(f"<p>sandbox: {html_text(sandbox)}</p>"),
        *([Markup(f"<p>python: {html_text(python)}</p>")] if python else []),
        Markup(f"<p>plan: {html_text(plan)}</p>"),
    ]
    for s in students:
        body.extend(_section(s))
    return html_page("grade --run: every run", [b for b in body])
