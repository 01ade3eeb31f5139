"""One verdict per student from every run of their program: each run's output graded by the
grading pipeline (:func:`dicejack.grade.grade_text` against the reference runs of its setting),
then the runs' evidence combined as one family, so that running a program many times does not
multiply its false alarms.

The family (Holm's step-down at the review level P_REVIEW = P_INCONSISTENT + ALPHA_PRINT):

- every run's consistency p-value (continuous; uniform for a faithful program); a run whose
  tables repeat an earlier run's exactly is counted once;
- one p-value for the print-rule checks of all runs (:func:`print_flag_p`): a run is flagged
  when its statistic tops all C held-out runs' of its reference set (a rank p-value, at least
  1/(C + 1) = ALPHA_PRINT), so over reference sets a faithful run is flagged at ALPHA_PRINT; but
  the runs of one setting share one set, and given the set the chance q of topping the held-out
  maximum is Beta(1, C), not ALPHA_PRINT (measured at the handout's settings: 11 of 300 faithful
  runs flagged against the default set, 3.7%). So the count of flags of the runs sharing a set
  is Beta-binomial(n, 1, C), the sets independent, and the tail of their sum is the p-value: two
  flags at one setting are weighed as the shared q makes them, not as two independent chances.
  A rank p-value is coarse, so Holm over the runs' own print p-values could never reject; the
  count of flags can.

A rejection makes the student's verdict review, naming what drove it (the slip flagged most
often, or ``inconsistent`` with the run). The score is the mean over the assigned runs, and
what chance moves in one printout besides its p-values is judged on the means too: review when
the mean score is below SCORE_REVIEW or a quality metric earns under half its points on average
(``low-quality``), not when one run does (:func:`_runs_verdict`). A run that fails to run
(crash, timeout, no tables, tables of another size) fails the student with that run's reason;
identical tables from two runs are flagged ``fixed-output``."""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from dicejack.formats.escape import safe_text
from dicejack.grade.evidence.bug_models import BY_NAME
from dicejack.grade.evidence.references import References
from dicejack.grade.programs.plan import PlannedSetting
from dicejack.grade.scoring.diagnosis import UNUSUAL, Diagnosis, diagnose
from dicejack.grade.scoring.grading import grade_text
from dicejack.grade.scoring.record import Grade
from dicejack.grade.scoring.rubric import (
    ALPHA_PRINT,
    CONSISTENCY_POINTS,
    EVIDENCE_FLAGS,
    FORMAT_POINTS,
    P_INCONSISTENT,
    PRINT_RULE_FLAGS,
    QUALITY_METRICS,
    QUALITY_POINTS,
    SCORE_REVIEW,
    verdict_for,
)
from dicejack.runtime.sandbox import RunResult

__all__ = ["ProgramRun", "StudentResult", "Joint", "P_REVIEW", "grade_run", "holm",
           "print_flag_p", "joint_grade", "failed_grade", "joint_cause", "tied_causes"]

P_REVIEW = P_INCONSISTENT + ALPHA_PRINT
#: The rubric's flag for a quality metric earning under half its points.
LOW_QUALITY = "low-quality"


@dataclass(frozen=True)
class ProgramRun:
    """One run of a student's program: where (setting, its index among the setting's runs,
    seed), how (command), what happened (result) and its grade (None when it did not run)."""

    setting: PlannedSetting
    index: int
    seed: int | None
    command: str
    result: RunResult | None
    grade: Grade | None
    error: str = ""
    #: the references the run was graded against (its setting's): its diagnosis needs them
    refs: References | None = field(default=None, repr=False, compare=False)

    @property
    def failed(self) -> str:
        """Why this run counts as failed ("" when it was graded)."""
        if self.error:
            return self.error
        if self.grade is None:
            return "not run"
        if self.grade.status != "ok":
            return self.grade.error or "not graded"
        return ""

    @property
    def stderr_tail(self) -> str:
        if self.result is None:
            return ""
        lines = self.result.stderr.decode("utf-8", "replace").strip().splitlines()
        return safe_text(" | ".join(lines[-3:])[-300:])  # a student's words, shown as text


@dataclass(frozen=True)
class StudentResult:
    """One student's program: what was found and built, the convention, every run, the joint
    grade and the family behind it (what :mod:`dicejack.grade.programs.batch_run` returns per
    student and :mod:`dicejack.grade.programs.pages` shows)."""

    label: str
    language: str
    convention: str
    runs: tuple[ProgramRun, ...]
    grade: Grade
    joint: Joint | None


