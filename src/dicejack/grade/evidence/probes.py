"""The probe runs of :mod:`dicejack.grade.evidence.power`: learner runs with a wrong M, seeded
after the calibration runs and computed and cached with the reference runs
(:mod:`dicejack.grade.evidence.references`), so that grading can measure what it sees."""

from __future__ import annotations

from dicejack.grade.settings import GradeConfig

__all__ = ["PROBES", "PROBE_RUNS", "PROBE_SEED_OFFSET", "probe_count", "probe_plan"]

#: Probe name -> the factor on M that makes it (the bug classes of docs/grading.md).
PROBES: dict[str, float] = {"m-tenfold": 10.0, "m-tenth": 0.1, "greedy": 0.0}
#: Probe runs per bug.
PROBE_RUNS = 5
#: The probe runs' seeds start this far after the calibration runs' last seed.
PROBE_SEED_OFFSET = 1_000



def probe_count() -> int:
    """How many probe runs a reference set holds."""
    return len(PROBES) * PROBE_RUNS


def probe_plan(config: GradeConfig) -> list[tuple[float, int]]:
    """(M, seed) of every probe run, PROBE_RUNS per probe in PROBES order."""
    first = config.seed + config.references + config.calibration + PROBE_SEED_OFFSET
    return [(config.m * factor, first + PROBE_RUNS * i + r)
            for i, factor in enumerate(PROBES.values()) for r in range(PROBE_RUNS)]
