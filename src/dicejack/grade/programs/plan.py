"""The run plan: at which settings each program is run, and how often. The assigned settings
(the class's: their runs are what the score is made of) and probe settings chosen for power: the
calibration grid (docs/calibration-grid.md) shows the print-only slips, which one printout at
the handout's settings cannot show, caught in 75-100% of outputs at two dice with LTarget 40, M
100 and 20,000 games, and LTarget 20, M 1000 and 2,000 games; a wrong M shows at settings whose
M differs from the assigned one. An instructor may give the plan as TOML (``--plan FILE``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dicejack.grade.programs.conventions import Settings
from dicejack.grade.settings import GradeError

__all__ = ["PlannedSetting", "RunPlan", "DEFAULT_PROBES", "DEFAULT_RUNS", "MAX_RUNS",
           "MAX_SETTINGS", "MAX_PLAN_BYTES", "default_plan", "load_plan", "parse_plan"]

#: Runs per setting unless --runs says otherwise.
DEFAULT_RUNS = 2
MAX_RUNS = 100
MAX_SETTINGS = 50
MAX_PLAN_BYTES = 1 << 20
#: Probe settings (NSides, LTarget, UTarget, NDice, M, NGAMES): where the calibration grid
#: catches each print-only slip most often, at a modest cost per run.
DEFAULT_PROBES = (
    Settings(6, 40, 42, 2, 100.0, 20_000),
    Settings(6, 20, 22, 2, 1000.0, 2_000),
)


@dataclass(frozen=True)
class PlannedSetting:
    """A setting of the plan: its settings, its role (assigned: scored; probe: checked only) and
    how many runs."""

    settings: Settings
    role: str
    runs: int

    @property
    def label(self) -> str:
        return f"{self.role} {self.settings.describe()}"


@dataclass(frozen=True)
class RunPlan:
    """Every setting a program is run at (assigned ones first)."""

    settings: tuple[PlannedSetting, ...]

    def __post_init__(self) -> None:
        if not self.settings:
            raise GradeError("the run plan has no setting")
        if len(self.settings) > MAX_SETTINGS:
            raise GradeError(f"the run plan has {len(self.settings)} settings; at most "
                             f"{MAX_SETTINGS}")
        if not any(s.role == "assigned" for s in self.settings):
            raise GradeError("the run plan has no assigned setting (role = \"assigned\")")

    @property
    def runs(self) -> int:
        return sum(s.runs for s in self.settings)

    def describe(self) -> str:
        return "; ".join(f"{s.runs} x {s.label}" for s in self.settings)


def _check_runs(runs: int) -> int:
    if isinstance(runs, bool) or not isinstance(runs, int) or not 1 <= runs <= MAX_RUNS:
        raise GradeError(f"--runs must be a whole number in 1..{MAX_RUNS}, got {runs!r}")
    return runs


def default_plan(assigned: Settings, runs: int = DEFAULT_RUNS,
                 probes: Sequence[Settings] = DEFAULT_PROBES) -> RunPlan:
    """The assigned settings and the default probes, `runs` runs each (a probe equal to the
    assigned settings is left out)."""
    runs = _check_runs(runs)
    out = [PlannedSetting(assigned, "assigned", runs)]
    out += [PlannedSetting(p, "probe", runs) for p in probes if p != assigned]
    return RunPlan(tuple(out))


_KEYS = ("sides", "low", "high", "dice", "m", "games")


def _setting(entry: Mapping[str, Any], where: str, runs: int) -> PlannedSetting:
    unknown = sorted(set(entry) - {*_KEYS, "role", "runs"})
    if unknown:
        raise GradeError(f"{where}: unknown key {unknown[0]!r} (keys: "
                         f"{', '.join((*_KEYS, 'role', 'runs'))})")
    missing = [k for k in _KEYS if k not in entry]
    if missing:
        raise GradeError(f"{where}: missing {missing[0]!r}")
    ints = {}
    for key in ("sides", "low", "high", "dice", "games"):
        value = entry[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise GradeError(f"{where}: {key} must be a whole number >= 1, got {value!r}")
        ints[key] = value
    m = entry["m"]
    if isinstance(m, bool) or not isinstance(m, (int, float)) or not math.isfinite(m) or m < 0:
        raise GradeError(f"{where}: m must be a number >= 0, got {m!r}")
    if not ints["low"] <= ints["high"]:
        raise GradeError(f"{where}: low must be <= high")
    role = entry.get("role", "probe")
    if role not in ("assigned", "probe"):
        raise GradeError(f"{where}: role must be assigned or probe, got {role!r}")
    settings = Settings(ints["sides"], ints["low"], ints["high"], ints["dice"], float(m),
                        ints["games"])
    return PlannedSetting(settings, role, _check_runs(entry.get("runs", runs)))


def parse_plan(text: str, *, assigned: Settings | None = None, runs: int | None = None
               ) -> RunPlan:
    """A plan from TOML text: top-level ``runs`` (default per setting), ``assigned = true``
    (include the command line's settings; the default) and ``[[setting]]`` tables with sides,
    low, high, dice, m, games and optional role (probe) and runs. `runs` (--runs) overrides
    the file's default."""
    try:
        import tomllib
    except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise GradeError(f"the run plan is not valid TOML: {exc}") from None
    unknown = sorted(set(data) - {"runs", "assigned", "setting"})
    if unknown:
        raise GradeError(f"the run plan: unknown key {unknown[0]!r} (keys: runs, assigned, "
                         "setting)")
    default = _check_runs(runs if runs is not None else data.get("runs", DEFAULT_RUNS))
    entries = data.get("setting", [])
    if not isinstance(entries, list):
        raise GradeError("the run plan: [[setting]] must be an array of tables")
    out: list[PlannedSetting] = []
    if data.get("assigned", True) and assigned is not None:
        out.append(PlannedSetting(assigned, "assigned", default))
    out += [_setting(e, f"the run plan's setting {i + 1}", default)
            for i, e in enumerate(entries)]
    out.sort(key=lambda s: s.role != "assigned")
    return RunPlan(tuple(out))


def load_plan(path: Path, *, assigned: Settings | None = None, runs: int | None = None
              ) -> RunPlan:
    """:func:`parse_plan` of a file (at most MAX_PLAN_BYTES)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_PLAN_BYTES + 1)
    except OSError as exc:
        raise GradeError(f"cannot read the run plan {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_PLAN_BYTES:
        raise GradeError(f"the run plan {path} is larger than {MAX_PLAN_BYTES:,} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise GradeError(f"the run plan {path} is not UTF-8 text") from None
    return parse_plan(text, assigned=assigned, runs=runs)
