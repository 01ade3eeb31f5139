"""Setting-level power: can grading at these settings see the bugs that matter? A pass means
little where it cannot, and the gradebook says so instead of passing silently.

A few probe runs of the handout's learner with a wrong M (ten times too large, ten times too
small, 0: greedy), seeded after the calibration runs and computed and cached with them
(:func:`probe_plan`), are printed as dicejack prints and checked against the reference runs like
submissions: caught when the consistency p-value is below the
review level or a print-rule check flags them. The share caught per probe is the setting's
measured power for that bug (docs/grading.md, "Power at your settings"); below LOW_POWER for
any probe, every graded file gets the flag ``low-power`` and the batch a one-line note.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from dicejack.grade.evidence.calibration import Calibration, calibration
from dicejack.grade.evidence.consistency import consistency
from dicejack.grade.evidence.levels import P_INCONSISTENT
from dicejack.grade.evidence.print_rules import print_check
from dicejack.grade.evidence.printed import as_printed
from dicejack.grade.evidence.probes import PROBE_RUNS, PROBES
from dicejack.grade.evidence.references import References

__all__ = ["PROBES", "PROBE_RUNS", "LOW_POWER", "SettingPower", "setting_power"]

#: A probe caught in fewer than this share of its runs makes the setting low-power.
LOW_POWER = 0.6
#: The power of each calibration, computed once (dropped with the calibration).
_POWER: weakref.WeakKeyDictionary[Calibration, SettingPower] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class SettingPower:
    """caught: per probe of PROBES, the share of its runs the checks caught."""

    caught: dict[str, float]
    runs: int

    @property
    def low(self) -> tuple[str, ...]:
        """The probes caught less often than LOW_POWER."""
        return tuple(name for name, share in self.caught.items() if share < LOW_POWER)

    def note(self) -> str:
        """One line for the batch when a probe is rarely caught, else ""."""
        if not self.low:
            return ""
        seen = ", ".join(f"{name} in {round(self.caught[name] * self.runs)} of {self.runs}"
                         for name in self.low)
        return (f"low power at these settings: probe runs with a wrong M are caught only "
                f"rarely ({seen}); a pass here does not rule these bugs out (flag low-power); "
                "more games (--games) make them visible")


def _caught(refs: References, best: np.ndarray, prob: np.ndarray) -> bool:
    policy, value = as_printed(best, prob)
    p = consistency(refs, policy, value).p_value
    return bool((np.isfinite(p) and p < P_INCONSISTENT)
                or print_check(refs, policy, value, None).flag)


def setting_power(refs: References) -> SettingPower:
    """The probes' catch rates at `refs`' settings (kept with `refs` once computed)."""
    cal = calibration(refs)
    if cal not in _POWER:
        caught = {}
        for i, name in enumerate(PROBES):
            rows = range(PROBE_RUNS * i, PROBE_RUNS * (i + 1))
            caught[name] = float(np.mean([
                _caught(refs, refs.probe_best[k], refs.probe_probability[k]) for k in rows]))
        _POWER[cal] = SettingPower(caught, PROBE_RUNS)
    return _POWER[cal]
