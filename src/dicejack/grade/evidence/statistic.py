"""The consistency statistic's terms and its p-value, as functions of arrays and the reference
runs (:mod:`dicejack.grade.evidence.consistency` is the specification and the test). Kept below
the calibration, which scores the held-out runs with exactly these terms."""

from __future__ import annotations

import math

import numpy as np

from dicejack.grade.evidence.references import References

__all__ = ["statistic_terms", "rank_terms", "p_value", "POLICY_SMOOTHING", "POLICY_WEIGHT",
           "NULL_SD_FLOOR"]

#: Additive smoothing of the reference policy frequencies.
POLICY_SMOOTHING = 0.5
#: Weight of the policy surprisal against the estimate's w**2 / 2.
POLICY_WEIGHT = 0.25
#: Smallest standard deviation of log T under the null (all reference runs identical).
NULL_SD_FLOOR = 0.02



def _contributions(
    less: np.ndarray, equal: np.ndarray, agreeing: np.ndarray, has_estimate: np.ndarray, n: int
) -> np.ndarray:
    """Per-state w**2/2 + POLICY_WEIGHT * (-log f): w the normal score of the value's rank,
    f = (agreeing + 1/2) / (n + 1) the smoothed share of runs the printed J agrees with; the
    policy term only where the submission has an estimate above 0 (elsewhere any J is allowed)."""
    from scipy.special import ndtri

    u = (less + 0.5 * equal + 0.5) / (n + 1)
    w = ndtri(u)
    f = (agreeing + POLICY_SMOOTHING) / (n + 2 * POLICY_SMOOTHING)
    return 0.5 * w * w - POLICY_WEIGHT * np.where(has_estimate, np.log(f), 0.0)



def statistic_terms(
    refs: References, policy: np.ndarray, value: np.ndarray, decimals: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """(contribution c(s), normal score w) per state of graded tables against the R references
    (every state; the statistic uses the usable ones). The one place the statistic is computed,
    for submissions and for the calibration runs alike."""
    return rank_terms(refs.values_at(decimals), refs.agree_counts(decimals), policy, value)


def rank_terms(
    values: np.ndarray, agree: np.ndarray, policy: np.ndarray, value: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(c(s), w) per state of graded tables (policy: J, 0 = none; value: 0 = none) against any
    family of n runs: `values` (n, L, L) their graded values, `agree` (L, L, K + 1) how many of
    them each printed J agrees with. The statistic of the module docstring; the reference runs
    are one such family."""
    from scipy.special import ndtri

    n = values.shape[0]
    less = (values < value).sum(axis=0)
    equal = (values == value).sum(axis=0)
    agreeing = np.take_along_axis(agree, policy[..., None], axis=-1)[..., 0]
    per = _contributions(less, equal, agreeing, value > 0, n)
    return per, ndtri((less + 0.5 * equal + 0.5) / (n + 1))



def p_value(t: float, fit: tuple[float, float, int]) -> float:
    """Student-t predictive tail of log T (module docstring)."""
    from scipy import stats

    mean, sd, n = fit
    if not (np.isfinite(t) and t > 0 and n >= 2):
        return math.nan
    return float(stats.t.sf((math.log(t) - mean) / (sd * math.sqrt(1.0 + 1.0 / n)), n - 1))

