"""Grading: one printed output (arrays, text or a file) into a :class:`Grade`, and a batch of
submissions (files, folders, zip archives: :mod:`dicejack.grade.inputs`) into grades, the
gradebook, the reports and the LMS outputs. Bad files become rows (status error), files that are
not outputs rows that say why they were skipped, never exceptions; submissions are data, never
code: read as text, at most MAX_SUBMISSION_BYTES."""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import math
import os
import shutil
import stat
import warnings
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from dicejack import compare, formats, one_line
from dicejack.game import DicejackError, Game
from dicejack.grade.consistency import (
    Consistency,
    consistency,
    looks_transposed,
    looks_zero_based,
)
from dicejack.grade.copies import mark_copies
from dicejack.grade.diagnosis import mark_diagnosis
from dicejack.grade.inputs import (
    MAX_SUBMISSION_BYTES,
    Entry,
    InputLimits,
    NotRegularFile,
    collect,
    display_name,
    html_text,
    read_regular,
    resolved_path,
    too_large,
)
from dicejack.grade.lms import (
    GRADESCOPE_VISIBILITY,
    check_gradescope_path,
    check_lms_path,
    format_mismatch,
    lms_format_name,
    lms_hold_reasons,
    write_gradescope,
    write_lms_csv,
)
from dicejack.grade.power import setting_power
from dicejack.grade.print_rules import print_check
from dicejack.grade.printed import graded_learned, graded_tables, printed_decimals
from dicejack.grade.record import Grade, WorstState
from dicejack.grade.references import References, reference_runs
from dicejack.grade.rubric import (
    FLAG_DEDUCTIONS,
    FORMAT_POINTS,
    P_INCONSISTENT,
    QUALITY_METRICS,
    QUALITY_POINTS,
    consistency_points,
    percentile_among,
    quality_fraction,
    verdict_for,
)
from dicejack.grade.settings import GradeConfig, GradeError, GradeWarning
from dicejack.grade.site import prepare_site, write_site
from dicejack.grade.skip_rules import SKIPPED_EXTENSIONS
from dicejack.grade.students import KEEP, mark_held, mark_kept
from dicejack.grade.writers import (
    check_gradebook_path,
    gradebook_records,
    prepare_reports_folder,
    write_gradebook,
    write_reports,
)
from dicejack.runtime import frames, parallel

__all__ = ["Grade", "WorstState", "Gradebook", "grade_tables", "grade_text", "grade_file",
           "grade_entry", "grade_files", "worst_states", "display_name", "MAX_SUBMISSION_BYTES",
           "check_inputs_exist", "check_self_check_file"]


def _as_table(game: Game, name: str, a: Any) -> np.ndarray:
    arr = np.asarray(a, dtype=np.float64)
    if arr.shape != game.shape:
        raise GradeError(f"the {name} table is {'x'.join(map(str, arr.shape))}, "
                         f"not {game.low}x{game.low}")
    return arr


def grade_tables(
    refs: References,
    policy: Any,
    probability: Any,
    *,
    no_data: Any = None,
    layout: str = "",
    flags: Sequence[str] = (),
    submission: str = "",
    notes: str = "",
    worst: int = 10,
    what_if: bool = True,
) -> Grade:
    """Grade the two printed arrays (policy, probability) against `refs`.

    no_data: the reader's mask of probability cells that are no-data markers (-1 where None).
    flags: the reader's flags; grading adds its own (:data:`FLAG_HELP`). Tables that fit
    markedly better transposed (flag `transposed`) are graded transposed back, less the format
    points the flag costs: a printing slip, not a wrong algorithm. what_if: also grade the tables
    as they should have been printed (Grade.what_if: the score printed as table[X][Y], or with J
    shifted by one for a 0-based-looking J).
    """
    return _grade(refs, policy, probability, no_data=no_data, layout=layout, flags=flags,
                  submission=submission, notes=notes, worst=worst, what_if=what_if,
                  corrections=tuple(_CORRECTIONS))


