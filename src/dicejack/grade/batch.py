"""A batch end to end: :func:`grade_files` plans the outputs (every setting and output path
checked before any work: :func:`plan_outputs`, :func:`check_outputs`), collects the submissions
(:mod:`dicejack.grade.intake.inputs`), grades the batch (:func:`~dicejack.grade.scoring.grading.
grade_batch`: pure, it writes nothing) and writes the outputs (:func:`write_outputs`,
:func:`write_lms_outputs`): the gradebook, the reports, the site and the LMS grades."""

from __future__ import annotations

import concurrent.futures as cf
import os
import shutil
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from dicejack.formats import FormatError
from dicejack.formats.submission import submission_text
from dicejack.grade.evidence.references import References, reference_runs
from dicejack.grade.intake.inputs import (
    Entry,
    InputLimits,
    collect,
    display_name,
    resolved_path,
)
from dicejack.grade.intake.reading import NotRegularFile, html_text, read_regular
from dicejack.grade.intake.skip_rules import SKIPPED_EXTENSIONS
from dicejack.grade.outputs.gradebook import (
    check_gradebook_path,
    gradebook_records,
    write_gradebook,
)
from dicejack.grade.outputs.lms import (
    GRADESCOPE_VISIBILITY,
    check_gradescope_path,
    check_lms_path,
    format_mismatch,
    lms_format_name,
    lms_hold_reasons,
    write_gradescope,
    write_lms_csv,
)
from dicejack.grade.outputs.output_paths import prepare_reports_folder
from dicejack.grade.outputs.site import prepare_site, write_site
from dicejack.grade.outputs.student_reports import write_reports
from dicejack.grade.scoring.grading import grade_batch
from dicejack.grade.scoring.record import Grade
from dicejack.grade.scoring.students import KEEP
from dicejack.grade.settings import GradeConfig, GradeError, GradeWarning, Parameter, Status
from dicejack.runtime import frames

__all__ = ["Gradebook", "OutputPlan", "grade_files", "plan_outputs", "check_outputs",
           "write_outputs", "write_lms_outputs", "check_inputs_exist", "check_self_check_file"]


class Gradebook(NamedTuple):
    """What :func:`grade_files` returns: the reference runs and one Grade per file found (in
    order; skipped files included, status ``skipped``). Unpacks as ``refs, grades``."""

    refs: References
    grades: list[Grade]

    @property
    def graded(self) -> list[Grade]:
        """The grades of the submissions (skipped files left out)."""
        return [g for g in self.grades if g.status != Status.SKIPPED]

    def to_frame(self) -> Any:
        """A pandas DataFrame, one row per file: the gradebook's columns (numbers as numbers,
        NaN where empty) and every compare metric (pandas is optional: a one-line error without
        it)."""
        return frames.to_frame(gradebook_records(self.grades, metrics=True))


@dataclass(frozen=True)
class OutputPlan:
    """Where a batch's outputs go and how, checked before any work (:func:`plan_outputs`):
    each path None when that output is not wanted."""

    out: Path | None = None
    reports: Path | None = None
    site: Path | None = None
    lms_csv: Path | None = None
    gradescope: Path | None = None
    lms_format: str = "generic"
    lms_assignment: str = "dicejack"
    gradescope_visibility: str = "visible"
    keep: str = "latest"
    hold: tuple[str, ...] = ()

    @property
    def files(self) -> list[Path]:
        """The output files given (a batch skips them when found among its inputs)."""
        return [p for p in (self.out, self.lms_csv, self.gradescope) if p is not None]

    @property
    def folders(self) -> list[Path]:
        """The output folders given (a batch skips what they hold)."""
        return [d for d in (self.reports, self.site) if d is not None]


