"""Diagnosis: which known bug most likely explains an output that did not pass. This docstring
is its specification (docs/grading.md, "Likely cause"); the bug models it weighs, and their
runs, are :mod:`dicejack.grade.evidence.bug_models`'s.

**How well a model explains an output**: the log likelihood of its graded tables (the graded
values and J of :mod:`dicejack.grade.evidence.printed`, the model runs rounded to the output's
decimals) under the model's runs, summed over the states: per state, a kernel density of the
runs' values (Silverman's width, at least SD_FLOOR and the rounding) mixed with a uniform share
POLICY_SMOOTHING / (n + 1) (a value no run came near costs a bounded amount: no single state
decides), plus, where the output has an estimate, the log of the smoothed share of runs that may
print its J. The handout's algorithm is one more model: the reference runs (its own runs scored:
the held-out calibration runs). T itself (:mod:`dicejack.grade.evidence.consistency`) was tried
first: it measures distance from a family's centre, so a family with a wide spread (NGAMES /
100, the last sampled J) "explained" nearly everything; a likelihood pays for a family's spread.

**Naming a cause**: the model of highest likelihood (a print-only slip only when its own
print-rule check flagged it) is named when it beats every model of another family (the handout's
algorithm included; M values of one grid are one family, the three print-only slips another) by
more than it ever beat that model on that model's own runs (each scored as an output is: the
handout's held-out runs, the other models' runs each left out of its fit; at least
MARGIN_FAITHFUL over the handout's algorithm, MARGIN_RUNNER over the others), and the output is at
most Z_FIT sd below its own runs; otherwise the cause is :data:`UNUSUAL`: no known bug explains it.
A flagged slip that fits best is named when it beats the handout's algorithm by its margin.
These margins are calibrated per setting: where two bugs play alike, neither is named. Every
family is fitted from the same number of runs (MODEL_RUNS, the reference runs' count): a kernel
density from fewer runs scores lower, which once let the handout's 30 runs outscore a bug's 12 on
the bug's own outputs. Tables graded transposed or with J shifted back (flags `transposed`,
`zero-based-j`) are diagnosed as corrected; when no bug is named and they are consistent with
the handout's algorithm, that printing slip is the cause.

**Separability** (:func:`separability`): how well the models' own runs are told apart at a
setting by the highest likelihood alone: a bound on what any naming rule can reach there.
"""

from __future__ import annotations

import dataclasses
import math
import os
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dicejack.grade.evidence.bug_models import BY_NAME, SLIPS, BugModel, ModelRuns, model_runs
from dicejack.grade.evidence.calibration import Calibration, calibration
from dicejack.grade.evidence.levels import P_INCONSISTENT
from dicejack.grade.evidence.printed import as_printed
from dicejack.grade.evidence.references import References
from dicejack.grade.scoring.record import Grade
from dicejack.grade.scoring.rubric import PRINT_RULE_FLAGS
from dicejack.grade.settings import Status, Verdict

__all__ = ["Z_FIT", "MARGIN_FAITHFUL", "MARGIN_RUNNER", "UNUSUAL", "Diagnosis", "diagnose",
           "mark_diagnosis", "cause_sentence", "separability", "pair_separation"]

#: A model explains an output only when the output's log likelihood under it is at most this
#: many sd below its own runs' ...
Z_FIT = 4.0
#: ... and above the handout algorithm's by this much (nats) ...
MARGIN_FAITHFUL = 10.0
#: ... and above the best model's of another family by this much.
MARGIN_RUNNER = 5.0
#: Smallest sd of a state's graded value in a family's model (all runs alike there).
SD_FLOOR = 0.01
#: Additive smoothing of the share of runs a printed J agrees with.
POLICY_SMOOTHING = 0.5
#: The cause of an output no known bug explains.
UNUSUAL = "unusual"
#: Printing slips the grader corrects itself (rubric flags), named when the corrected tables
#: are consistent with the handout's algorithm.
_CORRECTED = {"transposed": "the tables printed transposed (rows Y, columns X)",
              "zero-based-j": "J printed 0-based (0..NDice-1)"}

#: What the diagnosis derives from a reference set (the fits and margins by printed precision),
#: kept as long as the set's calibration is (the models' runs have their own, in bug_models).
_MEMOS: weakref.WeakKeyDictionary[Calibration, dict[Any, Any]] = weakref.WeakKeyDictionary()


def _memo(refs: References) -> dict[Any, Any]:
    return _MEMOS.setdefault(calibration(refs), {})


# ------------------------------------------------------------------------------ the fit
def _rounded(values: np.ndarray, decimals: int | None) -> np.ndarray:
    return values if decimals is None else np.round(values, decimals)