#: Grade.what_if's name for the score of a transposed submission printed the right way round.
PRINTED_AS_XY = "printed as table[X][Y]"
#: ... and of a submission with J printed 0-based, printed 1-based.
PRINTED_ONE_BASED = "printed with J 1-based"
#: The corrections a printing slip gets (tried in this order): flag, what-if name, the printed
#: tables' flags the correction explains.
_CORRECTIONS = {"zero-based-j": (PRINTED_ONE_BASED, {"data-without-policy"}),
                "transposed": (PRINTED_AS_XY, set())}


def _corrected(back: Grade, printed_flags: Sequence[str], flag: str, what_if: bool) -> Grade:
    """The grade of a submission with a printing slip (`flag`: transposed tables, a 0-based J)
    from `back`, the grade of its tables corrected: the same quality and consistency, the
    format points less the flag's deduction, the flag added (a review), and what the tables
    would score printed right (what-if). Slips are corrected alike, whichever they are."""
    label, explained = _CORRECTIONS[flag]
    kept = [f for f in printed_flags if f not in explained]
    flags = list(dict.fromkeys([*kept, flag, *back.flags]))
    fmt = max(0.0, back.points["format"] - FLAG_DEDUCTIONS[flag])
    score = round(fmt + back.points["quality"] + back.points["consistency"], 1)
    p = back.consistency.p_value if back.consistency is not None else math.nan
    return dataclasses.replace(
        back, score=score, verdict=verdict_for(score, p, flags), flags=tuple(flags),
        points={**back.points, "format": fmt},
        what_if={label: back.score, **back.what_if} if what_if else {},
    )


def _grade(
    refs: References,
    policy: Any,
    probability: Any,
    *,
    no_data: Any,
    layout: str,
    flags: Sequence[str],
    submission: str,
    notes: str,
    worst: int,
    what_if: bool,
    corrections: tuple[str, ...],
) -> Grade:
    """:func:`grade_tables`; `corrections`: the printing slips still to try (each once: a
    corrected table is not corrected again for the same slip)."""
    game = refs.game
    pol = _as_table(game, "policy", policy)
    prob = _as_table(game, "probability", probability)
    mask = (prob == -1) if no_data is None else np.asarray(no_data, dtype=bool)
    if mask.shape != game.shape:
        raise GradeError("the no-data mask does not match the tables")
    flags_out = list(dict.fromkeys(str(f) for f in flags))

    def flag(name: str) -> None:
        if name not in flags_out:
            flags_out.append(name)

    j, value, valid_j = graded_tables(game, pol, prob, mask)
    if np.any(~mask & ~np.isnan(prob) & ((prob < 0) | (prob > 1))) or np.any(
        ~mask & np.isnan(prob)
    ):
        flag("prob-out-of-range")
    no_policy = np.isfinite(pol) & ((pol == 0) | (pol == -1))
    if np.any(~valid_j & ~no_policy):
        flag("policy-out-of-range")
    if np.any((value > 0) & ~valid_j):
        flag("data-without-policy")
    if not np.any(j >= 1):
        flag("no-data")

    decimals = printed_decimals(value[value > 0])
    cons = consistency(refs, j, value, decimals)
    rest = tuple(c for c in corrections if c != "zero-based-j")
    if ("zero-based-j" in corrections and "data-without-policy" in flags_out
            and looks_zero_based(refs, pol, value, decimals, cons)):
        shifted = np.where(np.isfinite(pol), pol + 1, pol)
        back = _grade(refs, shifted, prob, no_data=mask, layout=layout, flags=flags,
                      submission=submission, notes=notes, worst=worst, what_if=what_if,
                      corrections=rest)
        return _corrected(back, flags_out, "zero-based-j", what_if)
    if "transposed" in corrections and looks_transposed(refs, j, value, decimals, cons):
        back = _grade(refs, pol.T, prob.T, no_data=mask.T, layout=layout, flags=flags,
                      submission=submission, notes=notes, worst=worst, what_if=what_if,
                      corrections=tuple(c for c in corrections if c != "transposed"))
        return _corrected(back, flags_out, "transposed", what_if)
    if not np.isfinite(cons.p_value):
        flag("untestable")
    elif cons.p_value < P_INCONSISTENT:
        flag("inconsistent")
    printing = print_check(refs, j, value, decimals)
    if printing.flag:
        flag(printing.flag)

    metrics = compare.metric_values(refs.truth, graded_learned(game, j, value, submission))
    quality = 0.0
    percentiles: dict[str, float] = {}
    metric_points: dict[str, float] = {}
    per_metric = QUALITY_POINTS / len(QUALITY_METRICS)
    for name, sign, floor in QUALITY_METRICS:
        reference = refs.metric(name, decimals)
        frac = quality_fraction(metrics[name], reference, sign, floor)
        metric_points[name] = per_metric * frac
        quality += metric_points[name]
        percentiles[name] = percentile_among(metrics[name], reference, sign)
        if frac < 0.5:
            flag("low-quality")
    fmt = max(0.0, FORMAT_POINTS - sum(FLAG_DEDUCTIONS.get(f, 0.0) for f in flags_out))
    cpoints = consistency_points(cons.p_value)
    score = round(fmt + quality + cpoints, 1)
    points = {"format": fmt, "quality": quality, "consistency": cpoints}
    fixes: dict[str, float] = {}
    if what_if and "data-without-policy" in flags_out:
        shifted = np.where(np.isfinite(pol), pol + 1, pol)
        fixes["J shifted by one"] = grade_tables(
            refs, shifted, prob, no_data=mask, what_if=False, worst=0).score
    return Grade(
        submission=submission, status="ok", score=score,
        verdict=verdict_for(score, cons.p_value, flags_out), consistency=cons, metrics=metrics,
        points=points, percentiles=percentiles, layout=layout, flags=tuple(flags_out),
        notes=notes, worst=worst_states(refs, j, value, cons, worst), policy=j, probability=value,
        what_if=fixes, metric_points=metric_points, print_check=printing,
    )


