"""Print-rule checks: tables learned by the handout's algorithm but *printed* by another rule.
This docstring is their specification (docs/grading.md, "Print-rule checks", says why).

A program may learn exactly by the handout and still print, as "the correct number of dice", the
J with the most wins (``printed-by-wins``) or the most plays (``printed-by-plays``), each beside
that J's own estimate; or print the right J beside the estimate of the most-played J
(``printed-prob-of-most-played``). The consistency statistic T barely sees these slips: they
change a few states, where two J are nearly as good. The reference runs keep their full counts,
so each rule can be applied to them, and each slip gets a statistic of its own.

Over the usable states where the submission prints an estimate v > 0 with a J in 1..NDice
(estimates and reference ratios rounded to the printed decimals, as for T):

* ``printed-by-wins`` / ``printed-by-plays``: a likelihood ratio between "J printed by the rule"
  and "J printed as the best estimate". Printed faithfully, (J, v) needs every other J's ratio at
  most v; that chance is the product over J' != J of F_J'(v), F the Student-t predictive CDF of
  J''s ratio over the reference runs (sd at least SD_FLOOR). Printed by the rule, J is the one
  the rule picks, chance pi(J) = (#reference runs the rule picks J in + 1) / (R + K), whatever
  the other ratios. The state adds max(log pi(J) - sum log F_J'(v), -CLIP).
* ``printed-prob-of-most-played``: the right J with another J's estimate. A kernel likelihood
  ratio of the printed value: among the reference runs whose tied best set holds J, the value
  the rule prints against the value faithful printing prints (Gaussian kernel, Silverman's
  bandwidth of the faithful values, at least BANDWIDTH_FLOOR; plus 1 / ((R + 1) K)).

Calibration, as a family: each slip's sum is standardised by the mean and sd of the same sum
over the C held-out faithful runs (printed as dicejack prints: the same null as T's); S is the
largest of the three z. The p-value is the rank of S among the held-out runs' S:
(1 + #{held-out S >= S}) / (C + 1), exact for a faithful program (exchangeable with them). The
check flags the slip with the largest z when p <= ALPHA_PRINT, the part of the 5% review level
it is given (T gets the rest: :data:`dicejack.grade.rubric.P_INCONSISTENT`); so a faithful
program goes to review at the nominal rate, not more. With fewer than 60 held-out runs the
check cannot reach its level and does not run.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from dicejack.grade.rubric import ALPHA_PRINT, PRINT_RULE_FLAGS

if TYPE_CHECKING:  # pragma: no cover
    from dicejack.grade.references import References

__all__ = ["PRINT_RULES", "PrintCheck", "print_check", "rule_tables", "rule_statistics",
           "SD_FLOOR", "CLIP", "BANDWIDTH_FLOOR"]

#: The print-only slips, by flag name, in the order of the statistics.
PRINT_RULES = PRINT_RULE_FLAGS
#: Smallest spread of a J's ratio over the reference runs (all runs alike at many games).
SD_FLOOR = 0.002
#: A state's log likelihood ratio is cut below at -CLIP: one state where a faithful program's
#: estimate happens to be high cannot hide the slip in the others.
CLIP = 1.0
#: Smallest kernel bandwidth of the printed value.
BANDWIDTH_FLOOR = 0.001


@dataclass(frozen=True, eq=False)
class PrintCheck:
    """The print-rule checks of one submission (module docstring).

    z: per rule in :data:`PRINT_RULES`, its statistic standardised by the held-out runs;
    p_value: the rank p-value of the largest z; flag: the rule flagged ("" if none);
    runs: False when the check could not run (too few held-out runs or no usable state).
    """

    z: dict[str, float]
    p_value: float
    flag: str
    runs: bool = True

    def sentence(self) -> str:
        """One sentence for the reports: whether the checks ran, the slip that fits best, the
        family's rank p-value and what was flagged."""
        what = ("Print-rule checks (is the best J printed by another rule than the best "
                "estimate?): ")
        if not self.runs:
            return what + ("not run (they need at least 60 held-out calibration runs and a "
                           "usable state).")
        rule = max(self.z, key=lambda r: self.z[r])
        verdict = (f"flagged `{self.flag}`" if self.flag else
                   f"nothing flagged (flagged at p <= {ALPHA_PRINT:.4f})")
        return (what + f"closest slip {rule} (z = {self.z[rule]:.2f}), rank p-value "
                f"{self.p_value:.3g}; {verdict}.")


