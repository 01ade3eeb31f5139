"""Grading: one printed output (arrays, text or a file) into a :class:`Grade`, and a batch of files
into grades, the gradebook and the reports. Bad files become rows (status error), never
exceptions; submissions are data, never code: read as text, at most MAX_SUBMISSION_BYTES."""

from __future__ import annotations

import concurrent.futures as cf
import math
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dicejack import compare, formats, one_line, parallel
from dicejack.game import DicejackError, Game
from dicejack.grade.consistency import Consistency, consistency, looks_transposed
from dicejack.grade.copies import mark_copies
from dicejack.grade.printed import graded_learned, graded_tables, printed_decimals
from dicejack.grade.references import References, reference_runs
from dicejack.grade.rubric import (
    FLAG_DEDUCTIONS,
    FORMAT_POINTS,
    P_REVIEW,
    QUALITY_METRICS,
    QUALITY_POINTS,
    consistency_points,
    percentile_among,
    quality_fraction,
    verdict_for,
)
from dicejack.grade.settings import GradeConfig, GradeError
from dicejack.grade.writers import (
    check_gradebook_path,
    prepare_reports_folder,
    write_gradebook,
    write_reports,
)

__all__ = ["Grade", "WorstState", "grade_tables", "grade_text", "grade_file", "grade_files",
           "worst_states", "display_name", "MAX_SUBMISSION_BYTES"]

#: Larger submission files are refused unread.
MAX_SUBMISSION_BYTES = 10 * 2**20


@dataclass(frozen=True)
class WorstState:
    """A usable state where the submission is least like the reference runs."""

    x: int
    y: int
    contribution: float
    estimate: float  # graded value: 0 = no data or estimate 0
    reference_mean: float
    reference_low: float  # 5th percentile of the reference estimates with data
    reference_high: float  # 95th percentile
    policy: int  # 0 = none graded
    policy_share: float  # share of reference runs the printed J agrees with
    optimal: tuple[int, ...]