def worst_states(
    refs: References, policy: np.ndarray, value: np.ndarray, cons: Consistency, limit: int
) -> tuple[WorstState, ...]:
    per = np.where(np.isfinite(cons.per_state), cons.per_state, -np.inf)
    order = np.argsort(-per, axis=None, kind="stable")[:limit]
    rows = []
    optimal = refs.truth.solution.optimal
    values = refs.values_at(cons.decimals)
    for flat in order:
        x, y = (int(v) for v in np.unravel_index(flat, per.shape))
        if not np.isfinite(per[x, y]):
            break
        with_data = refs.has_data[:, x, y]
        est = refs.probability[with_data, x, y]
        lo, hi = (np.quantile(est, [0.05, 0.95]) if est.size else (math.nan, math.nan))
        j = int(policy[x, y])
        agree = (values[:, x, y] == 0) | (refs.tied[:, x, y, j] if j >= 1 else False)
        rows.append(WorstState(
            x=x, y=y, contribution=float(per[x, y]), estimate=float(value[x, y]),
            reference_mean=float(refs.mean[x, y]), reference_low=float(lo),
            reference_high=float(hi), policy=j,
            policy_share=float(np.mean(agree)) if j >= 1 else math.nan,
            optimal=tuple(int(v) for v in np.flatnonzero(optimal[x, y])),
        ))
    return tuple(rows)