@dataclass(frozen=True, eq=False)
class _Fit:
    """A family's per-state model at one printed precision: its runs' graded values and the
    kernel width per state, the log of the smoothed share of runs each J agrees with; and the
    log likelihoods of its own runs (each left out in turn, or held-out runs): how well the
    family explains its own outputs."""

    values: np.ndarray
    width: np.ndarray
    log_share: np.ndarray
    own: np.ndarray
    own_values: np.ndarray
    own_policies: np.ndarray


def _floor(decimals: int | None) -> float:
    return math.sqrt(SD_FLOOR ** 2 + (0.0 if decimals is None else (10.0 ** -decimals) ** 2 / 12))


def _stats(values: np.ndarray, each: np.ndarray, floor: float) -> tuple[np.ndarray, np.ndarray]:
    """(kernel width per state, log share per J) of runs (Silverman's rule, floored)."""
    n = values.shape[0]
    sd = values.std(axis=0, ddof=1) if n > 1 else np.zeros(values.shape[1:])
    width = np.maximum(1.06 * sd * n ** -0.2, floor)
    share = np.log((each.sum(axis=0) + POLICY_SMOOTHING) / (n + 2 * POLICY_SMOOTHING))
    return width, share


def _loglik(values: np.ndarray, width: np.ndarray, log_share: np.ndarray, policy: np.ndarray,
            value: np.ndarray) -> float:
    """Log likelihood of graded tables under a family's per-state model (module docstring): a
    kernel density of the runs' values per state, and the share of runs the printed J agrees
    with where the tables have an estimate."""
    n = values.shape[0]
    d = (value - values) / width
    kde = np.exp(-0.5 * d * d).mean(axis=0) / (width * math.sqrt(2 * math.pi))
    # a value none of the n runs came near keeps the chance of an unseen one (smoothed like the
    # J shares: uniform on [0, 1]), so no single state decides
    outlier = POLICY_SMOOTHING / (n + 2 * POLICY_SMOOTHING)
    ll = np.log((1 - outlier) * kde + outlier)
    j = np.take_along_axis(log_share, policy[..., None], axis=-1)[..., 0]
    return float(ll.sum() + np.where(value > 0, j, 0.0).sum())


def _first_j(sets: np.ndarray, values: np.ndarray) -> np.ndarray:
    return np.where(values > 0, sets.argmax(axis=-1), 0).astype(np.int64)


def _fit(values: np.ndarray, sets: np.ndarray, decimals: int | None,
         held: tuple[np.ndarray, np.ndarray] | None = None) -> _Fit:
    """The per-state model of runs (`values` (n, L, L), `sets` of J each may print); own: the
    held-out runs' log likelihoods when given (the reference runs' calibration runs), else
    each run's left out of the others."""
    values = _rounded(values, decimals)
    floor = _floor(decimals)
    each = sets | (values == 0)[..., None]
    width, share = _stats(values, each, floor)
    own, own_values, own_policies = [], [], []
    if held is not None:
        for v, s in zip(*held, strict=True):
            v = _rounded(v, decimals)
            own_values.append(v)
            own_policies.append(_first_j(s, v))
            own.append(_loglik(values, width, share, own_policies[-1], v))
    else:
        for i in range(values.shape[0]):
            rest = np.delete(values, i, axis=0)
            w_i, s_i = _stats(rest, np.delete(each, i, axis=0), floor)
            own_values.append(values[i])
            own_policies.append(_first_j(sets[i], values[i]))
            own.append(_loglik(rest, w_i, s_i, own_policies[-1], values[i]))
    return _Fit(values, width, share, np.array(own), np.stack(own_values),
                np.stack(own_policies))


def _faithful_fit(refs: References, decimals: int | None) -> _Fit:
    memo = _memo(refs)
    if ("handout", decimals) not in memo:
        held_sets = np.zeros((*refs.held_best.shape, refs.game.n_dice + 1), dtype=bool)
        np.put_along_axis(held_sets, refs.held_best.astype(np.int64)[..., None], True, axis=-1)
        held_sets[..., 0] = False
        _, held_values = as_printed(refs.held_best, refs.held_probability)
        memo["handout", decimals] = _fit(refs.values, refs.tied, decimals,
                                         (held_values, held_sets))
    return memo["handout", decimals]


def _model_fit(refs: References, name: str, fam: ModelRuns, decimals: int | None) -> _Fit:
    memo = _memo(refs)
    if (name, decimals) not in memo:
        memo[name, decimals] = _fit(fam.values, fam.sets, decimals)
    return memo[name, decimals]


