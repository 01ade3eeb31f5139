"""The per-student Markdown reports: one report (with a heatmap PNG from :mod:`dicejack.figures`)
per submission, under a distinct safe name, never over a file this tool did not write."""
from __future__ import annotations

import hashlib
import os
import re
import warnings
from collections.abc import Sequence
from pathlib import Path

from dicejack import compare, figures, formats
from dicejack.compare.metrics import state_classes
from dicejack.formats.escape import markdown_code, markdown_text
from dicejack.grade.evidence.references import References
from dicejack.grade.intake.skip_rules import REPORT_FIRST_BYTES
from dicejack.grade.outputs.explanations import (
    REVIEW_BELOW,
    flag_checklist,
    fmt,
    p_value_text,
    plain_summary,
    quality_rows,
)
from dicejack.grade.outputs.output_paths import KnownInputs, prepare_reports_folder, starts_with
from dicejack.grade.scoring.record import Grade
from dicejack.grade.scoring.rubric import (
    CONSISTENCY_POINTS,
    FORMAT_POINTS,
    QUALITY_POINTS,
)
from dicejack.grade.settings import GradeWarning, Status
from dicejack.runtime import parallel

__all__ = ["report_names", "report_markdown", "write_reports"]


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
            lines.append(f"| {name} | {fmt(yours)} | {fmt(med)} | {fmt(lo)}..{fmt(hi)} "
                         f"| {fmt(pct, '.0f')}% of runs |")
        else:
            lines.append(f"| {name} (not scored) | {fmt(yours)} | {fmt(med)} | "
                         f"{fmt(lo)}..{fmt(hi)} | |")
    lines += [
        "", "## Consistency with the handout's algorithm", "",
        f"Statistic T = {fmt(c.statistic)} over {c.usable} usable states; reference runs "
        f"(held-out calibration runs): mean {fmt(c.null_mean)}, sd {fmt(c.null_sd)}; "
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
            f"| <{w.x},{w.y}> | {w.contribution:.2f} | {est} | {fmt(w.reference_mean)} | "
            f"{fmt(w.reference_low)}..{fmt(w.reference_high)} | {j} | "
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


def _free_stem(folder: Path, stem: str, taken: set[str], inputs: KnownInputs) -> str:
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
        if all(p.is_file() and not p.is_symlink() for p in present) and starts_with(
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
    known = KnownInputs(inputs)
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