def grade_file(refs: References, path: str | os.PathLike[str] | bytes, *,
               name: str | None = None, html: bool = False) -> Grade:
    """Grade one submission file. Never raises for a bad file: its Grade says why (status
    error). Only regular files of at most MAX_SUBMISSION_BYTES are read, and only as data: the
    file is opened without blocking and checked again once open (a FIFO or device swapped in
    after the first check is refused, never waited on). html: the file is a web page (an LMS
    text entry); its text is graded (:func:`dicejack.grade.inputs.html_text`)."""
    label = display_name(path if name is None else name)
    try:
        p = Path(os.fsdecode(path)) if isinstance(path, bytes) else Path(path)
        st = p.stat()
    except OSError as exc:
        return _error(label, f"cannot read {label}: {exc.strerror or 'no such file'}")
    except (ValueError, TypeError) as exc:  # e.g. a NUL byte in the name
        return _error(label, f"cannot read {label}: {exc}")
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        return _error(label, f"cannot read {label}: {kind}")
    if st.st_size > MAX_SUBMISSION_BYTES:
        return _error(label, too_large(label, st.st_size))
    try:
        data = read_regular(p)
    except OSError as exc:
        return _error(label, f"cannot read {label}: {exc.strerror or exc}")
    except NotRegularFile:
        return _error(label, f"cannot read {label}: not a regular file")
    if len(data) > MAX_SUBMISSION_BYTES:
        return _error(label, too_large(label, len(data)))
    return grade_text(refs, html_text(data) if html else data, name=label)


def grade_text(refs: References, text: str | bytes, *, name: str = "submission") -> Grade:
    """Grade a submission's printed output (text, or undecoded bytes) as :func:`grade_file`
    does a file's. Never raises for bad content: its Grade says why (status error)."""
    label = display_name(name)
    try:
        sub = formats.read_submission_text(text, refs.game.low, refs.game.n_dice)
        return grade_tables(
            refs, sub.policy, sub.probability, no_data=sub.no_data, layout=sub.layout,
            flags=sub.flags, submission=label, notes=sub.notes,
        )
    except DicejackError as exc:
        found = formats.find_table_size(text, refs.game.n_dice)
        if found is not None and found != refs.game.low:
            return dataclasses.replace(_error(label, one_line(exc)), table_size=found)
        return _error(label, one_line(exc))
    except (KeyboardInterrupt, SystemExit):
        raise
    except MemoryError:
        return _error(label, f"cannot read {label}: out of memory")
    except Exception as exc:  # noqa: BLE001 - one bad file must never stop the batch
        return _error(label, f"cannot grade {label}: internal error "
                             f"({type(exc).__name__}: {one_line(exc)})")


def batch_hint(refs: References, grades: Sequence[Grade]) -> str:
    """One line for the top of a batch's output when most of its files point to other settings
    or one slip (the command to re-run when there is one), else "": tables of another size
    (another LTarget), tables that fit markedly better transposed, J printed 0-based."""
    files = [g for g in grades if g.status != "skipped"]
    if not files:
        return ""
    half = len(files) / 2
    sizes = Counter(g.table_size for g in files if g.table_size is not None)
    if sizes:
        size, count = sizes.most_common(1)[0]
        if count > half:
            return (f"{count} of {len(files)} files hold {size}x{size} tables, not "
                    f"{refs.game.low}x{refs.game.low}: LTarget={size}? re-run with --low {size} "
                    f"--high <UTarget> (the settings the class was given)")
    for flag, what in (("transposed", "fit markedly better transposed (rows Y, columns X): "
                        "the class may have been shown the tables the other way round"),
                       ("zero-based-j", "print J 0-based (0..NDice-1): the class may have "
                        "been shown 0-based J"),
                       ("data-without-policy", "print J 0-based or leave it out where there "
                        "is an estimate: the class may have been shown 0-based J")):
        count = sum(flag in g.flags for g in files)
        if count > half:
            return f"{count} of {len(files)} files {what} (flag {flag}; see each report)"
    return ""


def _error(label: str, message: str) -> Grade:
    return Grade(submission=label, status="error", score=0.0, verdict="fail",
                 error=one_line(message))


def grade_entry(refs: References, entry: Entry) -> Grade:
    """Grade one collected :class:`~dicejack.grade.inputs.Entry` (a file, an archive member, or
    a skipped or unreadable one), with its student. Never raises for bad content."""
    if entry.skipped:
        g = Grade(submission=entry.label, status="skipped", verdict="",
                  error=one_line(entry.skipped))
    elif entry.error:
        g = _error(entry.label, entry.error)
    elif entry.data is not None:
        g = grade_text(refs, html_text(entry.data) if entry.html else entry.data,
                       name=entry.label)
    else:
        g = grade_file(refs, entry.path if entry.path is not None else entry.label,
                       name=entry.label, html=entry.html)
    if entry.flags:
        verdict = "review" if g.verdict == "pass" else g.verdict
        g = dataclasses.replace(g, flags=(*g.flags, *entry.flags), verdict=verdict)
    s = entry.student
    if s is None:
        return g
    return dataclasses.replace(g, student=s.id, student_name=s.name, lms=s.lms, late=s.late,
                               order=s.order)