def _fits(refs: References, decimals: int | None, cache_dir: str | os.PathLike[str] | None | bool
          ) -> dict[str, _Fit]:
    """Every model's fit at one printed precision, the handout's algorithm first."""
    runs = model_runs(refs, cache_dir)
    fits = {"handout": _faithful_fit(refs, decimals)}
    fits.update({name: _model_fit(refs, name, fam, decimals) for name, fam in runs.items()})
    return fits


def _cross(refs: References, decimals: int | None, fits: dict[str, _Fit]
           ) -> dict[str, dict[str, np.ndarray]]:
    """B -> A -> the log likelihoods of B's own runs (each scored as an output is; the
    handout's: its held-out runs) under A's fit; under B's own, B's `own` (each run left out)."""
    memo = _memo(refs)
    if ("cross", decimals) not in memo:
        memo["cross", decimals] = {
            b: {a: fb.own if a == b else np.array(
                [_loglik(fa.values, fa.width, fa.log_share, pol, v)
                 for v, pol in zip(fb.own_values, fb.own_policies, strict=True)])
                for a, fa in fits.items()}
            for b, fb in fits.items()}
    return memo["cross", decimals]


def _margins(refs: References, decimals: int | None, fits: dict[str, _Fit]
             ) -> dict[tuple[str, str], float]:
    """(B, A) -> how far A's likelihood ever rose above B's on B's own runs: a margin A must beat
    B by, so that an output B made is named A no more often than B's own runs would be."""
    memo = _memo(refs)
    if ("margins", decimals) not in memo:
        cross = _cross(refs, decimals, fits)
        memo["margins", decimals] = {(b, a): float(np.max(cross[b][a] - fits[b].own))
                                     for b in fits for a in fits if _family(a) != _family(b)}
    return memo["margins", decimals]


def separability(refs: References, decimals: int | None = 4,
                 cache_dir: str | os.PathLike[str] | None | bool = False
                 ) -> dict[str, tuple[int, int]]:
    """How well the models can be told apart at `refs`' settings at all: per model, (its runs
    that some bug model explains better than the handout's algorithm, those whose best model is
    of its own family), each run scored as an output is (left out of its own model's fit) and
    named by the highest likelihood alone, no margin. A bound on the diagnosis: the grader's own
    programs, no difference of implementation; where it is low, bugs play alike."""
    fits = _fits(refs, decimals, cache_dir)
    cross = _cross(refs, decimals, fits)
    names = list(fits)
    out = {}
    for a in names[1:]:  # the handout's algorithm first, then every model
        top = [names[i] for i in np.argmax(np.stack([cross[a][b] for b in names]), axis=0)]
        told = [t for t in top if t != "handout"]
        out[a] = (len(told), sum(_family(t) == _family(a) for t in told))
    return out


def pair_separation(refs: References, a: str, b: str, decimals: int | None = 4,
                    cache_dir: str | os.PathLike[str] | None | bool = False) -> float:
    """How well two bug models are told apart from each other at `refs`' settings: the
    smaller of (the share of A's runs that A's fit explains better than B's, the same for B),
    each run scored as an output is (left out of its own fit). 1.0: every run of either is
    told apart; 0.5 or less: they play alike there. Where two runs' likely causes tie, the
    setting of highest separation is the one to run the program again at
    (:mod:`dicejack.grade.programs.tiebreak`)."""
    fits = _fits(refs, decimals, cache_dir)
    if a not in fits or b not in fits or a == b:
        raise ValueError(f"two different models are needed, got {a!r} and {b!r}")
    cross = _cross(refs, decimals, fits)
    told_a = float(np.mean(cross[a][a] > cross[a][b]))
    told_b = float(np.mean(cross[b][b] > cross[b][a]))
    return min(told_a, told_b)


@dataclass(frozen=True)
class Diagnosis:
    """cause: a model's name, a corrected printing slip's flag, :data:`UNUSUAL`, or "" (nothing
    to diagnose); loglik: each model's log likelihood of the output ("handout": the handout's
    algorithm), best first; z: how far below its own runs' the best model's is (in sd)."""

    cause: str
    loglik: dict[str, float]
    z: float = math.nan
    text: str = ""


def _m_value(refs: References, model: BugModel) -> str:
    return f"{refs.config.m * model.m_factor:g}"


def cause_sentence(refs: References, cause: str, alike: Sequence[str] = ()) -> str:
    """The likely cause in words, with what to check (a student's page and report); `alike`:
    other M of the same grid that explain the output nearly as well (said as a range)."""
    if cause == UNUSUAL:
        return ("unusual: no known bug explains these tables better than the handout's "
                "algorithm; compare your program with the handout step by step.")
    if cause in _CORRECTED:
        return f"{_CORRECTED[cause]}; the tables were graded corrected."
    model = BY_NAME.get(cause)
    if model is None:
        return ""
    what = model.cause
    if model.family == "wrong-m":
        values = " or ".join(_m_value(refs, BY_NAME[n]) for n in (cause, *alike))
        what = f"looks like M = {values}, asked {refs.config.m:g} ({what})"
    return f"{what}. {model.hint[:1].upper()}{model.hint[1:]}."


