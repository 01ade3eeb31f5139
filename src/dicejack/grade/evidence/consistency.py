"""The consistency statistic T and its p-value: could these tables have come from the handout's
algorithm at these settings? This docstring is its specification (docs/grading.md explains why).

For each *usable* state s (at least USABLE_SHARE of the R reference runs have data there and they
visit it at least USABLE_VISITS times on average), with the tables as graded
(:mod:`dicejack.grade.evidence.printed`: value v, 0 for "no data or estimate 0"; J only where v >
0):

* v is ranked among the R reference values (ties count half): u = (#below + #equal/2 + 1/2) /
  (R + 1), and w = Phi^-1(u) is its normal score (|w| <= 2.14 at R = 30: no state dominates);
* where v > 0, the printed J gets f = (#agreeing + 1/2) / (R + 1), the smoothed share of
  reference runs it agrees with: runs whose set of exactly tied best J holds it, and runs whose
  own value is 0 (any J may be printed there);
* the state contributes c(s) = w**2 / 2 + POLICY_WEIGHT * (-log f) (only w**2 / 2 where v = 0).

T is the mean of c(s) over the usable states. With the probabilities printed to d <= 6 decimals,
the reference values are rounded to d first.

Calibration: C held-out faithful runs (seeds after the references') printed as dicejack prints
(lowest tied J, at the same precision) are scored against the R references exactly as a
submission is: C draws of T under "a faithful program", given this reference set. (Leave-one-out
on the references underestimated T's spread by 15-25% on some games: their ranks among each
other are constrained, a fresh run's are not.) T is positive and right-skewed, close to
log-normal, so the p-value is the Student-t predictive tail of log T:
p = P(t_{C-1} > (log T - mean) / (sd * sqrt(1 + 1/C))), mean and sd of the C values of log T.
The rank p-value (1 + #{null >= T}) / (C + 1) is also reported.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from dicejack.compare.hints import table_hints
from dicejack.grade.evidence.calibration import calibration
from dicejack.grade.evidence.references import USABLE_SHARE, USABLE_VISITS, References
from dicejack.grade.evidence.statistic import NULL_SD_FLOOR, p_value, statistic_terms

__all__ = ["Consistency", "consistency", "looks_transposed", "looks_zero_based",
           "USABLE_SHARE", "USABLE_VISITS"]


@dataclass(frozen=True, eq=False)
class Consistency:
    """How far a submission sits from the reference runs (module docstring).

    statistic: T; p_value: from the log-t fit of the leave-one-out null; p_rank: the rank
    p-value (1 + #{null >= T}) / (R + 1); usable: number of usable states; per_state: (L, L)
    contributions (NaN off the usable set); score: (L, L) signed normal score w of the estimate
    (NaN off the usable set); decimals: the printed precision the references were rounded to.
    """

    statistic: float
    p_value: float
    p_rank: float
    usable: int
    null_mean: float
    null_sd: float
    per_state: np.ndarray = field(repr=False)
    score: np.ndarray = field(repr=False)
    decimals: int | None = None



def consistency(
    refs: References, policy: np.ndarray, value: np.ndarray, decimals: int | None = None
) -> Consistency:
    """Score graded tables (:func:`graded_tables`: policy J per state, 0 = none; value: the
    estimate, 0 = none; a -1 is read as 0) against all R reference runs. With `decimals`, the
    reference estimates are rounded to that many decimals first, as the submission's were when
    printed, and the null is that of the calibration runs printed likewise."""
    value = np.maximum(np.asarray(value, dtype=np.float64), 0.0)
    policy = np.where(value > 0, np.asarray(policy), 0).astype(np.int64)
    policy = np.where((policy >= 0) & (policy <= refs.game.n_dice), policy, 0)
    per, score = statistic_terms(refs, policy, value, decimals)
    usable = refs.usable
    score = np.where(usable, score, np.nan)
    per = np.where(usable, per, np.nan)
    cal = calibration(refs)
    null = cal.null_at(decimals)
    null = null[np.isfinite(null)]
    if not usable.any() or null.size < 2:
        t = p = p_rank = math.nan
    else:
        t = float(np.nanmean(per))
        p = p_value(t, cal.null_fit_at(decimals))
        p_rank = float((1 + np.sum(null >= t)) / (null.size + 1))
    return Consistency(
        statistic=t, p_value=p, p_rank=p_rank, usable=int(usable.sum()),
        null_mean=float(null.mean()) if null.size else math.nan,
        null_sd=float(null.std(ddof=1)) if null.size > 1 else math.nan,
        per_state=per, score=score, decimals=decimals,
    )



def looks_transposed(
    refs: References, policy: np.ndarray, value: np.ndarray, decimals: int | None,
    as_printed: Consistency,
) -> bool:
    """True when the transposed tables fit the reference runs (or, without usable states, the
    truth, by :func:`dicejack.compare.table_hints`) markedly better than the tables as printed:
    T's excess over the null mean at most half as large, and smaller by more than 4 null
    standard deviations."""
    c = as_printed
    if np.isfinite(c.statistic) and np.isfinite(c.null_mean):
        flipped = consistency(refs, policy.T, value.T, decimals).statistic
        return _markedly_better(c, flipped)
    # Without usable states: compare's rule against the truth (states valued 0 hold no estimate).
    return table_hints(refs.truth, policy, value, no_data=value <= 0).transposed


def _markedly_better(c: Consistency, other: float) -> bool:
    """T of corrected tables `other` against T as printed: its excess over the null mean at
    most half as large, and smaller by more than 4 null standard deviations."""
    sd = max(c.null_sd if np.isfinite(c.null_sd) else 0.0, NULL_SD_FLOOR * c.null_mean)
    excess, other_excess = c.statistic - c.null_mean, other - c.null_mean
    return bool(other_excess < 0.5 * excess and excess - other_excess > 4 * sd)


def looks_zero_based(
    refs: References, printed_policy: np.ndarray, value: np.ndarray, decimals: int | None,
    as_printed: Consistency,
) -> bool:
    """True when the J printed beside every estimate above 0 is a whole number in 0..NDice-1,
    0 among them (a 1-based J never prints 0 there), and J + 1 fits the reference runs
    markedly better (the rule of :func:`looks_transposed`; as printed or transposed, so that
    tables with both slips are told; without usable states compare's rule against the
    truth)."""
    pol = np.asarray(printed_policy, dtype=np.float64)
    has = np.asarray(value) > 0
    printed = pol[has]
    k = refs.game.n_dice
    if not printed.size or not np.all(np.isfinite(printed)):
        return False
    if not (np.all((printed >= 0) & (printed <= k - 1) & (printed == np.round(printed)))
            and np.any(printed == 0)):
        return False
    c = as_printed
    if np.isfinite(c.statistic) and np.isfinite(c.null_mean):
        shifted = np.where(has, np.nan_to_num(pol) + 1, 0).astype(np.int64)
        best = min(consistency(refs, shifted, value, decimals).statistic,
                   consistency(refs, shifted.T, value.T, decimals).statistic)
        return _markedly_better(c, best)
    return table_hints(refs.truth, pol, value, no_data=~has).zero_based