class Gradebook(NamedTuple):
    """What :func:`grade_files` returns: the reference runs and one Grade per file found (in
    order; skipped files included, status ``skipped``). Unpacks as ``refs, grades``."""

    refs: References
    grades: list[Grade]

    @property
    def graded(self) -> list[Grade]:
        """The grades of the submissions (skipped files left out)."""
        return [g for g in self.grades if g.status != "skipped"]

    def to_frame(self) -> Any:
        """A pandas DataFrame, one row per file: the gradebook's columns (numbers as numbers,
        NaN where empty) and every compare metric (pandas is optional: a one-line error without
        it)."""
        return frames.to_frame(gradebook_records(self.grades, metrics=True))


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
    lms_hold: Sequence[str] | str | None = None,
    cache_dir: str | os.PathLike[str] | None | bool = None,
    workers: int | None = None,
    dask: str | None = None,
    executor: cf.Executor | None = None,
    progress: bool = False,
    limits: InputLimits | None = None,
    diagnose: bool = True,
) -> Gradebook:
    """Grade every submission of `paths`: files, folders (searched recursively) and zip archives
    (:func:`dicejack.grade.inputs.collect`), in order; then write the gradebook to `out`, one
    report per submission into `reports`, the HTML site into `site`
    (:func:`dicejack.grade.site.write_site`), the LMS grades CSV (`lms_csv` in `lms_format`,
    :func:`dicejack.grade.lms.lms_csv`) and the Gradescope results.json (`gradescope`: exactly
    one submission), each when given. `keep` chooses which of a student's files goes out
    (latest or best: :func:`dicejack.grade.students.mark_kept`), `lms_hold` which grades stay
    out of the LMS CSV for a human look (:func:`dicejack.grade.students.mark_held`; by default
    review, copied and unreadable: :data:`~dicejack.grade.lms.DEFAULT_LMS_HOLD`; ``"none"`` or
    ``()`` sends every grade); the gradebook says both (`kept`, `held`). `diagnose`: name the
    likely cause of every output that did not pass (:mod:`dicejack.grade.diagnosis`: bug models
    played once per setting and cached beside the reference runs).

    Bad settings or output paths raise GradeError before any work; bad files become rows.
    Nothing given as a submission is ever written: an output naming a submission (by any
    spelling or link) is refused, and so is an existing output file this tool did not write
    (:func:`check_gradebook_path`); reports never replace a file they did not write
    (:func:`write_reports`). Outputs found while searching the folders given are skipped.
    """
    if not paths:
        raise GradeError("no submissions to grade")
    check_inputs_exist(paths)
    lms_format = lms_format_name(lms_format)
    hold = lms_hold_reasons(lms_hold)
    if keep not in KEEP:
        raise GradeError(f"--keep must be one of {', '.join(KEEP)}, got {keep!r}")
    if gradescope_visibility not in GRADESCOPE_VISIBILITY:
        raise GradeError(f"--gradescope-visibility must be one of "
                         f"{', '.join(GRADESCOPE_VISIBILITY)}, got {gradescope_visibility!r}")
    targets = {"--out": out, "--lms-csv": lms_csv, "--gradescope": gradescope}
    given = {k: Path(v) for k, v in targets.items() if v is not None}
    _distinct_outputs(given)
    out_path, lms_path, gs_path = (given.get(k) for k in targets)
    report_dir = Path(reports) if reports is not None else None
    site_dir = Path(site) if site is not None else None
    _output_folder_apart(report_dir, given, paths)
    _output_folder_apart(site_dir, given, paths, flag="--html")
    if report_dir is not None and site_dir is not None and (
            resolved_path(report_dir) == resolved_path(site_dir)):
        raise GradeError(f"--reports and --html both name {display_name(site_dir)}; give each "
                         "its own folder")
    entries = collect(paths, limits=limits, outputs=list(given.values()),
                      output_folders=[d for d in (report_dir, site_dir) if d is not None])
    submissions = [e for e in entries if not e.skipped]
    if gs_path is not None and len(submissions) > 1:
        names = ", ".join(e.label for e in submissions[:3])
        more = ", ..." if len(submissions) > 3 else ""
        raise GradeError(f"--gradescope grades one submission; found {len(submissions)}: "
                         f"{names}{more}")
    inputs = [*paths, *(e.path for e in submissions if e.path is not None)]
    check_gradebook_path(out_path, inputs=inputs)
    check_lms_path(lms_path, inputs=inputs)
    check_gradescope_path(gs_path, inputs=inputs)
    prepare_reports_folder(report_dir)
    site_tmp = prepare_site(site_dir) if site_dir is not None else None
    try:
        refs = reference_runs(config, cache_dir=cache_dir, workers=workers, dask=dask,
                              executor=executor, progress=progress)
        refs.null  # noqa: B018 - the null at full precision, once, before the batch
        grades: list[Grade] = []
        advance, stop = parallel.progress_bar("grading", len(entries), progress)
        try:
            for entry in entries:
                grades.append(grade_entry(refs, entry))
                advance()
        finally:
            stop()
        grades = mark_copies(refs, _mark_power(refs, grades))
        if diagnose:
            grades = mark_diagnosis(refs, grades, cache_dir)
        grades = mark_held(mark_kept(grades, keep), hold)
        mismatch = format_mismatch(grades, lms_format) if lms_path is not None else ""
        if mismatch:
            warnings.warn(mismatch, GradeWarning, stacklevel=2)
        if out_path is not None:
            write_gradebook(out_path, grades)
        if report_dir is not None:
            write_reports(refs, grades, report_dir, progress=progress, inputs=inputs)
        if site_dir is not None:
            write_site(refs, grades, site_dir, progress=progress, tmp=site_tmp)
    finally:
        if site_tmp is not None and site_tmp.exists():
            shutil.rmtree(site_tmp, ignore_errors=True)
    if lms_path is not None:
        write_lms_csv(lms_path, grades, lms_format, assignment=lms_assignment, keep=keep)
    if gs_path is not None:
        write_gradescope(gs_path, refs, grades, visibility=gradescope_visibility)
    return Gradebook(refs, grades)