def _needs_diagnosis(g: Grade) -> bool:
    if (g.status != Status.OK or g.verdict == Verdict.PASS or g.policy is None
            or g.consistency is None):
        return False
    reasons = {"inconsistent", "low-quality", *PRINT_RULE_FLAGS, *_CORRECTED}
    return g.verdict == Verdict.FAIL or bool(reasons & set(g.flags))


def diagnose(refs: References, g: Grade, cache_dir: str | os.PathLike[str] | None | bool = False
             ) -> Diagnosis:
    """The likely cause of a graded output that did not pass (module docstring); cause "" for
    a pass, an unreadable file, or a review that no statistical evidence raised (a copy)."""
    if not _needs_diagnosis(g):
        return Diagnosis("", {})
    assert g.policy is not None and g.probability is not None and g.consistency is not None
    policy = np.asarray(g.policy, dtype=np.int64)
    value = np.asarray(g.probability, dtype=np.float64)
    decimals = g.consistency.decimals
    fits = _fits(refs, decimals, cache_dir)
    ll = {name: _loglik(f.values, f.width, f.log_share, policy, value)
          for name, f in fits.items()}
    ranked = dict(sorted(ll.items(), key=lambda kv: -kv[1]))
    best = _best(g, ranked)
    own = fits[best].own
    z = float((own.mean() - ll[best]) / max(own.std(ddof=1), 1.0)) if own.size > 2 else math.nan
    cause = _decide(g, ranked, best, z, _margins(refs, decimals, fits))
    alike = tuple(k for k, v in ranked.items() if k != cause and cause in BY_NAME
                  and _family(k) == _family(cause) and ranked[cause] - v < MARGIN_RUNNER)
    return Diagnosis(cause, ranked, z, cause_sentence(refs, cause, alike))


def _family(name: str) -> str:
    return BY_NAME[name].family if name in BY_NAME else name


def _slip_flag(g: Grade) -> str:
    return g.print_check.flag if g.print_check is not None else ""


def _best(g: Grade, ranked: dict[str, float]) -> str:
    """The model of highest likelihood that may be named: a print-only slip only when its own
    print-rule check flagged it (that check is the more powerful test for it; unflagged, a
    slip model fits any output that exploits early nearly as well)."""
    slip = _slip_flag(g)
    return next(k for k in ranked if k not in SLIPS or k == slip)


def _decide(g: Grade, ranked: dict[str, float], best: str, z: float,
            margins: dict[tuple[str, str], float]) -> str:
    consistent = g.consistency_p >= P_INCONSISTENT if np.isfinite(g.consistency_p) else False
    corrected = [f for f in _CORRECTED if f in g.flags]
    slip = _slip_flag(g)
    # every model of another family (print-only slips included) must be beaten by more than
    # the best model ever beat it on that model's own runs
    clear = all(ranked[best] - v >= max(margins[b, best],
                                        MARGIN_FAITHFUL if b == "handout" else MARGIN_RUNNER)
                for b, v in ranked.items() if _family(b) != _family(best))
    if best != "handout" and z <= Z_FIT and clear:
        return best
    if (slip and slip == best and z <= Z_FIT
            and ranked[slip] - ranked["handout"] >= max(margins["handout", slip], MARGIN_FAITHFUL)):
        return slip
    if corrected and consistent:
        return corrected[0]
    return UNUSUAL


def mark_diagnosis(refs: References, grades: Sequence[Grade],
                   cache_dir: str | os.PathLike[str] | None | bool = False) -> list[Grade]:
    """The grades with their likely cause (Grade.cause, Grade.cause_text). A print-rule flag
    that names another bug than the diagnosis is dropped (the flag would send the student to
    the wrong line); a slip the diagnosis names is flagged (a review: no points)."""
    out = []
    for g in grades:
        d = diagnose(refs, g, cache_dir)
        if not d.cause:
            out.append(g)
            continue
        flags = list(g.flags)
        if d.cause in BY_NAME:
            flags = [f for f in flags if f not in PRINT_RULE_FLAGS or f == d.cause]
            if d.cause in PRINT_RULE_FLAGS and d.cause not in flags:
                flags.append(d.cause)
        out.append(dataclasses.replace(g, flags=tuple(flags), cause=d.cause,
                                       cause_text=d.text))
    return out
