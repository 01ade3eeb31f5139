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

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from dicejack.grade.consistency import consistency
from dicejack.grade.print_rules import print_check
from dicejack.grade.rubric import P_INCONSISTENT
from dicejack.grade.settings import GradeConfig

if TYPE_CHECKING:  # pragma: no cover
    from dicejack.grade.references import References

__all__ = ["PROBES", "PROBE_RUNS", "LOW_POWER", "SettingPower", "setting_power", "probe_plan",
           "probe_count"]

#: Probe name -> the factor on M that makes it (the bug classes of docs/grading.md).
PROBES: dict[str, float] = {"m-tenfold": 10.0, "m-tenth": 0.1, "greedy": 0.0}
#: Probe runs per bug.
PROBE_RUNS = 5
#: A probe caught in fewer than this share of its runs makes the setting low-power.
LOW_POWER = 0.6
#: The probe runs' seeds start this far after the calibration runs' last seed.
PROBE_SEED_OFFSET = 1_000


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


def probe_count() -> int:
    """How many probe runs a reference set holds."""
    return len(PROBES) * PROBE_RUNS


def probe_plan(config: GradeConfig) -> list[tuple[float, int]]:
    """(M, seed) of every probe run, PROBE_RUNS per probe in PROBES order."""
    first = config.seed + config.references + config.calibration + PROBE_SEED_OFFSET
    return [(config.m * factor, first + PROBE_RUNS * i + r)
            for i, factor in enumerate(PROBES.values()) for r in range(PROBE_RUNS)]


def _caught(refs: References, best: np.ndarray, prob: np.ndarray) -> bool:
    value = np.where(best >= 1, np.maximum(prob, 0.0), 0.0)
    policy = np.where(value > 0, best, 0).astype(np.int64)
    p = consistency(refs, policy, value).p_value
    return bool((np.isfinite(p) and p < P_INCONSISTENT)
                or print_check(refs, policy, value, None).flag)


def setting_power(refs: References) -> SettingPower:
    """The probes' catch rates at `refs`' settings (kept with `refs` once computed)."""
    cache = refs.derived("power")
    if "power" not in cache:
        caught = {}
        for i, name in enumerate(PROBES):
            rows = range(PROBE_RUNS * i, PROBE_RUNS * (i + 1))
            caught[name] = float(np.mean([
                _caught(refs, refs.probe_best[k], refs.probe_probability[k]) for k in rows]))
        cache["power"] = SettingPower(caught, PROBE_RUNS)
    return cache["power"]