def grade_run(refs: References, setting: PlannedSetting, index: int, seed: int | None,
              command: str, result: RunResult, label: str) -> ProgramRun:
    """Grade what one run printed (the run's own failure, when it failed, is its row)."""
    why = safe_text(result.why())
    if why:
        return ProgramRun(setting, index, seed, command,
                          dataclasses.replace(result, stdout=b""), None, why)
    g = grade_text(refs, result.stdout, name=f"{label} [{setting.role} run {index + 1}]")
    if not g.consistency_p < P_INCONSISTENT:  # the text is kept only for the diagnosis
        result = dataclasses.replace(result, stdout=b"")
    return ProgramRun(setting, index, seed, command, result, g, refs=refs)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given (NaN stays NaN)."""
    order = sorted((p, i) for i, p in enumerate(p_values) if not math.isnan(p))
    n = len(order)
    out = [math.nan] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(order):
        running = max(running, min(1.0, (n - rank) * p))
        out[i] = running
    return out


def print_flag_p(flags: int, groups: Sequence[tuple[int, int]]) -> float:
    """P(at least `flags` print-only slips flagged among faithful runs checked in `groups`:
    (runs, held-out runs C of their reference set) per set; module docstring). NaN when no
    run was checked."""
    pmf = np.ones(1)
    for n, held in groups:
        if n > 0:
            pmf = np.convolve(pmf, stats.betabinom.pmf(np.arange(n + 1), n, 1, held))
    if len(pmf) == 1:
        return math.nan
    return float(min(1.0, max(0.0, pmf[max(flags, 0):].sum())))


@dataclass(frozen=True)
class Joint:
    """The family's p-values (holm-adjusted, in order: each graded run's consistency, then the
    print-flag count) and what it concluded."""

    labels: tuple[str, ...]
    p_values: tuple[float, ...]
    adjusted: tuple[float, ...]
    slip: str  # the print flag seen most often ("" none)
    slip_flags: int
    slip_checked: int
    #: the run behind each consistency test, in order (the print-flag count has none)
    sources: tuple[ProgramRun, ...] = field(default=(), repr=False, compare=False)

    @property
    def p_value(self) -> float:
        kept = [p for p in self.adjusted if not math.isnan(p)]
        return min(kept) if kept else math.nan

    def deciding(self) -> tuple[ProgramRun, float, float] | None:
        """The run whose consistency test the family rejected with the smallest adjusted
        p-value, with its p-value and the adjusted one (None when no consistency test was)."""
        rejected = [(a, p, r) for r, p, a in zip(self.sources, self.p_values, self.adjusted,
                                                 strict=False)
                    if not math.isnan(a) and a < P_REVIEW]
        if not rejected:
            return None
        a, p, r = min(rejected, key=lambda t: (t[0], t[1]))
        return r, p, a

    @property
    def named_slip(self) -> str:
        """The print-only slip the family rejected the print-flag count on ("" none): every
        run may then be named it."""
        return self.slip if any(lab.startswith("print-rule") for lab in self.rejected) else ""

    @property
    def rejected(self) -> tuple[str, ...]:
        return tuple(lab for lab, p in zip(self.labels, self.adjusted, strict=True)
                     if not math.isnan(p) and p < P_REVIEW)


def _family(runs: Sequence[ProgramRun]) -> Joint:
    labels: list[str] = []
    ps: list[float] = []
    flags: Counter[str] = Counter()
    strength: Counter[str] = Counter()
    checked = 0
    groups: dict[str, list[int]] = {}  # setting -> [runs checked, held-out runs of its set]
    seen: list[Grade] = []
    sources: list[ProgramRun] = []
    for r in runs:
        g = r.grade
        if g is None or g.status != "ok" or any(_same_tables(g, h) for h in seen):
            continue  # a repeated printout is not new evidence: counted once
        seen.append(g)
        sources.append(r)
        labels.append(f"consistency of {r.setting.role} run {r.index + 1} "
                      f"({r.setting.settings.describe()})")
        ps.append(g.consistency_p)
        pc = g.print_check
        if pc is not None and pc.runs:
            checked += 1
            held = (int(r.refs.held_best.shape[0]) if r.refs is not None
                    else round(1 / ALPHA_PRINT) - 1)
            groups.setdefault(r.setting.label, [0, held])[0] += 1
            if pc.flag:
                flags[pc.flag] += 1
            for rule, z in pc.z.items():
                if math.isfinite(z):
                    strength[rule] += z
    # the slip named: flagged most often, ties to the larger sum of its z over the runs
    slip, count = max(flags.items(), key=lambda kv: (kv[1], strength[kv[0]]),
                      default=("", 0))
    labels.append(f"print-rule flags: {sum(flags.values())} of {checked} runs"
                  + (f" (most often {slip})" if slip else ""))
    ps.append(print_flag_p(sum(flags.values()), [(n, c) for n, c in groups.values()]))
    return Joint(tuple(labels), tuple(ps), tuple(holm(ps)), slip, count, checked,
                 tuple(sources))


def failed_grade(label: str, error: str, flags: Sequence[str] = ()) -> Grade:
    """A student whose program could not be graded: one row saying why."""
    return Grade(submission=label, status="error", score=0.0, verdict="fail", error=error,
                 flags=tuple(flags))


def _same_tables(a: Grade, b: Grade) -> bool:
    return (a.policy is not None and b.policy is not None and a.probability is not None
            and b.probability is not None and a.policy.shape == b.policy.shape
            and np.array_equal(a.policy, b.policy)
            and np.array_equal(a.probability, b.probability, equal_nan=True))


def _chance_review(g: Grade) -> bool:
    """Was this run's review only what chance moves in a correct program: its own p-values
    (which the family replaces), its quality (``low-quality``) or its score (which the student's
    means over the assigned runs replace, :func:`_runs_verdict`)? It is when, without that
    evidence (rubric.EVIDENCE_FLAGS, ``low-quality``, its p-value and score), the rubric would
    pass it: a flag that only says how the tables were laid out (``unlabelled``,
    ``rows-reordered``, ``prob-percent``, anything not in rubric.REVIEW_FLAGS) never makes it
    more."""
    rest = [f for f in g.flags if f not in EVIDENCE_FLAGS and f != LOW_QUALITY]
    return verdict_for(CONSISTENCY_POINTS + QUALITY_POINTS + FORMAT_POINTS, math.nan,
                       rest) == "pass"


def _low_quality(grades: Sequence[Grade]) -> bool:
    """The student's quality is low: a quality metric earns under half its points on average
    over the assigned runs (the rubric's ``low-quality`` of one printout, on the runs' mean; a
    run graded without its points per metric counts as its own flag says)."""
    per_metric = QUALITY_POINTS / len(QUALITY_METRICS)
    for name, _, _ in QUALITY_METRICS:
        shares = [g.metric_points[name] / per_metric if name in g.metric_points
                  else (0.0 if LOW_QUALITY in g.flags else 1.0) for g in grades]
        if shares and float(np.mean(shares)) < 0.5:
            return True
    return False


def joint_grade(label: str, runs: Sequence[ProgramRun], convention: str) -> tuple[Grade, Joint]:
    """The student's row from all their runs (module docstring) and the family behind it."""
    joint = _family(runs)
    failed = [r for r in runs if r.failed]
    assigned = [r for r in runs if r.setting.role == "assigned" and not r.failed]
    if failed:
        return _failed_runs_grade(label, runs, failed), joint
    if not assigned:
        return failed_grade(label, "no assigned run"), joint
    # the row shows the run that decided the verdict when it is an assigned run (its tables,
    # numbers and page), else the first assigned run, the deciding run named beside it
    deciding = joint.deciding()
    base = (deciding[0] if deciding is not None and deciding[0].setting.role == "assigned"
            and deciding[0] in assigned else assigned[0])
    first = base.grade
    assert first is not None
    grades = [r.grade for r in assigned if r.grade is not None]
    score = float(np.mean([g.score for g in grades]))
    flags: list[str] = [f for f in first.flags if f not in ("inconsistent", LOW_QUALITY)
                        and not f.startswith("printed-")]
    verdict = _runs_verdict(grades)
    if _low_quality(grades):
        flags.append(LOW_QUALITY)
    notes: list[str] = []
    _add_rejected(joint, flags, notes)
    if joint.rejected and verdict == "pass":
        verdict = "review"
    if _fixed_output(runs):
        flags.append("fixed-output")
        notes.append("two runs at one setting printed identical tables")
        verdict = "review" if verdict == "pass" else verdict
    notes.append(f"joint p-value {joint.p_value:.3g} over {len(joint.p_values)} tests "
                 f"(Holm, review below {P_REVIEW:.3f}); input {convention}")
    decided = ""
    if deciding is not None and "inconsistent" in flags:
        r, p, a = deciding
        decided = (f"the tables of {r.setting.role} run {r.index + 1} "
                   f"({r.setting.settings.describe()}) are unusual for the handout's algorithm "
                   f"(consistency p = {p:.3g}; Holm-adjusted over the {len(joint.p_values)} "
                   f"tests of all runs {a:.3g}, below {P_REVIEW:.3f})")
        if base is not r:
            notes.append(f"the tables shown are assigned run {base.index + 1}'s; the verdict "
                         f"came from {r.setting.role} run {r.index + 1}")
    slip = joint.named_slip
    cause, cause_text, why = joint_cause(runs, slip) if verdict != "pass" else ("", "", "")
    if why:
        notes.append(why)
    if cause in BY_NAME:  # as the printout grader: a slip flag naming another bug is dropped
        flags = [f for f in flags if f not in PRINT_RULE_FLAGS or f == cause]
    layout = f"{first.layout}; input {convention}"
    g = dataclasses.replace(
        first, submission=label, score=score, verdict=verdict, flags=tuple(dict.fromkeys(flags)),
        layout=layout, notes="; ".join(n for n in (first.notes, *notes) if n), cause=cause,
        cause_text=cause_text, decided_by=decided)
    return g, joint