def plan_outputs(
    paths: Sequence[str | os.PathLike[str] | bytes],
    *,
    out: str | os.PathLike[str] | None = None,
    reports: str | os.PathLike[str] | None = None,
    site: str | os.PathLike[str] | None = None,
    lms_csv: str | os.PathLike[str] | None = None,
    lms_format: str = "generic",
    lms_assignment: str = "dicejack",
    gradescope: str | os.PathLike[str] | None = None,
    gradescope_visibility: str = "visible",
    keep: str = "latest",
    lms_hold: Sequence[str] | None = None,
) -> OutputPlan:
    """The outputs of a batch of `paths` (:func:`grade_files` says what each is), or GradeError
    (one line) for a bad setting, a missing input, two outputs naming one file, or an output
    folder that holds a submission or another output."""
    if not paths:
        raise GradeError("no submissions to grade")
    check_inputs_exist(paths)
    lms_format = lms_format_name(lms_format)
    hold = lms_hold_reasons(lms_hold)
    if keep not in KEEP:
        raise GradeError(Parameter("keep"), f" must be one of {', '.join(KEEP)}, got {keep!r}")
    if gradescope_visibility not in GRADESCOPE_VISIBILITY:
        raise GradeError(Parameter("gradescope_visibility"), " must be one of "
                         f"{', '.join(GRADESCOPE_VISIBILITY)}, got {gradescope_visibility!r}")
    targets = {"out": out, "lms_csv": lms_csv, "gradescope": gradescope}
    given = {k: Path(v) for k, v in targets.items() if v is not None}
    _distinct_outputs(given)
    out_path, lms_path, gs_path = (given.get(k) for k in targets)
    report_dir = Path(reports) if reports is not None else None
    site_dir = Path(site) if site is not None else None
    _output_folder_apart(report_dir, given, paths)
    _output_folder_apart(site_dir, given, paths, flag="site")
    if report_dir is not None and site_dir is not None and (
            resolved_path(report_dir) == resolved_path(site_dir)):
        raise GradeError(Parameter("reports"), " and ", Parameter("site"),
                         f" both name {display_name(site_dir)}; give each its own folder")
    return OutputPlan(out=out_path, reports=report_dir, site=site_dir, lms_csv=lms_path,
                      gradescope=gs_path, lms_format=lms_format, lms_assignment=lms_assignment,
                      gradescope_visibility=gradescope_visibility, keep=keep, hold=hold)


def check_outputs(plan: OutputPlan, paths: Sequence[str | os.PathLike[str] | bytes],
                  entries: Sequence[Entry]) -> list[Any]:
    """Refuse outputs that would replace a submission or a file this tool did not write, and
    a Gradescope result for more than one submission, once the batch is collected; the inputs
    (paths given and files found), which no output may replace."""
    submissions = [e for e in entries if not e.skipped]
    if plan.gradescope is not None and len(submissions) > 1:
        names = ", ".join(e.label for e in submissions[:3])
        more = ", ..." if len(submissions) > 3 else ""
        raise GradeError(Parameter("gradescope"), " grades one submission; found "
                         f"{len(submissions)}: {names}{more}")
    inputs = [*paths, *(e.path for e in submissions if e.path is not None)]
    check_gradebook_path(plan.out, inputs=inputs)
    check_lms_path(plan.lms_csv, inputs=inputs)
    check_gradescope_path(plan.gradescope, inputs=inputs)
    return inputs


class _GradedTexts(Mapping[str, tuple[str, tuple[int, ...]]]):
    """By submission, its text as graded and the lines its tables were read from, read from its
    entry only when its page asks (a batch's texts are never all in memory at once); a file
    read but not graded (an `unreadable` row, held for a look) shows what was submitted too."""

    def __init__(self, entries: Sequence[Entry], grades: Sequence[Grade]) -> None:
        self._by_name = {g.submission: (e, g.lines_read)
                         for e, g in zip(entries, grades, strict=True)
                         if g.status != Status.SKIPPED and not e.skipped and not e.error}

    def __getitem__(self, name: str) -> tuple[str, tuple[int, ...]]:
        entry, lines = self._by_name[name]
        try:
            data = entry.data if entry.data is not None else read_regular(
                entry.path if entry.path is not None else entry.label)
            text = html_text(data) if entry.html else submission_text(data)
        except (OSError, NotRegularFile, FormatError):
            raise KeyError(name) from None  # changed since it was graded: no text shown
        return text, lines

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)