def _ratios(win: np.ndarray, lose: np.ndarray) -> np.ndarray:
    """(..., K) WinCount / (WinCount + LoseCount) per J = 1..K, NaN without data."""
    w = win[..., 1:].astype(np.float64)
    n = w + lose[..., 1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, w / np.where(n > 0, n, 1.0), np.nan)


def rule_tables(win: np.ndarray, lose: np.ndarray, rule: str) -> tuple[np.ndarray, np.ndarray]:
    """What a program that learned these counts prints by `rule` ("faithful" or one of
    :data:`PRINT_RULES`): (the set of J it may print, (..., K + 1) bool, ties left open;
    the printed estimate, 0 where the state has no data)."""
    w = win[..., 1:].astype(np.float64)
    plays = w + lose[..., 1:]
    has = plays > 0
    ratio = _ratios(win, lose)
    key = {"faithful": ratio, "printed-by-wins": w, "printed-by-plays": plays,
           "printed-prob-of-most-played": ratio}[rule]
    keyed = np.where(has, key, -np.inf)
    chosen = has & (keyed == keyed.max(axis=-1, keepdims=True))
    source = chosen
    if rule == "printed-prob-of-most-played":
        played = np.where(has, plays, -np.inf)
        source = has & (played == played.max(axis=-1, keepdims=True))
    first = source.argmax(axis=-1)
    value = np.take_along_axis(np.nan_to_num(ratio), first[..., None], axis=-1)[..., 0]
    sets = np.zeros(win.shape, dtype=bool)
    sets[..., 1:] = chosen
    return sets, np.where(has.any(axis=-1), value, 0.0)


class _Model:
    """What the statistics need from the reference runs at one printed precision, kept for the
    usable states only (flattened): nothing else enters a sum."""

    def __init__(self, refs: References, decimals: int | None) -> None:
        r, k = refs.best.shape[0], refs.game.n_dice
        rnd = (lambda a: a) if decimals is None else (lambda a: np.round(a, decimals))
        self.r, self.k = r, k
        self.states = np.flatnonzero(refs.usable)  # flat indices of the usable states
        u = self.states.size

        def usable(a: np.ndarray, lead: int = 0) -> np.ndarray:
            """a's usable states, flattened: a is (lead..., L, L, rest...)."""
            shape = a.shape[:lead] + (-1,) + a.shape[lead + 2:]
            return a.reshape(shape)[(slice(None),) * lead + (self.states,)]

        win, lose = usable(refs.win, 1), usable(refs.lose, 1)  # (R, U, K + 1)
        ratio = rnd(_ratios(win, lose))  # (R, U, K)
        self.n = np.sum(~np.isnan(ratio), axis=0)
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a J no reference run played
            self.mean = np.nanmean(ratio, axis=0)
            sd = np.nanstd(ratio, axis=0, ddof=1)
        floor = SD_FLOOR if decimals is None else max(SD_FLOOR, 0.5 * 10.0**-decimals)
        sd = np.where(np.isfinite(sd), np.maximum(sd, floor), floor)
        self.scale = sd * np.sqrt(1.0 + 1.0 / np.maximum(self.n, 1))
        self.df = np.maximum(self.n - 1, 1).astype(np.float64)
        self.mean = np.where(self.n >= 2, self.mean, 0.0)
        self.picks = {rule: rule_tables(win, lose, rule)[0].sum(axis=0)  # (U, K + 1)
                      for rule in PRINT_RULES[:2]}
        faithful_sets, faithful_values = rule_tables(win, lose, "faithful")
        _, mixed_values = rule_tables(win, lose, PRINT_RULES[2])
        faithful_values, mixed_values = rnd(faithful_values), rnd(mixed_values)
        # The kernel ratio is exactly 0 where no reference run prints another value: skip those.
        self.mixed = np.flatnonzero((faithful_values != mixed_values).any(axis=0))
        self.mixed_sets = faithful_sets[:, self.mixed]  # (R, D, K + 1)
        self.mixed_values = (faithful_values[:, self.mixed], mixed_values[:, self.mixed])
        spread = faithful_values[:, self.mixed].std(axis=0)
        self.bandwidth = np.maximum(1.06 * spread * r ** -0.2, BANDWIDTH_FLOOR)
        self.rows = np.arange(u)

    def statistics(self, policy: np.ndarray, value: np.ndarray) -> np.ndarray:
        """The three sums (one per rule of PRINT_RULES) for graded tables."""
        from scipy.special import stdtr  # the t CDF as a ufunc: 20x faster than scipy.stats

        v = value.reshape(-1)[self.states]
        ok = (v > 0) & (policy.reshape(-1)[self.states] >= 1)
        j = np.clip(policy.reshape(-1)[self.states], 1, self.k)
        with np.errstate(divide="ignore"):
            cdf = stdtr(self.df, (v[:, None] - self.mean) / self.scale)
        log_cdf = np.where(self.n >= 2, np.log(np.maximum(cdf, 1e-300)), 0.0)
        others = log_cdf.sum(axis=-1) - log_cdf[self.rows, j - 1]
        out = np.empty(len(PRINT_RULES))
        for i, rule in enumerate(PRINT_RULES[:2]):
            picked = self.picks[rule][self.rows, j]
            term = np.log((picked + 1.0) / (self.r + self.k)) - others
            out[i] = float(np.maximum(term, -CLIP)[ok].sum())
        d = self.mixed
        holds = self.mixed_sets[:, np.arange(d.size), j[d]]  # (R, D)
        floor = 1.0 / ((self.r + 1) * self.k)
        dens = []
        for values in self.mixed_values:
            w = (v[d][None] - values) / self.bandwidth[None]
            kernel = np.exp(-0.5 * w * w) / (math.sqrt(2 * math.pi) * self.bandwidth[None])
            dens.append(np.log((holds * kernel).sum(axis=0) / self.r + floor))
        out[2] = float((dens[1] - dens[0])[ok[d]].sum())
        return out


