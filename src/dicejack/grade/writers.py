"""What grading writes: the gradebook CSV, the terminal summary, and one Markdown report (with a
heatmap PNG from :mod:`dicejack.figures`) per submission under a safe name; and the checks of
those output paths, made before any work."""

from __future__ import annotations

import csv
import hashlib
import io
import math
import os
import re
import stat
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from dicejack import compare, figures, formats, parallel
from dicejack.grade.rubric import (
    CONSISTENCY_POINTS,
    FLAG_HELP,
    FLAG_HINTS,
    FORMAT_POINTS,
    P_REVIEW,
    QUALITY_METRICS,
    QUALITY_POINTS,
)
from dicejack.grade.settings import GradeError, GradeWarning

if TYPE_CHECKING:  # pragma: no cover
    from dicejack.grade.grading import Grade
    from dicejack.grade.references import References

__all__ = ["GRADEBOOK_HEADER", "gradebook_csv", "write_gradebook", "summary_text",
           "report_names", "plain_summary", "report_markdown", "write_reports",
           "check_gradebook_path", "prepare_reports_folder", "same_as_any"]

#: The gradebook's header, exactly as in DESIGN.md.
GRADEBOOK_HEADER: tuple[str, ...] = (
    "submission", "status", "score", "verdict", "consistency_p", "agreement_decisive",
    "rmse_onpath", "score_vs_optimal", "layout", "flags", "error", "similar_to",
)


def _resolved(path: str | os.PathLike[str] | bytes) -> Path | None:
    try:
        raw = os.fsdecode(path) if isinstance(path, bytes) else path
        return Path(raw).resolve(strict=False)
    except (OSError, ValueError, TypeError, RuntimeError):
        return None


class _Inputs:
    """The submissions, by resolved path and by (device, inode), to recognise any spelling or
    link of one of them."""

    def __init__(self, inputs: Iterable[str | os.PathLike[str] | bytes]) -> None:
        self.by_path: dict[Path, str] = {}
        self.by_inode: dict[tuple[int, int], str] = {}
        for item in inputs:
            resolved = _resolved(item)
            if resolved is None:
                continue
            self.by_path.setdefault(resolved, str(item))
            try:
                st = os.stat(resolved)
            except (OSError, ValueError):
                continue
            self.by_inode.setdefault((st.st_dev, st.st_ino), str(item))

    def match(self, path: Path) -> str | None:
        resolved = _resolved(path)
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


def _starts_with(path: Path, prefix: bytes) -> bool:
    """True when `path` is a regular file whose content starts with `prefix` (read without
    blocking; nothing else is read)."""
    try:
        if not path.is_file():
            return False
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        try:
            return os.read(fd, len(prefix)) == prefix
        finally:
            os.close(fd)
    except (OSError, ValueError):
        return False


_GRADEBOOK_FIRST_LINE = (",".join(GRADEBOOK_HEADER) + "\n").encode()
_REPORT_FIRST_BYTES = b"# Grade: `"


def check_gradebook_path(
    out: Path | None, inputs: Sequence[str | os.PathLike[str] | bytes] = ()
) -> None:
    """Refuse a gradebook path before any work: one that cannot be written (a folder, a missing
    folder: :func:`dicejack.formats.check_output_file`), one that is a submission of `inputs`
    (by any spelling or link), and an existing file that is not empty and not a previous
    gradebook (its first line is not :data:`GRADEBOOK_HEADER`): grading replaces only its own
    previous gradebook."""
    if out is None:
        return
    try:
        formats.check_output_file(out, option="--out",
                                  hint="give a file name such as gradebook.csv")
    except formats.FormatError as exc:
        raise GradeError(str(exc)) from None
    clash = same_as_any(out, inputs)
    if clash is not None:
        raise GradeError(f"--out {out} is the submission {clash}; grading never replaces a "
                         "submission: give another --out")
    try:
        st = out.stat() if out.exists() or out.is_symlink() else None
    except (OSError, ValueError):
        st = None
    if st is None:
        return
    if not stat.S_ISREG(st.st_mode):
        raise GradeError(f"--out {out} exists and is not a regular file; give another --out")
    if st.st_size and not _starts_with(out, _GRADEBOOK_FIRST_LINE):
        raise GradeError(f"--out {out} exists and is not a dicejack gradebook; move it away or "
                         "give another --out")