def _mark_power(refs: References, grades: list[Grade]) -> list[Grade]:
    """Flag every graded file `low-power` and warn once when the probe runs show that these
    settings hide bugs that matter (:mod:`dicejack.grade.power`)."""
    if not any(g.status == "ok" for g in grades):
        return grades
    note = setting_power(refs).note()
    if not note:
        return grades
    warnings.warn(note, GradeWarning, stacklevel=3)
    return [dataclasses.replace(g, flags=(*g.flags, "low-power")) if g.status == "ok" else g
            for g in grades]


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
                   flag: str = "--reports") -> None:
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
            raise GradeError(f"{flag} {display_name(folder)} holds the submission "
                             f"{display_name(raw)}; give a folder outside what is graded")
    for option, out in given.items():
        path = resolved_path(out)
        if path is not None and where in path.parents:
            raise GradeError(f"{option} {display_name(out)} is inside the {flag} folder, "
                             "where a page could replace it; write it elsewhere")


def _distinct_outputs(given: dict[str, Path]) -> None:
    """Refuse two output options naming one file (one would silently replace the other)."""
    seen: dict[Path, str] = {}
    for option, path in given.items():
        try:
            key = path.resolve(strict=False)
        except (OSError, RuntimeError, ValueError):
            key = path
        if key in seen:
            raise GradeError(f"{option} {path} is also {seen[key]}; give each output its own "
                             "file")
        seen[key] = option
