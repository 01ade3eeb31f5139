"""Grading: one printed output (arrays, text or a file) into a :class:`Grade`, and a batch of
submissions (files, folders, zip archives: :mod:`dicejack.grade.intake.inputs`) into grades, the
gradebook, the reports and the LMS outputs. Bad files become rows (status error), files that are
not outputs rows that say why they were skipped, never exceptions; submissions are data, never
code: read as text, at most MAX_SUBMISSION_BYTES."""

from __future__ import annotations

import dataclasses
import math
import os
import stat
import warnings
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dicejack.compare.metrics import metric_values
from dicejack.formats.submission import find_table_size, read_submission_text
from dicejack.games.handout_rules import Game
from dicejack.grade.evidence.calibration import calibration
from dicejack.grade.evidence.consistency import (
    Consistency,
    consistency,
    looks_transposed,
    looks_zero_based,
)
from dicejack.grade.evidence.power import setting_power
from dicejack.grade.evidence.print_rules import print_check
from dicejack.grade.evidence.printed import graded_learned, graded_tables, printed_decimals
from dicejack.grade.evidence.references import References
from dicejack.grade.intake.inputs import (
    MAX_SUBMISSION_BYTES,
    Entry,
    NotRegularFile,
    display_name,
    html_text,
    read_regular,
    too_large,
)
from dicejack.grade.scoring.copied import mark_copies
from dicejack.grade.scoring.diagnosis import mark_diagnosis
from dicejack.grade.scoring.record import Grade, WorstState
from dicejack.grade.scoring.rubric import (
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
from dicejack.grade.scoring.students import mark_held, mark_kept
from dicejack.grade.settings import GradeError, GradeWarning, Status, Verdict
from dicejack.runtime import parallel
from dicejack.runtime.messages import DicejackError, one_line

__all__ = ["grade_tables", "grade_text", "grade_file", "grade_entry", "grade_batch",
           "worst_states", "batch_hint"]


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


def _table_flags(pol: np.ndarray, prob: np.ndarray, mask: np.ndarray, j: np.ndarray,
                 value: np.ndarray, valid_j: np.ndarray) -> list[str]:
    """The format flags the tables earn, in order: a probability out of [0, 1], a J out of
    range, data without a policy, no data at all."""
    names = []
    if np.any(~mask & ~np.isnan(prob) & ((prob < 0) | (prob > 1))) or np.any(
        ~mask & np.isnan(prob)
    ):
        names.append("prob-out-of-range")
    no_policy = np.isfinite(pol) & ((pol == 0) | (pol == -1))
    if np.any(~valid_j & ~no_policy):
        names.append("policy-out-of-range")
    if np.any((value > 0) & ~valid_j):
        names.append("data-without-policy")
    if not np.any(j >= 1):
        names.append("no-data")
    return names


def _quality(refs: References, metrics: dict[str, Any], decimals: int | None
             ) -> tuple[float, dict[str, float], dict[str, float], bool]:
    """(quality points, points per metric, percentile per metric among the references, whether
    a metric earned under half its points) of the QUALITY_METRICS."""
    quality = 0.0
    percentiles: dict[str, float] = {}
    metric_points: dict[str, float] = {}
    low = False
    per_metric = QUALITY_POINTS / len(QUALITY_METRICS)
    for name, sign, floor in QUALITY_METRICS:
        reference = refs.metric(name, decimals)
        frac = quality_fraction(metrics[name], reference, sign, floor)
        metric_points[name] = per_metric * frac
        quality += metric_points[name]
        percentiles[name] = percentile_among(metrics[name], reference, sign)
        low = low or frac < 0.5
    return quality, metric_points, percentiles, low


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
    for name in _table_flags(pol, prob, mask, j, value, valid_j):
        flag(name)

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

    metrics = metric_values(refs.truth, graded_learned(game, j, value, submission))
    quality, metric_points, percentiles, low = _quality(refs, metrics, decimals)
    if low:
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
        submission=submission, status=Status.OK, score=score,
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
    text entry); its text is graded (:func:`dicejack.grade.intake.reading.html_text`)."""
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
        sub = read_submission_text(text, refs.game.low, refs.game.n_dice)
        g = grade_tables(
            refs, sub.policy, sub.probability, no_data=sub.no_data, layout=sub.layout,
            flags=sub.flags, submission=label, notes=sub.notes,
        )
        return dataclasses.replace(g, lines_read=sub.lines_read)
    except DicejackError as exc:
        found = find_table_size(text, refs.game.n_dice)
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
    (another LTarget), tables that fit markedly better transposed, J printed 0-based. One file
    (a student's self-check) is spoken to as one: its size in its own words, and no slip said
    of a class (its report names its own slips)."""
    files = [g for g in grades if g.status != Status.SKIPPED]
    if not files:
        return ""
    half = len(files) / 2
    sizes = Counter(g.table_size for g in files if g.table_size is not None)
    if sizes:
        size, count = sizes.most_common(1)[0]
        rerun = (f"LTarget={size}? re-run with --low {size} --high <UTarget> (the settings "
                 f"{'you were' if len(files) == 1 else 'the class was'} given)")
        if len(files) == 1 and count == 1:
            return (f"the file holds {size}x{size} tables, not {refs.game.low}x{refs.game.low}: "
                    + rerun)
        if count > half:
            return (f"{count} of {len(files)} files hold {size}x{size} tables, not "
                    f"{refs.game.low}x{refs.game.low}: " + rerun)
    if len(files) == 1:
        return ""
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
    return Grade(submission=label, status=Status.ERROR, score=0.0, verdict=Verdict.FAIL,
                 error=one_line(message))