def write_outputs(plan: OutputPlan, refs: References, grades: list[Grade], *,
                  inputs: Sequence[Any], progress: bool = False,
                  site_tmp: Path | None = None, entries: Sequence[Entry] | None = None) -> None:
    """Write the gradebook, the reports and the site of `plan` (those given); warn when the
    grades' LMS names do not match the LMS CSV's format. `entries` (the batch's, one per grade):
    each student page shows its submission's text, read again when its page is written."""
    mismatch = format_mismatch(grades, plan.lms_format) if plan.lms_csv is not None else ""
    if mismatch:
        warnings.warn(mismatch, GradeWarning, stacklevel=3)
    if plan.out is not None:
        write_gradebook(plan.out, grades)
    if plan.reports is not None:
        write_reports(refs, grades, plan.reports, progress=progress, inputs=inputs)
    if plan.site is not None:
        write_site(refs, grades, plan.site, progress=progress, tmp=site_tmp,
                   texts=_GradedTexts(entries, grades) if entries is not None else None)


def write_lms_outputs(plan: OutputPlan, refs: References, grades: list[Grade]) -> None:
    """Write the LMS grades CSV and the Gradescope results.json of `plan` (those given)."""
    if plan.lms_csv is not None:
        write_lms_csv(plan.lms_csv, grades, plan.lms_format, assignment=plan.lms_assignment,
                      keep=plan.keep)
    if plan.gradescope is not None:
        write_gradescope(plan.gradescope, refs, grades, visibility=plan.gradescope_visibility)


def grade_files(
    config: GradeConfig,
    paths: Sequence[str | os.PathLike[str] | bytes],
    *,
    out: str | os.PathLike[str] | None = None,
    reports: str | os.PathLike[str] | None = None,
    site: str | os.PathLike[str] | None = None,
    lms_csv: str | os.PathLike[str] | None = None,
    lms_format: str = "generic",
    lms_assignment: str = "dicejack",
    gradescope: str | os.PathLike[str] | None = None,
    gradescope_visibility: str = "visible",
    keep: str = "latest",
    lms_hold: Sequence[str] | None = None,
    cache_dir: str | os.PathLike[str] | None | bool = None,
    workers: int | None = None,
    dask: str | None = None,
    executor: cf.Executor | None = None,
    progress: bool = False,
    limits: InputLimits | None = None,
    diagnose: bool = True,
) -> Gradebook:
    """Grade every submission of `paths`: files, folders (searched recursively) and zip archives
    (:func:`dicejack.grade.intake.inputs.collect`), in order; then write the gradebook to `out`, one
    report per submission into `reports`, the HTML site into `site`
    (:func:`dicejack.grade.outputs.site.write_site`), the LMS grades CSV (`lms_csv` in `lms_format`,
    :func:`dicejack.grade.lms.lms_csv`) and the Gradescope results.json (`gradescope`: exactly
    one submission), each when given. `keep` chooses which of a student's files goes out
    (latest or best: :func:`dicejack.grade.students.mark_kept`), `lms_hold` which grades stay
    out of the LMS CSV for a human look (:func:`dicejack.grade.students.mark_held`: a tuple of
    ``"review"``, ``"fail"``, ``"copied"``, ``"late"``, ``"unreadable"``; by default review,
    copied and unreadable: :data:`~dicejack.grade.lms.DEFAULT_LMS_HOLD`; ``()`` sends every
    grade); the gradebook says both (`kept`, `held`). `diagnose`: name the
    likely cause of every output that did not pass (:mod:`dicejack.grade.scoring.diagnosis`: bug
    models (:mod:`dicejack.grade.evidence.bug_models`) played once per setting and cached beside
    the reference runs).

    Bad settings or output paths raise GradeError before any work; bad files become rows.
    Nothing given as a submission is ever written: an output naming a submission (by any
    spelling or link) is refused, and so is an existing output file this tool did not write
    (:func:`check_gradebook_path`); reports never replace a file they did not write
    (:func:`write_reports`). Outputs found while searching the folders given are skipped.
    """
    plan = plan_outputs(
        paths, out=out, reports=reports, site=site, lms_csv=lms_csv, lms_format=lms_format,
        lms_assignment=lms_assignment, gradescope=gradescope,
        gradescope_visibility=gradescope_visibility, keep=keep, lms_hold=lms_hold)
    entries = collect(paths, limits=limits, outputs=plan.files,
                      output_folders=plan.folders)
    inputs = check_outputs(plan, paths, entries)
    prepare_reports_folder(plan.reports)
    site_tmp = prepare_site(plan.site) if plan.site is not None else None
    try:
        refs = reference_runs(config, cache_dir=cache_dir, workers=workers, dask=dask,
                              executor=executor, progress=progress)
        grades = grade_batch(refs, entries, keep=plan.keep, hold=plan.hold, diagnose=diagnose,
                             cache_dir=cache_dir, progress=progress)
        write_outputs(plan, refs, grades, inputs=inputs, progress=progress, site_tmp=site_tmp,
                      entries=entries)
    finally:
        if site_tmp is not None and site_tmp.exists():
            shutil.rmtree(site_tmp, ignore_errors=True)
    write_lms_outputs(plan, refs, grades)
    return Gradebook(refs, grades)