def prepare_reports_folder(folder: Path | None) -> None:
    """Create the reports folder, or refuse it (:func:`dicejack.formats.ensure_output_folder`)."""
    if folder is not None:
        try:
            formats.ensure_output_folder(folder, option="--reports", what="reports folder")
        except formats.FormatError as exc:
            raise GradeError(str(exc)) from None


def _csv_text(text: str) -> str:
    """A text cell a spreadsheet will not run as a formula."""
    text = " ".join(str(text).split())
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def _num(value: float, fmt: str) -> str:
    return format(value, fmt) if value is not None and np.isfinite(value) else ""


def gradebook_csv(grades: Iterable[Grade]) -> str:
    """The gradebook: DESIGN.md's header, one row per submission."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(GRADEBOOK_HEADER)
    for g in grades:
        ok = g.status == "ok"
        writer.writerow([
            _csv_text(g.submission), g.status, _num(g.score, ".1f"), g.verdict,
            _num(g.consistency_p, ".4g") if ok else "",
            _num(g.metrics.get("agreement_decisive", math.nan), ".4f"),
            _num(g.metrics.get("rmse_onpath", math.nan), ".4f"),
            _num(g.metrics.get("score_vs_optimal", math.nan), ".4f"),
            _csv_text(g.layout), _csv_text(";".join(g.flags)), _csv_text(g.error),
            _csv_text(";".join(g.similar_to)),
        ])
    return buffer.getvalue()


def write_gradebook(path: str | os.PathLike[str], grades: Iterable[Grade]) -> None:
    """Write the gradebook atomically."""
    formats.write_atomic(path, gradebook_csv(grades))


def summary_text(grades: Sequence[Grade]) -> str:
    """A plain table for the terminal: one line per submission, then the counts."""
    width = min(max([len(g.submission) for g in grades] + [10]), 48)
    lines = [f"{'submission':<{width}}  {'score':>5}  {'verdict':<7}  {'p':>8}  flags / error"]
    for g in grades:
        name = g.submission if len(g.submission) <= width else "..." + g.submission[-width + 3:]
        p = _num(g.consistency_p, ".2g") if g.status == "ok" else ""
        tail = ";".join(g.flags) if g.status == "ok" else f"error: {g.error}"
        lines.append(f"{name:<{width}}  {g.score:5.1f}  {g.verdict:<7}  {p:>8}  {tail}")
    counts = {v: sum(1 for g in grades if g.status == "ok" and g.verdict == v)
              for v in ("pass", "review", "fail")}
    errors = sum(1 for g in grades if g.status == "error")
    lines.append(f"{len(grades)} submissions: {counts['pass']} pass, {counts['review']} review, "
                 f"{counts['fail']} fail, {errors} unreadable")
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


_VERDICT_MEANING = {
    "pass": "Your tables look like what the handout's algorithm produces at these settings: "
    "as good as it gets, and statistically consistent with it.",
    "review": "Something deserves a human look: the tables are unusual for the handout's "
    "algorithm at these settings (see the flags), but this is not proof of an error. About "
    f"{P_REVIEW:.0%} of correct programs land here by chance at the default level "
    f"(p < {P_REVIEW}).",
    "fail": "The tables show evidence of a different algorithm or an unusable output "
    "(a consistency p-value a correct program essentially never reaches, or no usable table).",
}


def plain_summary(g: Grade) -> str:
    """A plain-language paragraph: what the verdict means and what to check first."""
    text = _VERDICT_MEANING.get(g.verdict, "")
    first = next((f for f in g.flags if f in FLAG_HINTS), None)
    if first is not None:
        text += f" Check first: {FLAG_HINTS[first]}"
    elif g.verdict != "pass" and g.worst:
        w = g.worst[0]
        text += (f" Check first: state <{w.x},{w.y}>, where your estimate is least like the "
                 "reference runs (the worst states are listed below).")
    return text


def report_markdown(refs: References, g: Grade, image: str | None = None) -> str:
    """One submission's report: score, verdict, flags, metrics against the reference runs'
    percentiles, the consistency test, the worst states and the heatmap."""
    cfg = refs.config
    lines = [f"# Grade: `{g.submission}`", ""]
    if g.status != "ok":
        lines += ["**Could not be graded: score 0 / 100, fail.**", "", f"Reason: {g.error}", ""]
        return "\n".join(lines)
    lines += [
        f"**Score {g.score:.1f} / 100 — {g.verdict}.**", "",
        plain_summary(g), "",
        f"Graded against {cfg.describe()}.", "",
        f"Layout read: `{g.layout or 'unknown'}`."
        + (f" Reader's notes: {g.notes}." if g.notes else ""), "",
    ]
    if g.flags:
        lines.append("Flags, and what to check first:")
        for f in g.flags:
            hint = FLAG_HINTS.get(f, "")
            lines.append(f"- `{f}`: {FLAG_HELP.get(f, 'reported by the reader')}."
                         + (f" {hint}" if hint else ""))
            if f == "copied" and g.similar_to:
                lines.append("  Similar to: " + ", ".join(f"`{n}`" for n in g.similar_to) + ".")
        for fix, score in g.what_if.items():
            lines.append(f"- With the tables {fix}, the score would be {score:.1f} / 100.")
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
    for name, _, _ in QUALITY_METRICS:
        lo, med, hi = refs.quantile(name, [0.05, 0.5, 0.95], g.decimals)
        pct = g.percentiles.get(name, math.nan)
        lines.append(f"| {name} | {_fmt(g.metrics[name])} | {_fmt(med)} | {_fmt(lo)}..{_fmt(hi)} "
                     f"| {_fmt(pct, '.0f')}% of runs |")
    lines += [
        "", "## Consistency with the handout's algorithm", "",
        f"Statistic T = {_fmt(c.statistic)} over {c.usable} usable states; reference runs "
        f"(held-out calibration runs): mean {_fmt(c.null_mean)}, sd {_fmt(c.null_sd)}.",
        f"p-value {_fmt(c.p_value, '.3g')} (log-t fit of the calibration runs), rank p-value "
        f"{_fmt(c.p_rank, '.3g')} (cannot go below 1/{cfg.calibration + 1}).",
    ]
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
                  "Left: the printed policy against the optimal one (with the handout's caveats). "
                  "Right: where the estimate sits among the reference runs (normal score; grey: "
                  "not enough reference data).", "", f"![heatmap]({image})"]
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
                md, _REPORT_FIRST_BYTES):
            return name


def write_reports(
    refs: References, grades: Sequence[Grade], folder: str | os.PathLike[str], *,
    progress: bool = False, inputs: Sequence[str | os.PathLike[str] | bytes] = (),
) -> list[Path]:
    """One Markdown report (and, when graded, one PNG heatmap) per submission into `folder`,
    under :func:`report_names`; returns the Markdown paths.

    Never replaces a file it did not write: a name whose .md or .png exists and is not a
    previous dicejack report (or is one of `inputs`, the submissions) moves to `name-2` and so
    on, with a :class:`GradeWarning` saying so."""
    folder = Path(folder)
    prepare_reports_folder(folder)
    paths = []
    advance, stop = parallel.progress_bar("reports", len(grades), progress)
    drawn = [g for g in grades if g.status == "ok" and g.consistency is not None]
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
            if heatmaps is not None and g.status == "ok" and g.consistency is not None:
                image = f"{stem}.png"
                learned = compare.learned_from_tables(refs.game, g.policy, g.probability)
                heatmaps.draw(compare.state_classes(refs.truth, learned), g.consistency.score,
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