def _diagnosed(runs: Sequence[ProgramRun], slip: str = "") -> list[tuple[ProgramRun, Diagnosis]]:
    """Every distinct graded run's diagnosis (a repeated printout once), as the printout grader
    diagnoses a file; `slip`: a print-only slip every run may be named (joint_cause)."""
    out: list[tuple[ProgramRun, Diagnosis]] = []
    seen: list[Grade] = []
    for r in runs:
        g = r.grade
        if (g is None or r.refs is None or g.status != "ok"
                or any(_same_tables(g, h) for h in seen)):
            continue
        seen.append(g)
        if slip and g.print_check is not None and g.print_check.runs:
            g = dataclasses.replace(g, print_check=dataclasses.replace(g.print_check, flag=slip))
        out.append((r, diagnose(r.refs, g)))
    return out


def joint_cause(runs: Sequence[ProgramRun], slip: str = "") -> tuple[str, str, str]:
    """The likely cause the runs back, as (cause, cause_text, a note saying how many runs named
    it), or ("", "", note) when they do not agree: every distinct graded run that did not pass is
    diagnosed as the printout grader diagnoses a file (:func:`dicejack.grade.scoring.diagnosis.
    diagnose`, against its own setting's references). A known bug is named when the runs naming
    a bug of its family (an M grid is one) are at least half of those diagnosed and no run names
    a bug of another family (it is the one of its family named most often; a run named
    ``unusual``, no known bug, is one a bug may not be told apart in at its setting: it
    contradicts nothing, but counts among those diagnosed); ``unusual`` when every run is.
    Its words are an assigned run's when one named it. `slip`:
    the print-only slip the family's flag count found (:func:`_family`), which every run may then
    be named, as a file may be when its own print-rule check flagged it."""
    named = [(r, d.cause, d.text) for r, d in _diagnosed(runs, slip) if d.cause]
    if not named:
        return "", "", ""
    votes = Counter(c for _, c, _ in named)
    families = Counter(BY_NAME[c].family for _, c, _ in named if c in BY_NAME)
    if len(families) > 1 or (families and 2 * sum(families.values()) < len(named)):
        return "", "", (f"no likely cause: the {len(named)} runs diagnosed name "
                        + ", ".join(f"{c} ({n})" for c, n in votes.most_common()))
    top, count = next(((c, n) for c, n in votes.most_common() if c in BY_NAME),
                      (UNUSUAL, votes[UNUSUAL]))
    runs_named = [(r, t) for r, c, t in named if c == top]
    r, text = next(((r, t) for r, t in runs_named if r.setting.role == "assigned"),
                   runs_named[0])
    if r.setting.role != "assigned" and text:  # its M values are that run's, not the assigned
        text = f"in {r.setting.role} run {r.index + 1} ({r.setting.settings.describe()}): {text}"
    count = sum(families.values()) or count
    kin = "it or its family " if len(set(votes) & set(BY_NAME)) > 1 else ""
    return top, text, f"likely cause {top}: {kin}named by {count} of {len(named)} runs diagnosed"


