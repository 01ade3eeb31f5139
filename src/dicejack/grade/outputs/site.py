"""The grading site (`dicejack grade ... --html DIR`): one page for the class and one per
submission, each a self-contained HTML file that opens from disk (:mod:`dicejack.formats.html`:
style, script and pictures inline, no request to anything, readable without the script).

``index.html``: the settings, the verdict counts, the score histogram, the copy groups (who is
similar to whom, as connected groups), the flags and how many have each, every submission in a
table (each student's kept file: the count of the headline and of the terminal's summary),
the earlier attempts apart, and the skipped files with their reason. The table shows what an
instructor decides by (the student, name first, then id; score; verdict; likely cause; flags
with the late and held notes) and keeps the file and the numbers behind a column chooser; the
folders and archive every file shares are said once above it. It sorts by any column (verdicts by
severity, :data:`VERDICT_SEVERITY`; empty cells last both ways), filters on every word of every
cell as one types, and on a phone shows a card per student (the page's script and style;
plain HTML without the script). ``<name>.html`` (the names of
:func:`~dicejack.grade.outputs.student_reports.report_names`): the student's report as a page,
with its state maps as SVG (each at least :data:`dicejack.figures.svg.MAP_WIDTH` px wide) and
links back to the index and to the submissions it resembles. A site of one file and nothing
skipped (a student's self-check) is that file's page alone, as ``index.html``, with no link to a
class page.

Submission names, student names and file names are data: every one is escaped as text, never
read as markup, and no link is built from one (page names are the safe stems). The folder is
written as a whole (:func:`dicejack.formats.folders.new_folder_beside`): replaced only when it is
empty or a previous site (it holds :data:`SITE_MARKER`), never left half-written.
"""

from __future__ import annotations

import math
import os
import re
import shutil
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

import numpy as np

from dicejack import compare, formats
from dicejack.compare.metrics import METRIC_HELP, state_classes
from dicejack.figures.svg import histogram_svg, submission_heatmaps_svg
from dicejack.formats.folders import new_folder_beside, os_reason, swap_folder
from dicejack.formats.html import HtmlColumn, Markup, html_link, html_page, html_table, html_text
from dicejack.grade.evidence.power import setting_power
from dicejack.grade.evidence.references import References
from dicejack.grade.intake.skip_rules import SITE_MARKER
from dicejack.grade.outputs.explanations import (
    REVIEW_BELOW,
    flag_checklist,
    p_value_text,
    plain_summary,
    quality_rows,
)
from dicejack.grade.outputs.student_reports import report_names
from dicejack.grade.scoring.record import Grade
from dicejack.grade.scoring.rubric import (
    CONSISTENCY_POINTS,
    FLAG_HELP,
    FORMAT_POINTS,
    P_INCONSISTENT,
    QUALITY_POINTS,
)
from dicejack.grade.settings import GradeError
from dicejack.runtime import parallel

__all__ = ["prepare_site", "write_site", "index_html", "submission_html",
           "copy_groups", "page_names", "VERDICT_SEVERITY"]

_INDEX = "index"


def page_names(grades: Sequence[Grade]) -> list[str | None]:
    """Each grade's page file name (None for a skipped file): the safe stem of
    :func:`report_names` and ``.html``, never ``index.html``."""
    shown = [g for g in grades if g.status != "skipped"]
    all_stems = report_names([g.submission for g in shown])  # distinct in any case
    # a renamed `index` must not take the name of another file's page, before or after it
    taken = {stem.lower() for stem in all_stems}
    stems = iter(all_stems)
    out: list[str | None] = []
    for g in grades:
        if g.status == "skipped":
            out.append(None)
            continue
        stem = next(stems)
        if stem.lower() == _INDEX:
            new, n = f"{stem}-page", 2
            while new.lower() in taken:
                new, n = f"{stem}-page-{n}", n + 1
            taken.add(new.lower())
            stem = new
        out.append(f"{stem}.html")
    return out