def grade_entry(refs: References, entry: Entry) -> Grade:
    """Grade one collected :class:`~dicejack.grade.intake.entries.Entry` (a file, an archive
    member, or a skipped or unreadable one), with its student. Never raises for bad content."""
    if entry.skipped:
        g = Grade(submission=entry.label, status=Status.SKIPPED, verdict=Verdict.NONE,
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
        verdict = Verdict.REVIEW if g.verdict == Verdict.PASS else g.verdict
        g = dataclasses.replace(g, flags=(*g.flags, *entry.flags), verdict=verdict)
    s = entry.student
    if s is None:
        return g
    return dataclasses.replace(g, student=s.id, student_name=s.name, lms=s.lms, late=s.late,
                               order=s.order)


def grade_batch(
    refs: References,
    entries: Sequence[Entry],
    *,
    keep: str = "latest",
    hold: Sequence[str] = (),
    diagnose: bool = True,
    cache_dir: str | os.PathLike[str] | None | bool = None,
    progress: bool = False,
) -> list[Grade]:
    """Grade a batch's collected entries against `refs`, in order, and mark what depends on the
    whole batch: the setting's power (``low-power``), copies, the likely cause of each non-pass
    (`diagnose`), which of a student's files is kept (`keep`) and which grades are held from the
    LMS (`hold`). Writes nothing (the bug models' runs may be cached beside the references in
    `cache_dir`); warns once (GradeWarning) when the settings have low power."""
    calibration(refs).null  # noqa: B018 - the null at full precision, once, before the batch
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
    return mark_held(mark_kept(grades, keep), hold)


def _mark_power(refs: References, grades: list[Grade]) -> list[Grade]:
    """Flag every graded file `low-power` and warn once when the probe runs show that these
    settings hide bugs that matter (:mod:`dicejack.grade.evidence.power`)."""
    if not any(g.status == Status.OK for g in grades):
        return grades
    note = setting_power(refs).note()
    if not note:
        return grades
    warnings.warn(note, GradeWarning, stacklevel=3)
    return [dataclasses.replace(g, flags=(*g.flags, "low-power")) if g.status == Status.OK else g
            for g in grades]