def check_inputs_exist(paths: Sequence[str | os.PathLike[str] | bytes]) -> None:
    """Refuse, before any work, a path given that does not exist (a typo, or a pattern the
    shell left as typed because it matched nothing): grading it would invent a 0 row."""
    for raw in paths:
        try:
            os.lstat(raw)
        except FileNotFoundError:
            name = display_name(raw)
            pattern = " (a pattern that matched nothing?)" if any(c in name for c in "*?[") else ""
            raise GradeError(f"no such file or folder: {name}{pattern}") from None
        except (OSError, ValueError, TypeError):
            continue  # it exists but cannot be looked at: its row says why


def check_self_check_file(path: str | os.PathLike[str] | bytes) -> None:
    """Refuse, in one line, the one file of a student's self-check when its name says it is not
    a printed output (source code, a document, an image, a binary: what a batch would skip,
    :data:`~dicejack.grade.skip_rules.SKIPPED_EXTENSIONS`), saying what to give instead.
    Reading a program's source as tables would only confuse (issue 32)."""
    name = display_name(path)
    suffix = Path(os.fsdecode(path) if isinstance(path, bytes) else os.fspath(path)).suffix
    reason = SKIPPED_EXTENSIONS.get(suffix.lower(), "")
    if not reason:
        return
    if reason.startswith("source code"):
        raise GradeError(f"{name} is source code ({suffix} file), not what your program prints: "
                         f"run the program and grade its output instead, e.g. save it with "
                         f"`<run your program> > output.txt` and give output.txt")
    raise GradeError(f"{name} is {reason}: give the text your program prints (the two "
                     "tables), saved as a .txt file")


def _output_folder_apart(folder: Path | None, given: dict[str, Path],
                   paths: Sequence[str | os.PathLike[str] | bytes],
                   flag: str = "reports") -> None:
    """Refuse a reports folder that is, or holds, a submission given (the run would skip every
    submission as its own output), and an output file inside it (a report could replace it)."""
    if folder is None:
        return
    where = resolved_path(folder)
    if where is None:
        return
    for raw in paths:
        path = resolved_path(raw)
        if path is not None and (path == where or where in path.parents):
            raise GradeError(Parameter(flag), f" {display_name(folder)} holds the submission "
                             f"{display_name(raw)}; give a folder outside what is graded")
    for option, out in given.items():
        path = resolved_path(out)
        if path is not None and where in path.parents:
            raise GradeError(Parameter(option), f" {display_name(out)} is inside the ",
                             Parameter(flag), " folder, where a page could replace it; write it "
                             "elsewhere")


def _distinct_outputs(given: dict[str, Path]) -> None:
    """Refuse two output options naming one file (one would silently replace the other)."""
    seen: dict[Path, str] = {}
    for option, path in given.items():
        try:
            key = path.resolve(strict=False)
        except (OSError, RuntimeError, ValueError):
            key = path
        if key in seen:
            raise GradeError(Parameter(option), f" {path} is also ", Parameter(seen[key]),
                             "; give each output its own file")
        seen[key] = option