def tied_causes(runs: Sequence[ProgramRun], slip: str = "") -> tuple[str, str] | None:
    """The two known bugs, of different families, that the runs leave tied (None when there is
    no such pair): the most named bug of each of the two families named most often, when runs
    name bugs of two families; else, when every diagnosed run is ``unusual``, the two bugs of
    different families that explain all the runs together best (their log likelihoods summed),
    when both explain them better than the handout's algorithm does. Print-only slips enter
    only as named (a slip model fits any output that exploits early: unflagged, it is no
    candidate). What :mod:`dicejack.grade.programs.tiebreak` runs the program again for."""
    diagnosed = [(r, d) for r, d in _diagnosed(runs, slip) if d.cause]
    if not diagnosed:
        return None
    first_of: dict[str, str] = {}
    for cause, _ in Counter(d.cause for _, d in diagnosed if d.cause in BY_NAME).most_common():
        first_of.setdefault(BY_NAME[cause].family, cause)
    if len(first_of) >= 2:
        a, b = list(first_of.values())[:2]
        return a, b
    if first_of:  # one family named: a majority or not, no second cause to weigh it against
        return None
    total: Counter[str] = Counter()
    for _, d in diagnosed:
        total.update(d.loglik)
    ranked = [k for k, _ in total.most_common() if k == "handout"
              or (k in BY_NAME and not BY_NAME[k].from_references)]
    a = ranked[0]
    if a == "handout":
        return None
    b = next((k for k in ranked[1:] if k != "handout"
              and BY_NAME[k].family != BY_NAME[a].family), None)
    if b is None or ranked.index(b) > ranked.index("handout"):
        return None
    return a, b