def copy_groups(grades: Sequence[Grade]) -> list[list[int]]:
    """The copy groups of a batch: indexes of grades joined by `similar_to` (connected
    components of the similarity graph, two or more members each), in batch order."""
    where: dict[str, int] = {}
    for i, g in enumerate(grades):
        where.setdefault(g.submission, i)
    parent = list(range(len(grades)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, g in enumerate(grades):
        for other in g.similar_to:
            j = where.get(other)
            if j is not None:
                parent[root(i)] = root(j)
    members: dict[int, list[int]] = {}
    for i in range(len(grades)):
        members.setdefault(root(i), []).append(i)
    return [group for group in members.values() if len(group) > 1]


def _short_labels(submissions: Sequence[str]) -> tuple[str, list[str]]:
    """The folders (and archive, ``name.zip!``) all the submissions' names share, shown once
    above the table, and each name without them (/tmp/batch/a.txt and /tmp/batch/b.txt:
    ``/tmp/batch/``; a.txt and b.txt); one name stays whole."""
    parts = [re.split(r"(?<=[/!])", s.replace("\\", "/")) for s in submissions]
    common = 0
    if len(parts) > 1:
        for column in zip(*(p[:-1] for p in parts), strict=False):
            if len(set(column)) != 1:
                break
            common += 1
    return "".join(parts[0][:common]) if parts else "", ["".join(p[common:]) for p in parts]


def _student(g: Grade) -> str:
    """The student as the class page shows them: the name first, then the LMS identifier
    ("phillipskim (12252)"); the identifier alone without a name; "" when no LMS named the
    file."""
    if not g.student:
        return ""
    return f"{g.student_name} ({g.student})" if g.student_name else g.student


#: Verdicts from the most to the least severe, the order the class table sorts them in: an
#: unreadable file (score 0, nothing could be read) before a fail, then review, then pass.
VERDICT_SEVERITY = ("unreadable", "fail", "review", "pass")
_SEVERITY = {verdict: rank for rank, verdict in enumerate(VERDICT_SEVERITY)}


def _verdict(g: Grade) -> Markup:
    # the gradebook's word (a file or program that could not be graded is a fail); it sorts
    # before the other fails (VERDICT_SEVERITY's "unreadable")
    return Markup(f'<span class="verdict {html_text(g.verdict)}">{html_text(g.verdict)}</span>')


def _fmt(v: float, spec: str = ".4f") -> str:
    return format(v, spec) if v is not None and np.isfinite(v) else "n/a"


# ------------------------------------------------------------------------------ the index
_INDEX_COLUMNS = (
    HtmlColumn("student", help="the name and LMS identifier from the file's name; the file's "
               "name when no LMS named it"),
    HtmlColumn("score", numeric=True, fmt=".1f", help="out of 100"),
    HtmlColumn("verdict", help="sorts by severity: " + ", ".join(VERDICT_SEVERITY)),
    HtmlColumn("likely cause", help="the known bug that best explains an output that did not "
               "pass (grade.diagnosis; the student's page says it in words); unusual: none "
               "does"),
    HtmlColumn("flags", help="what to check (docs/grading.md), late, held (kept out of the "
               "LMS CSV)"),
    HtmlColumn("file", optional=True),
    HtmlColumn("agreement", numeric=True, fmt=".3f", optional=True,
               help=METRIC_HELP["agreement_decisive"]),
    HtmlColumn("rmse", numeric=True, fmt=".4f", optional=True,
               help=METRIC_HELP["rmse_onpath"]),
    HtmlColumn("vs optimal", numeric=True, fmt=".4f", optional=True,
               help=METRIC_HELP["score_vs_optimal"]),
    HtmlColumn("exploitability", numeric=True, fmt=".4f", optional=True,
               help=METRIC_HELP["exploitability"]),
    HtmlColumn("consistency p", numeric=True, fmt=".2g", optional=True,
               help=f"below {P_INCONSISTENT:.3f} is unusual for a correct program (review)"),
    HtmlColumn("similar to", optional=True),
)


def _links(names: Sequence[str], page_of: dict[str, str],
           labels: dict[str, str] | None = None) -> Markup:
    """Links to the pages of `names` (shown by their `labels` when given); plain text for a
    name without a page."""
    labels = labels or {}
    parts = [html_link(page_of[n], labels.get(n, n)) if n in page_of else html_text(n)
             for n in names]
    return Markup(", ".join(parts))


def index_html(refs: References, grades: Sequence[Grade],
               pages: Sequence[str | None] | None = None) -> str:
    """The class page: settings, verdict counts, score histogram, copy groups, flags, the
    sortable and filterable table of every submission, and the skipped files."""
    pages = page_names(grades) if pages is None else pages
    page_of = {g.submission: p for g, p in zip(grades, pages, strict=True) if p is not None}
    shown = [(g, p) for g, p in zip(grades, pages, strict=True) if p is not None]
    skipped = [g for g in grades if g.status == "skipped"]
    # the headline, the cards and the histogram count each student's kept file once;
    # superseded attempts (kept "no") are listed apart
    counted = [(g, p) for g, p in shown if g.kept != "no"]
    superseded = [(g, p) for g, p in shown if g.kept == "no"]
    n = len(counted)
    body = _index_head(refs, counted, superseded, skipped)
    folder, short = _short_labels([g.submission for g, _ in shown])
    labels = dict(zip((g.submission for g, _ in shown), short, strict=True))
    body += _copy_section(grades, page_of, labels)
    body += _flag_section(grades)
    body += _index_table(counted, folder, labels, page_of)
    if superseded:
        body += _superseded_section(superseded, labels)
    if skipped:
        body += [Markup("<h2>Skipped files</h2>"), html_table(
            (HtmlColumn("student"), HtmlColumn("file"), HtmlColumn("reason")),
            [(_student(g), g.submission, g.error) for g in skipped])]
    body.append(Markup("</main>"))
    return html_page(f"Grades: {n} submissions", body, script=True)


def _index_head(refs: References, counted: Sequence[tuple[Grade, str]],
                superseded: Sequence[tuple[Grade, str]], skipped: Sequence[Grade]) -> list[str]:
    """The class page's top: the headline, the verdict cards, the setting's power note, the
    score summary and histogram (each student's kept file counted once)."""
    ok = [g for g, _ in counted if g.status == "ok"]
    counts = Counter(g.verdict for g in ok)
    unreadable = sum(g.status == "error" for g, _ in counted)
    n = len(counted)
    earlier = (f" ({len(superseded)} earlier attempt{'s' * (len(superseded) != 1)} listed "
               "apart)") if superseded else ""
    body: list[str] = [
        Markup("<main>"),
        Markup(f"<h1>Grades: {n} submission{'s' * (n != 1)}{earlier}</h1>"),
        Markup(f"<p>Graded against {html_text(refs.config.describe())}. Rubric and flags: "
               "docs/grading.md of dicejack.</p>"),
        Markup('<div class="cards">' + "".join(
            f'<div class="card {cls}"><b>{count}</b>{label}</div>' for label, cls, count in (
                ("pass", "pass", counts["pass"]), ("review", "review", counts["review"]),
                ("fail", "fail", counts["fail"] + unreadable),
                ("not graded (counted in fail)", "fail", unreadable),
                ("skipped", "muted", len(skipped)))) + "</div>"),
    ]
    note = setting_power(refs).note() if ok else ""  # the setting-level note of grade.power
    if note:
        body.append(Markup(f"<p><b>Note:</b> {html_text(note)}.</p>"))
    scores = [g.score for g, _ in counted]
    if scores:
        body.append(Markup(
            f"<p>Scores: median {np.median(scores):.1f}, mean {np.mean(scores):.1f} "
            f"(unreadable files count as 0; one file per student: the one whose grade goes "
            f"out).</p>"))
    body += [Markup("<h2>Scores</h2>"), Markup("<figure>" + histogram_svg(
        scores, np.arange(0, 101, 10), label="score histogram") + "<figcaption>Submissions per "
        "score band (each bar's tooltip gives its count).</figcaption></figure>")]
    return body


def _notes(g: Grade) -> list[str]:
    return [*(["late"] if g.late else []), *([f"held: {g.held}"] if g.held else [])]


def _index_row(g: Grade, page: str, labels: dict[str, str], page_of: dict[str, str]) -> list:
    """One submission's row of the class table (the cells of _INDEX_COLUMNS)."""
    word = "unreadable" if g.status == "error" else g.verdict
    notes = _notes(g)
    return [
        html_link(page, _student(g) or labels[g.submission]),
        g.score, (_verdict(g), str(_SEVERITY.get(word, len(_SEVERITY)))), g.cause,
        "; ".join([*g.flags, *notes] if g.status == "ok"
                  else [f"could not be graded: {g.error}", *notes]),
        html_link(page, labels[g.submission]),
        *(g.metrics.get(k, math.nan) for k in ("agreement_decisive", "rmse_onpath",
                                              "score_vs_optimal", "exploitability")),
        g.consistency_p, _links(g.similar_to, page_of, labels)]


def _index_table(shown: Sequence[tuple[Grade, str]], folder: str, labels: dict[str, str],
                 page_of: dict[str, str]) -> list[str]:
    """The class page's sortable, filterable table of every submission counted (each
    student's kept file; earlier attempts are listed apart)."""
    rows = [_index_row(g, page, labels, page_of) for g, page in shown]
    search = [g.submission for g, _ in shown]  # the whole name, its folders and archive too
    where = (Markup(f"<p>Every file's name starts with <code>{html_text(folder)}</code> "
                    "(left out of the rows).</p>") if folder else "")
    return [Markup('<h2 id="table">Submissions</h2>'), where,
            Markup("<p>Click a column's header to sort by it (again to reverse; empty cells "
                   "stay last; verdicts sort by severity: "
                   f"{', '.join(VERDICT_SEVERITY)}); type to keep the rows holding every "
                   "word, in any column; tick <i>More columns</i> for the file, the quality "
                   "metrics, the consistency p-value and the similar submissions.</p>"),
            html_table(_INDEX_COLUMNS, rows, table_id="submissions", sortable=True,
                       search=search, filter_label="Filter:", cards=True)]


def _superseded_section(superseded: Sequence[tuple[Grade, str]],
                        labels: dict[str, str]) -> list[str]:
    """The earlier attempts: files whose student has another file whose grade goes out."""
    return [Markup("<h2>Earlier attempts</h2>"),
            Markup("<p>Files of students with a later (or, with --keep best, better) file "
                   "whose grade goes out instead: not counted above.</p>"),
            html_table((HtmlColumn("student"), HtmlColumn("file"),
                        HtmlColumn("score", numeric=True, fmt=".1f"),
                        HtmlColumn("verdict"), HtmlColumn("notes")),
                       [(_student(g), html_link(page, labels[g.submission]),
                         g.score, g.verdict, "; ".join(_notes(g)))
                        for g, page in superseded])]


def _copy_section(grades: Sequence[Grade], page_of: dict[str, str],
                  labels: dict[str, str]) -> list[str]:
    groups = copy_groups(grades)
    out: list[str] = [Markup("<h2>Copy groups</h2>")]
    if not groups:
        return [*out, Markup("<p>None: no two submissions are closer than independent runs of "
                             "the handout's algorithm ever are.</p>")]
    out.append(Markup(f"<p>{len(groups)} group{'s' * (len(groups) != 1)} of submissions closer "
                      "to each other than any two independent reference runs (flag "
                      "<code>copied</code>; the verdict is yours):</p>"))
    items = []
    for group in groups:
        names = [grades[i] for i in group]
        items.append("<li>" + ", ".join(
            str(html_link(page_of[g.submission], labels[g.submission])) + (
                f" <span class=\"muted\">{html_text(_student(g))}</span>" if g.student
                else "")
            for g in names) + "</li>")
    out.append(Markup("<ul>" + "".join(items) + "</ul>"))
    return out


def _flag_section(grades: Sequence[Grade]) -> list[str]:
    counts = Counter(f for g in grades if g.status == "ok" for f in g.flags)
    out: list[str] = [Markup("<h2>Flags</h2>")]
    if not counts:
        return [*out, Markup("<p>No submission was flagged.</p>")]
    rows = [(flag, count, FLAG_HELP.get(flag, "reported by the reader"))
            for flag, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    return [*out, html_table((HtmlColumn("flag"), HtmlColumn("submissions", numeric=True,
                                                              fmt="d"),
                              HtmlColumn("meaning")), rows)]


# ------------------------------------------------------------------------------ one submission
#: A submission's text on its page: whole up to this many lines; a longer one shows its first
#: lines and the rows the grader read, with a few lines around each.
SHOWN_LINES = 300
_HEAD_LINES, _CONTEXT, _LINE_CHARS = 20, 3, 240


def submission_html(refs: References, g: Grade, page_of: dict[str, str] | None = None, *,
                    index: bool = True, text: str | None = None,
                    read: Collection[int] = ()) -> str:
    """One submission's page: the verdict first, the flags with hints, the points, the quality
    and consistency, the worst states and the state maps, and the submission's `text` when
    given (as graded, escaped, the 1-based lines in `read` marked as the rows the grader read);
    links to the submissions it resembles (`page_of`: page file name by submission) and, with
    `index`, to the class page (a one-file site has none: its page is the index)."""
    page_of = page_of or {}
    name = re.split(r"[/!]", g.submission.replace("\\", "/"))[-1] or g.submission
    title = f"Grade: {name}"
    body: list[str] = [Markup('<nav><a href="index.html">&larr; all submissions</a></nav>')
                       ] if index else []
    body += [Markup("<main>"), Markup(f"<h1>{html_text(title)}</h1>")]
    if name != g.submission:
        body.append(Markup(f'<p class="muted">File: {html_text(g.submission)}</p>'))
    if g.student:
        body.append(Markup(f"<p>Student: {html_text(_student(g))}</p>"))
    if g.status != "ok":
        body += [Markup('<div class="banner b-fail"><p><strong class="fail">Could not be '
                        "graded: score 0 / 100, fail.</strong></p>"),
                 Markup(f"<p>Reason: {html_text(g.error)}</p></div>"),
                 *_text_section(text, read), Markup("</main>")]
        return html_page(title, body)
    body.append(Markup(
        f'<div class="banner b-{html_text(g.verdict)}"><p><strong class="'
        f'{html_text(g.verdict)}">Score {g.score:.1f} / 100: {html_text(g.verdict)}.</strong>'
        f"</p><p>{html_text(plain_summary(g))}</p></div>"))
    body += _flags(g, page_of)
    body += _tables(refs, g)
    body += _maps(refs, g)
    body += _text_section(text, read)
    body.append(Markup(f"<p class=\"muted\">Graded against {html_text(refs.config.describe())}. "
                       f"Layout read: {html_text(g.layout or 'unknown')}."
                       + (f" Reader's notes: {html_text(g.notes)}." if g.notes else "")
                       + "</p>"))
    body.append(Markup("</main>"))
    return html_page(title, body)


def _flags(g: Grade, page_of: dict[str, str]) -> list[str]:
    if not g.flags and not g.what_if:
        return []
    items = []
    for f, text in flag_checklist(g):
        item = (f"<li><code>{html_text(f)}</code>: " if f else "<li>") + html_text(text)
        if f == "copied" and g.similar_to:
            item += f" Similar to: {_links(g.similar_to, page_of)}."
        items.append(item + "</li>")
    return [Markup("<h2>Flags, and what to check first</h2>"),
            Markup("<ul>" + "".join(items) + "</ul>")]


def _tables(refs: References, g: Grade) -> list[str]:
    c = g.consistency
    points = html_table(
        (HtmlColumn("part"), HtmlColumn("points", numeric=True, fmt=".1f"),
         HtmlColumn("out of", numeric=True, fmt=".0f")),
        [("format", g.points["format"], FORMAT_POINTS),
         ("quality", g.points["quality"], QUALITY_POINTS),
         ("consistency", g.points["consistency"], CONSISTENCY_POINTS),
         (Markup("<strong>total</strong>"), g.score, 100.0)])
    quality = html_table(
        (HtmlColumn("metric"), HtmlColumn("submission", numeric=True),
         HtmlColumn("reference median", numeric=True),
         HtmlColumn("reference 5%..95%", numeric=True), HtmlColumn("as good as", numeric=True)),
        [(name + ("" if name in g.percentiles else " (not scored)"), yours, med,
          f"{_fmt(lo)}..{_fmt(hi)}",
          f"{_fmt(pct, '.0f')}% of runs" if name in g.percentiles else "")
         for name, yours, med, lo, hi, pct in quality_rows(refs, g)])
    out = [Markup("<h2>Points</h2>"), points,
           Markup(f"<h2>Quality against {refs.config.references} reference runs</h2>"), quality]
    if c is not None:
        deciding = p_value_text(c, refs.config.calibration)
        out += [Markup("<h2>Consistency with the handout's algorithm</h2>"), Markup(
            f"<p>Statistic T = {_fmt(c.statistic)} over {c.usable} usable states; held-out "
            f"calibration runs: mean {_fmt(c.null_mean)}, sd {_fmt(c.null_sd)}; "
            f"{html_text(deciding)}. {html_text(REVIEW_BELOW)}.</p>")]
        if g.decided_by:  # grade --run: every run's evidence jointly decided the verdict
            out.append(Markup("<p>The verdict comes from all the program's runs together "
                              f"(grade --run): {html_text(g.decided_by)}.</p>"))
        if g.print_check is not None:
            out.append(Markup(f"<p>{html_text(g.print_check.sentence())}</p>"))
        if c.decimals is not None:
            out.append(Markup(f"<p>The probabilities are printed with {c.decimals} decimals; "
                              "the reference estimates were rounded likewise.</p>"))
    if g.worst:
        rows = [(f"<{w.x},{w.y}>", w.contribution, w.estimate, w.reference_mean,
                 f"{_fmt(w.reference_low)}..{_fmt(w.reference_high)}",
                 "-" if w.policy == 0 else str(w.policy),
                 "any" if w.policy == 0 else f"{100 * w.policy_share:.0f}%",
                 ",".join(map(str, w.optimal))) for w in g.worst]
        out += [Markup("<h2>Worst states</h2>"), Markup(
            "<p>States where the submission is least like the reference runs (estimate 0: no "
            "data or every J lost; J -: not graded there, any J may be printed).</p>"),
            html_table((HtmlColumn("<X,Y>"), HtmlColumn("contribution", numeric=True, fmt=".2f"),
                        HtmlColumn("estimate", numeric=True),
                        HtmlColumn("reference mean", numeric=True),
                        HtmlColumn("reference 5%..95%", numeric=True),
                        HtmlColumn("J", numeric=True),
                        HtmlColumn("runs agreeing with this J", numeric=True),
                        HtmlColumn("optimal J")), rows)]
    return out


def _maps(refs: References, g: Grade) -> list[str]:
    if g.consistency is None or g.policy is None or g.probability is None:
        return []
    learned = compare.learned_from_tables(refs.game, g.policy, g.probability)
    svg = submission_heatmaps_svg(
        state_classes(refs.truth, learned), g.consistency.score, g.policy,
        refs.truth.solution.optimal, label=f"state maps of {g.submission}")
    return [Markup("<h2>Where it differs</h2>"), Markup(
        "<figure>" + svg + "<figcaption>Left: the printed policy against the optimal one (with "
        "the handout's caveats). Right: where the estimate sits among the reference runs "
        "(normal score; grey: not enough reference data). Hover a cell for its numbers."
        "</figcaption></figure>")]


def _text_section(text: str | None, read: Collection[int]) -> list[str]:
    """The submission as printed, a numbered line each (tabs expanded, every character escaped,
    a long line cut), the lines in `read` marked; past SHOWN_LINES lines, only the first ones
    and those around the lines read, the rest counted."""
    if text is None:
        return []
    lines = text.splitlines()
    marked = {n for n in read if 1 <= n <= len(lines)}
    if len(lines) <= SHOWN_LINES:
        shown = set(range(1, len(lines) + 1))
    else:
        shown = set(range(1, _HEAD_LINES + 1)) | {
            k for n in marked for k in range(n - _CONTEXT, n + _CONTEXT + 1)
            if 1 <= k <= len(lines)}
    width = len(str(len(lines)))
    out, last = [], 0
    for n in sorted(shown):
        if n > last + 1:
            out.append(f'<span class="gap">{n - last - 1} lines not shown</span>')
        line = lines[n - 1].expandtabs(8)
        if len(line) > _LINE_CHARS:
            line = line[:_LINE_CHARS] + f" ... ({len(line) - _LINE_CHARS} more characters)"
        cls = "ln read" if n in marked else "ln"
        out.append(f'<span class="{cls}"><span class="no">{n:>{width}}</span>'
                   f"{html_text(line)}</span>")
        last = n
    if last < len(lines):
        out.append(f'<span class="gap">{len(lines) - last} lines not shown</span>')
    what = (f"the {len(marked)} marked line{'s' * (len(marked) != 1)} are the rows the grader "
            "read the two tables from" if marked else "no line was read as a table")
    return [Markup("<h2>The submission</h2>"),
            Markup(f"<p>As graded, {len(lines)} line{'s' * (len(lines) != 1)}; {what}.</p>"),
            Markup('<pre class="submission">' + "".join(out) + "</pre>")]


# ------------------------------------------------------------------------------ the folder
def prepare_site(folder: str | os.PathLike[str]) -> Path:
    """Check, before any work, that the site may be written to `folder` (missing, empty or a
    previous site; GradeError otherwise) and return the temporary folder it is built in."""
    try:
        return new_folder_beside(Path(folder), marker=SITE_MARKER, what="site",
                                 option="--html", example="grades-site")
    except formats.FormatError as exc:
        raise GradeError(str(exc)) from None


def write_site(refs: References, grades: Sequence[Grade], folder: str | os.PathLike[str], *,
               progress: bool = False, tmp: Path | None = None,
               texts: Mapping[str, tuple[str, Collection[int]]] | None = None) -> Path:
    """Write the site into `folder` as a whole (replacing only an empty folder or a previous
    site), building it in `tmp` (from :func:`prepare_site`, made here when not given); returns
    its index page. `texts`: by submission, its text as graded and the lines read from it,
    shown on its page (:func:`submission_html`)."""
    texts = texts or {}
    out = Path(folder)
    tmp = tmp if tmp is not None else prepare_site(out)
    done = False
    try:
        pages = page_names(grades)
        page_of = {g.submission: p for g, p in zip(grades, pages, strict=True)
                   if p is not None}
        formats.write_atomic(tmp / SITE_MARKER, "This folder is a dicejack grading site; "
                             "`dicejack grade --html` replaces it as a whole.\n")
        # one file and nothing skipped (a student's self-check): its page is the index
        alone = len(grades) == 1 and len(page_of) == 1
        advance, stop = parallel.progress_bar("pages", 1 if alone else len(page_of) + 1,
                                              progress)
        try:
            if alone:
                text, read = texts.get(grades[0].submission, (None, ()))
                formats.write_atomic(tmp / "index.html", submission_html(
                    refs, grades[0], index=False, text=text, read=read))
            else:
                for g, page in zip(grades, pages, strict=True):
                    if page is not None:
                        text, read = texts.get(g.submission, (None, ()))
                        formats.write_atomic(tmp / page, submission_html(
                            refs, g, page_of, text=text, read=read))
                        advance()
                formats.write_atomic(tmp / "index.html", index_html(refs, grades, pages))
            advance()
        finally:
            stop()
        swap_folder(tmp, out)
        done = True
    except OSError as exc:
        raise GradeError(f"cannot write the site {out}: {os_reason(exc)}") from None
    finally:
        if not done:
            shutil.rmtree(tmp, ignore_errors=True)
    return out / "index.html"