def rule_statistics(refs: References, policy: np.ndarray, value: np.ndarray,
                    decimals: int | None) -> np.ndarray:
    """The three raw sums of graded tables (policy: J, 0 = none; value: 0 = none)."""
    return _model(refs, decimals).statistics(np.asarray(policy, dtype=np.int64),
                                             np.asarray(value, dtype=np.float64))


def _model(refs: References, decimals: int | None) -> _Model:
    cache = refs.derived("print-model", decimals)
    if "model" not in cache:
        cache["model"] = _Model(refs, decimals)
    return cache["model"]


def _null(refs: References, decimals: int | None) -> np.ndarray:
    """(C, 3) sums of the held-out runs, printed as dicejack prints at `decimals`."""
    cache = refs.derived("print-null", decimals)
    if "null" not in cache:
        model = _model(refs, decimals)
        rows = []
        for c in range(refs.held_best.shape[0]):
            value = np.where(refs.held_best[c] >= 1, refs.held_probability[c], 0.0)
            if decimals is not None:
                value = np.round(value, decimals)
            policy = np.where(value > 0, refs.held_best[c], 0).astype(np.int64)
            rows.append(model.statistics(policy, value))
        cache["null"] = np.array(rows).reshape(-1, len(PRINT_RULES))
    return cache["null"]


def print_check(refs: References, policy: np.ndarray, value: np.ndarray,
                decimals: int | None) -> PrintCheck:
    """The print-rule checks of graded tables against `refs` (module docstring)."""
    null = _null(refs, decimals)
    if null.shape[0] + 1 < 1.0 / ALPHA_PRINT - 1e-9 or not refs.usable.any():
        return PrintCheck({rule: math.nan for rule in PRINT_RULES}, math.nan, "", runs=False)
    mean = null.mean(axis=0)
    sd = np.maximum(null.std(axis=0, ddof=1), 1e-9)
    z = (rule_statistics(refs, policy, value, decimals) - mean) / sd
    top = float(z.max())
    null_top = ((null - mean) / sd).max(axis=1)
    p = float((1 + np.sum(null_top >= top)) / (null.shape[0] + 1))
    flag = PRINT_RULES[int(z.argmax())] if p <= ALPHA_PRINT + 1e-12 else ""
    return PrintCheck({rule: float(v) for rule, v in zip(PRINT_RULES, z, strict=True)}, p, flag)