def _failed_runs_grade(label: str, runs: Sequence[ProgramRun],
                       failed: Sequence[ProgramRun]) -> Grade:
    """The row of a student with a failed run: score 0, the first failure named (and how
    many more), flagged ignores-settings when a table had another size than its run's."""
    r = failed[0]
    more = f" (and {len(failed) - 1} more of {len(runs)} runs)" if len(failed) > 1 else ""
    base = r.grade if r.grade is not None else failed_grade(label, "")
    # tables of another size than the run's LTarget: the settings given were not followed
    wrong = [x for x in runs if x.grade is not None and x.grade.table_size is not None
             and x.grade.table_size != x.setting.settings.low]
    flags = (*base.flags, "ignores-settings") if wrong else base.flags
    return dataclasses.replace(
        base, submission=label, status="error", score=0.0, verdict="fail", flags=flags,
        error=f"{r.setting.role} run {r.index + 1} ({r.setting.settings.describe()}): "
              f"{r.failed}{more}")


def _runs_verdict(grades: Sequence[Grade]) -> str:
    """The assigned runs' verdict before the family: fail if any failed; review if any was
    reviewed for more than chance moves in a correct program (:func:`_chance_review`: a layout
    flag is not more), or if the student's score (the mean over the assigned runs) is below
    SCORE_REVIEW or their quality is low (:func:`_low_quality`); else pass.

    Score and quality are judged on the means, as the p-values are by the family: judged per
    run, every assigned run was another chance for a correct program to land in a metric's
    tail, and the runs multiplied the false alarms (measured with
    benchmarks/bench_joint_calibration.py at the handout's settings, M 100, NGAMES 100,000:
    correct students in review 5.0% with one run per setting, 7.0% with three, 2.7 points of
    them a single assigned run's low quality; docs/running.md, "Calibration of joint
    verdicts")."""
    if any(g.verdict == "fail" for g in grades):
        return "fail"
    if any(g.verdict == "review" and not _chance_review(g) for g in grades):
        return "review"
    if float(np.mean([g.score for g in grades])) < SCORE_REVIEW or _low_quality(grades):
        return "review"
    return "pass"


def _add_rejected(joint: Joint, flags: list[str], notes: list[str]) -> None:
    """Add to `flags` and `notes` what the family's rejected hypotheses say: a print-only
    slip, or inconsistency (once)."""
    for lab in joint.rejected:
        if lab.startswith("print-rule"):
            flags.append(joint.slip)
            notes.append(f"print-only slip {joint.slip}: flagged in {joint.slip_flags} of "
                         f"{joint.slip_checked} runs (joint p {joint.adjusted[-1]:.3g})")
        elif "inconsistent" not in flags:
            flags.append("inconsistent")
            notes.append(f"inconsistent: {lab}")


def _fixed_output(runs: Sequence[ProgramRun]) -> bool:
    """Did two runs at one setting print identical tables (output not computed)?"""
    by_setting: dict[str, list[Grade]] = {}
    for r in runs:
        if r.grade is not None:
            by_setting.setdefault(r.setting.label, []).append(r.grade)
    return any(_same_tables(a, b) for gs in by_setting.values() for i, a in enumerate(gs)
               for b in gs[i + 1:])
