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
it is given (T gets the rest: :data:`dicejack.grade.evidence.levels.P_INCONSISTENT`); so a faithful
program goes to review at the nominal rate, not more. With fewer than 60 held-out runs the
check cannot reach its level and does not run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dicejack.grade.evidence.calibration import calibration
from dicejack.grade.evidence.levels import ALPHA_PRINT
from dicejack.grade.evidence.print_model import PRINT_RULES
from dicejack.grade.evidence.references import References

__all__ = ["PrintCheck", "print_check", "rule_statistics"]


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



def rule_statistics(refs: References, policy: np.ndarray, value: np.ndarray,
                    decimals: int | None) -> np.ndarray:
    """The three raw sums of graded tables (policy: J, 0 = none; value: 0 = none)."""
    model = calibration(refs).print_model(decimals)
    return model.statistics(np.asarray(policy, dtype=np.int64),
                            np.asarray(value, dtype=np.float64))



def print_check(refs: References, policy: np.ndarray, value: np.ndarray,
                decimals: int | None) -> PrintCheck:
    """The print-rule checks of graded tables against `refs` (module docstring)."""
    null = calibration(refs).print_null(decimals)
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