@dataclass(frozen=True, eq=False)
class Grade:
    """The grade of one submission (a gradebook row, plus what its report shows).

    policy / probability: the tables as graded (:func:`graded_tables`). similar_to: the other
    submissions of the batch it looks copied from or to (flag ``copied``). what_if: the score
    the tables would get if fixed (``"transposed back"``, ``"J shifted by one"``), when a flag
    suggests it.
    """

    submission: str
    status: str  # "ok" | "error"
    score: float = 0.0
    verdict: str = "fail"
    consistency: Consistency | None = None
    metrics: dict[str, float] = field(default_factory=dict)
    points: dict[str, float] = field(default_factory=dict)
    percentiles: dict[str, float] = field(default_factory=dict)
    layout: str = ""
    flags: tuple[str, ...] = ()
    error: str = ""
    notes: str = ""
    worst: tuple[WorstState, ...] = ()
    policy: np.ndarray | None = field(default=None, repr=False)
    probability: np.ndarray | None = field(default=None, repr=False)
    similar_to: tuple[str, ...] = ()
    what_if: dict[str, float] = field(default_factory=dict)

    @property
    def decimals(self) -> int | None:
        """The printed precision the references were rounded to (None: full precision)."""
        return self.consistency.decimals if self.consistency is not None else None

    @property
    def consistency_p(self) -> float:
        return self.consistency.p_value if self.consistency is not None else math.nan


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
    """Grade the two printed arrays (policy, probability), as found, against `refs`.

    no_data: the reader's mask of probability cells that are no-data markers (-1 where None).
    flags: the reader's flags; grading adds its own (:data:`FLAG_HELP`). what_if: for a
    `transposed` or 0-based-looking submission, also grade the tables fixed (Grade.what_if).
    """
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
    if looks_transposed(refs, j, value, decimals, cons):
        flag("transposed")
    if not np.isfinite(cons.p_value):
        flag("untestable")
    elif cons.p_value < P_REVIEW:
        flag("inconsistent")

    metrics = compare.metric_values(refs.truth, graded_learned(game, j, value, submission))
    quality = 0.0
    percentiles: dict[str, float] = {}
    per_metric = QUALITY_POINTS / len(QUALITY_METRICS)
    for name, sign, floor in QUALITY_METRICS:
        reference = refs.metric(name, decimals)
        frac = quality_fraction(metrics[name], reference, sign, floor)
        quality += per_metric * frac
        percentiles[name] = percentile_among(metrics[name], reference, sign)
        if frac < 0.5:
            flag("low-quality")
    fmt = max(0.0, FORMAT_POINTS - sum(FLAG_DEDUCTIONS.get(f, 0.0) for f in flags_out))
    cpoints = consistency_points(cons.p_value)
    score = round(fmt + quality + cpoints, 1)
    points = {"format": fmt, "quality": quality, "consistency": cpoints}
    fixes: dict[str, float] = {}
    if what_if and "transposed" in flags_out:
        fixes["transposed back"] = grade_tables(
            refs, pol.T, prob.T, no_data=mask.T, what_if=False, worst=0).score
    if what_if and "data-without-policy" in flags_out:
        shifted = np.where(np.isfinite(pol), pol + 1, pol)
        fixes["J shifted by one"] = grade_tables(
            refs, shifted, prob, no_data=mask, what_if=False, worst=0).score
    return Grade(
        submission=submission, status="ok", score=score,
        verdict=verdict_for(score, cons.p_value, flags_out), consistency=cons, metrics=metrics,
        points=points, percentiles=percentiles, layout=layout, flags=tuple(flags_out),
        notes=notes, worst=worst_states(refs, j, value, cons, worst), policy=j, probability=value,
        what_if=fixes,
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


def display_name(path: str | os.PathLike[str] | bytes) -> str:
    """`path` as one printable line of valid UTF-8: undecodable bytes and lone surrogates as
    backslash escapes, control characters (newlines, NUL) as ``\\xNN``; other text (CJK...) kept."""
    raw = os.fsdecode(path) if isinstance(path, bytes) else str(path)
    text = raw.encode("utf-8", "surrogateescape" if _only_escapes(raw) else "backslashreplace")
    text_s = text.decode("utf-8", "backslashreplace")
    return "".join(c if c.isprintable() or c == " " else f"\\x{ord(c):02x}" if ord(c) < 256
                   else f"\\u{ord(c):04x}" for c in text_s)


def _only_escapes(text: str) -> bool:
    """True when every surrogate in `text` is a surrogateescape'd byte (U+DC80..U+DCFF)."""
    return all(0xDC80 <= ord(c) <= 0xDCFF for c in text if 0xD800 <= ord(c) <= 0xDFFF)


def grade_file(refs: References, path: str | os.PathLike[str], *, name: str | None = None
               ) -> Grade:
    """Grade one submission file. Never raises for a bad file: its Grade says why (status
    error). Only regular files of at most MAX_SUBMISSION_BYTES are read, and only as data: the
    file is opened without blocking and checked again once open (a FIFO or device swapped in
    after the first check is refused, never waited on)."""
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
        return _error(label, _too_large(label, st.st_size))
    try:
        data = _read_regular(p)
    except OSError as exc:
        return _error(label, f"cannot read {label}: {exc.strerror or exc}")
    except _NotRegular:
        return _error(label, f"cannot read {label}: not a regular file")
    if len(data) > MAX_SUBMISSION_BYTES:
        return _error(label, _too_large(label, len(data)))
    return grade_text(refs, data, name=label)


class _NotRegular(Exception):
    pass


def _too_large(label: str, size: int) -> str:
    return (f"refused {label}: {size / 2**20:.1f} MiB, over the "
            f"{MAX_SUBMISSION_BYTES // 2**20} MiB limit")


def _read_regular(p: Path) -> bytes:
    """At most MAX_SUBMISSION_BYTES + 1 bytes of `p`, opened non-blocking and refused
    (_NotRegular) unless it is a regular file once open."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(p, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _NotRegular
        chunks, left = [], MAX_SUBMISSION_BYTES + 1
        while left > 0:
            chunk = os.read(fd, min(left, 2**20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


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
        return _error(label, one_line(exc))
    except (KeyboardInterrupt, SystemExit):
        raise
    except MemoryError:
        return _error(label, f"cannot read {label}: out of memory")
    except Exception as exc:  # noqa: BLE001 - one bad file must never stop the batch
        return _error(label, f"cannot grade {label}: internal error "
                             f"({type(exc).__name__}: {one_line(exc)})")


def _error(label: str, message: str) -> Grade:
    return Grade(submission=label, status="error", score=0.0, verdict="fail",
                 error=one_line(message))


def grade_files(
    config: GradeConfig,
    paths: Sequence[str | os.PathLike[str]],
    *,
    out: str | os.PathLike[str] | None = None,
    reports: str | os.PathLike[str] | None = None,
    cache_dir: str | os.PathLike[str] | None | bool = None,
    workers: int | None = None,
    dask: str | None = None,
    executor: cf.Executor | None = None,
    progress: bool = False,
) -> tuple[References, list[Grade]]:
    """Grade every file of `paths` (in order; duplicates graded once each), then write the
    gradebook to `out` and one report per submission into `reports`, when given.

    Bad settings or output paths raise GradeError before any work; bad files become rows.
    Nothing given as a submission is ever written: `out` naming one of `paths` (by any spelling
    or link) is refused, and so is an existing `out` that is not a previous gradebook
    (:func:`check_gradebook_path`); reports never replace a file they did not write
    (:func:`write_reports`).
    """
    out_path = Path(out) if out is not None else None
    report_dir = Path(reports) if reports is not None else None
    if not paths:
        raise GradeError("no submissions to grade")
    check_gradebook_path(out_path, inputs=paths)
    prepare_reports_folder(report_dir)
    refs = reference_runs(config, cache_dir=cache_dir, workers=workers, dask=dask,
                          executor=executor, progress=progress)
    refs.null  # noqa: B018 - the null at full precision, once, before the batch
    grades: list[Grade] = []
    advance, stop = parallel.progress_bar("grading", len(paths), progress)
    try:
        for path in paths:
            grades.append(grade_file(refs, path))
            advance()
    finally:
        stop()
    grades = mark_copies(refs, grades)
    if out_path is not None:
        write_gradebook(out_path, grades)
    if report_dir is not None:
        write_reports(refs, grades, report_dir, progress=progress, inputs=paths)
    return refs, grades
