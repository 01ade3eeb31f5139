"""The run plan: at which settings each program is run, and how often. The assigned settings
(the class's: their runs are what the score is made of) and probe settings chosen for power,
drawn afresh for each batch from a secret (:func:`draw_probes`): a program that prints tables
computed beforehand for the handout's settings and a few documented ones cannot know them. The
calibration grid (docs/calibration-grid.md) shows the print-only slips, which one printout at
the handout's settings cannot show, caught in 75-100% of outputs at two dice with LTarget 20 and
M 100-1000 and 2,000 games, and at LTarget 40 with M 100-1000; the probes stay at LTarget 31 or
less, whose tables numpy prints in full by default (:data:`MAX_PROBE_LOW`, :data:`PROBE_REGIONS`);
a wrong M shows at settings whose M differs from the assigned one. An instructor may give the
plan as TOML (``--plan FILE``)."""

from __future__ import annotations

import hashlib
import itertools
import math
import secrets as _secrets
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dicejack.grade.programs.conventions import Settings
from dicejack.grade.settings import GradeError
from dicejack.runtime.messages import Parameter

__all__ = ["PlannedSetting", "RunPlan", "ProbeRegion", "PROBE_REGIONS", "MAX_PROBE_LOW",
           "DEFAULT_PROBE_COUNT", "DEFAULT_RUNS", "MAX_RUNS", "MAX_SETTINGS", "MAX_PLAN_BYTES",
           "MAX_SECRET_CHARS", "draw_probes", "new_secret", "default_plan", "load_plan",
           "parse_plan"]

#: Runs per setting unless --runs says otherwise.
DEFAULT_RUNS = 2
MAX_RUNS = 100
MAX_SETTINGS = 50
MAX_PLAN_BYTES = 1 << 20
#: The largest LTarget a probe is drawn at: numpy prints an array of at most 1,000 values (its
#: default print threshold) in full and a larger one summarised with '...', which no one can
#: read; two LTarget x LTarget tables printed with ``print(table)`` must be whole at every probe.
MAX_PROBE_LOW = 31
#: Probe settings the default plan draws (one from each of :data:`PROBE_REGIONS`).
DEFAULT_PROBE_COUNT = 2
MAX_SECRET_CHARS = 200


@dataclass(frozen=True)
class ProbeRegion:
    """Where a probe setting is drawn from, every bound inclusive: LTarget any whole number in
    `low`, UTarget = LTarget + any whole number in `gap`, M any whole number in `m` drawn
    log-uniformly (each decade as likely), NGAMES any whole number in `games`; NSides `sides`,
    NDice `dice`."""

    name: str
    low: tuple[int, int]
    gap: tuple[int, int]
    m: tuple[int, int]
    games: tuple[int, int]
    sides: int = 6
    dice: int = 2

    @property
    def size(self) -> int:
        """How many different settings the region holds."""
        return math.prod(hi - lo + 1 for lo, hi in (self.low, self.gap, self.m, self.games))

    @property
    def cells(self) -> int:
        """How many (LTarget, UTarget) pairs it holds: what a printout must match exactly (the
        tables' size, and the game itself: one off in UTarget fails the consistency test)."""
        return math.prod(hi - lo + 1 for lo, hi in (self.low, self.gap))

    def __contains__(self, s: object) -> bool:
        return (isinstance(s, Settings) and s.sides == self.sides and s.dice == self.dice
                and self.low[0] <= s.low <= self.low[1]
                and self.gap[0] <= s.high - s.low <= self.gap[1]
                and float(s.m).is_integer() and self.m[0] <= s.m <= self.m[1]
                and self.games[0] <= s.games <= self.games[1])

    def draw(self, words: Iterator[int]) -> Settings:
        """One setting from four 64-bit words of `words`."""
        low = _whole(next(words), self.low)
        gap = _whole(next(words), self.gap)
        lo, hi = self.m
        m = min(hi, max(lo, round(lo * (hi / lo) ** (next(words) / 2**64))))
        return Settings(self.sides, low, low + gap, self.dice, float(m),
                        _whole(next(words), self.games))


def _whole(word: int, bounds: tuple[int, int]) -> int:
    """A whole number in `bounds` (inclusive) from a 64-bit word, uniformly (bias < 2^-40)."""
    lo, hi = bounds
    return lo + (word * (hi - lo + 1) >> 64)


#: The regions probes are drawn from, in turn (two dice, six sides; the rows cited are the
#: calibration grid's power table, NDice 2, as NDice | LTarget | M | NGAMES: share of the
#: printed-by-wins, printed-by-plays and printed-prob-of-most-played outputs caught). Every
#: LTarget is at most :data:`MAX_PROBE_LOW` (31): numpy prints a 31 x 31 table (961 values) in
#: full, a 32 x 32 one (1,024) summarised with '...' (earlier versions drew LTarget up to 40, at
#: which every program printing its tables with ``print(ndarray)`` was unreadable).
#:
#: - ``large``: LTarget 26-31, M 300-1000, NGAMES 10,000-20,000: many games at the largest
#:   tables numpy prints whole. The grid catches all three slips in 100% at 2 | 40 | 100 and
#:   2 | 40 | 1000 at 20,000 games; at LTarget 20 and 20,000 games printed-by-wins falls with M
#:   (75% at M 1000, 0% at M 100): hence M at least 300. Many games also catch a wrong M
#:   (m-tenth 100% at 2 | 20 | 1000 | 20,000 and 2 | 40 | 1000 | 20,000).
#: - ``mid``: LTarget 20-25, M 300-1000, NGAMES 2,000-5,000: few games and a high M, the role
#:   of the old LTarget 20, M 1000, 2,000 games. The slips are caught in 100% at
#:   2 | 20 | 1000 | 2,000 and 75-100% at 2 | 20 | 100 | 2,000, but printed-by-wins falls with
#:   many games (0% at 2 | 20 | 100 | 20,000): hence at most 5,000 games.
#:
#: UTarget is LTarget + 1 to 8 (the grid has only + 2). Between the grid's points, measured with
#: benchmarks/bench_probe_regions.py (docs/running.md, "The run plan"; 40 probes a region, 4
#: outputs of each slip at each): ``large`` caught printed-by-wins in 99% (158 of 160; the two
#: misses at LTarget 26 and 28, M 424-446) and the other two in 100%, ``mid`` all three in 100%,
#: at every gap.
#: ``mid`` starts at the grid's LTarget 20: at its LTarget 10 printed-by-wins is caught in 25%
#: at 2 | 10 | 100 | 2,000. A run costs less than the old fixed probes cost (LTarget 40, NGAMES
#: 20,000): LTarget at most 31, NGAMES at most 20,000.
PROBE_REGIONS = (
    ProbeRegion("large", low=(26, 31), gap=(1, 8), m=(300, 1000), games=(10_000, 20_000)),
    ProbeRegion("mid", low=(20, 25), gap=(1, 8), m=(300, 1000), games=(2_000, 5_000)),
)


def new_secret() -> str:
    """A fresh secret to draw probes from (16 hexadecimal digits, 64 random bits)."""
    return _secrets.token_hex(8)


def _secret_text(secret: object, *what: str) -> str:
    """`secret` as the text probes are drawn from: a whole number as its digits, or printable
    text of 1..MAX_SECRET_CHARS characters without surrounding spaces; else a one-line
    GradeError starting with `what` (parts: text or Parameter)."""
    if isinstance(secret, int) and not isinstance(secret, bool):
        return str(secret)
    if (isinstance(secret, str) and 0 < len(secret) <= MAX_SECRET_CHARS
            and secret.isprintable() and secret == secret.strip()):
        return secret
    shown = repr(secret) if len(repr(secret)) <= 60 else repr(secret)[:57] + "..."
    raise GradeError(*what, f" must be printable text of 1 to {MAX_SECRET_CHARS} characters "
                     f"without surrounding spaces, or a whole number; got {shown}")


def _words(secret: str, stream: int) -> Iterator[int]:
    """The endless stream number `stream` of 64-bit words a secret gives: BLAKE2b keyed by the
    secret's own BLAKE2b digest, on the stream number and a counter. Depends on nothing but the
    secret's text (no random module or numpy stream whose algorithm could change between
    versions)."""
    key = hashlib.blake2b(secret.encode(), digest_size=32, person=b"dicejack probes").digest()
    for counter in itertools.count():
        block = hashlib.blake2b(stream.to_bytes(8, "big") + counter.to_bytes(8, "big"), key=key,
                                digest_size=64).digest()
        for i in range(0, 64, 8):
            yield int.from_bytes(block[i:i + 8], "big")


def draw_probes(secret: str | int, count: int = DEFAULT_PROBE_COUNT, *,
                avoid: Iterable[Settings] = ()) -> tuple[Settings, ...]:
    """`count` probe settings drawn from `secret`, the i-th from ``PROBE_REGIONS[i % 2]``: the
    same secret always gives the same settings (on any machine and version), and a setting in
    `avoid` (the assigned settings) or drawn already is drawn again (the others stay). The two
    regions hold ``PROBE_REGIONS[0].size`` = 336,513,648 and ``PROBE_REGIONS[1].size`` =
    100,977,648 settings, so the default pair is one of about 3.4e16: far too many to print
    beforehand.

    Measured (docs/running.md), the grading cannot tell a printout at M within a factor 2 of the
    probe's, or at more games, from one at the probe's own settings, but fails one UTarget off;
    what a program of printouts would have to cover is then every (LTarget, UTarget) pair of a
    region, 48 + 48 = 96 (``.cells``), each at a few M and twice (two identical printouts of a
    setting are flagged fixed-output)."""
    text = _secret_text(secret, Parameter("secret"))
    if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= MAX_SETTINGS:
        raise GradeError(f"the probe count must be a whole number in 0..{MAX_SETTINGS}, got "
                         f"{count!r}")
    seen = set(avoid)
    out: list[Settings] = []
    for i in range(count):
        region = PROBE_REGIONS[i % len(PROBE_REGIONS)]
        words = _words(text, i)  # a stream per probe: one drawn again leaves the others be
        for _ in range(1000):  # a region holds > 10^8 settings: one draw almost always does
            probe = region.draw(words)
            if probe not in seen:
                break
        else:  # pragma: no cover - needs 1000 draws in a row among `avoid`
            raise GradeError(f"cannot draw a probe setting in region {region.name} apart from "
                             "the plan's own")
        seen.add(probe)
        out.append(probe)
    return tuple(out)


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
    """Every setting a program is run at (assigned ones first), and the secret its probe
    settings were drawn from ("" when none was drawn: a plan of explicit settings)."""

    settings: tuple[PlannedSetting, ...]
    secret: str = ""

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
        """Each setting with its runs, then the secret the probes were drawn with (the batch is
        reproduced by giving it again: --probe-secret)."""
        text = "; ".join(f"{s.runs} x {s.label}" for s in self.settings)
        return text + (f"; probes drawn with secret {self.secret}" if self.secret else "")


def _check_runs(runs: int) -> int:
    if isinstance(runs, bool) or not isinstance(runs, int) or not 1 <= runs <= MAX_RUNS:
        raise GradeError(f"--runs must be a whole number in 1..{MAX_RUNS}, got {runs!r}")
    return runs


def default_plan(assigned: Settings, runs: int = DEFAULT_RUNS,
                 probes: Sequence[Settings] | None = None, *,
                 secret: str | int | None = None) -> RunPlan:
    """The assigned settings and DEFAULT_PROBE_COUNT probes drawn from `secret` (default: a
    fresh one, :func:`new_secret`; the plan records it), `runs` runs each. Explicit `probes`
    instead are run as given (one equal to the assigned settings is left out), with no secret."""
    runs = _check_runs(runs)
    out = [PlannedSetting(assigned, "assigned", runs)]
    if probes is not None:
        if secret is not None:
            raise GradeError(Parameter("secret"), " draws the probes; give it or explicit "
                             "probes, not both")
        out += [PlannedSetting(p, "probe", runs) for p in probes if p != assigned]
        return RunPlan(tuple(out))
    text = new_secret() if secret is None else _secret_text(secret, Parameter("secret"))
    out += [PlannedSetting(p, "probe", runs) for p in draw_probes(text, avoid=(assigned,))]
    return RunPlan(tuple(out), secret=text)


_KEYS = ("sides", "low", "high", "dice", "m", "games")
_TOP_KEYS = ("runs", "assigned", "probes", "secret", "setting")


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


def parse_plan(text: str, *, assigned: Settings | None = None, runs: int | None = None,
               secret: str | int | None = None) -> RunPlan:
    """A plan from TOML text: top-level ``runs`` (default per setting), ``assigned = true``
    (include the command line's settings; the default), ``probes = N`` (N probe settings drawn
    as :func:`draw_probes` draws them, apart from the plan's own; default 0), ``secret``
    (the text they are drawn from; default a fresh one) and ``[[setting]]`` tables with sides,
    low, high, dice, m, games and optional role (probe) and runs. `runs` (--runs) overrides
    the file's default, `secret` (--probe-secret) the file's secret."""
    try:
        import tomllib
    except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise GradeError(f"the run plan is not valid TOML: {exc}") from None
    unknown = sorted(set(data) - set(_TOP_KEYS))
    if unknown:
        raise GradeError(f"the run plan: unknown key {unknown[0]!r} (keys: "
                         f"{', '.join(_TOP_KEYS)})")
    default = _check_runs(runs if runs is not None else data.get("runs", DEFAULT_RUNS))
    count = data.get("probes", 0)
    if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= MAX_SETTINGS:
        raise GradeError(f"the run plan: probes (how many probe settings to draw) must be a "
                         f"whole number in 0..{MAX_SETTINGS}, got {count!r}")
    file_secret = (_secret_text(data["secret"], "the run plan: secret") if "secret" in data
                   else None)
    if file_secret is not None and not count:
        raise GradeError("the run plan: secret draws nothing without probes = N")
    if secret is not None and not count:
        raise GradeError(Parameter("secret"), " draws probe settings, but the run plan asks "
                         "for none (probes = N)")
    entries = data.get("setting", [])
    if not isinstance(entries, list):
        raise GradeError("the run plan: [[setting]] must be an array of tables")
    out: list[PlannedSetting] = []
    if data.get("assigned", True) and assigned is not None:
        out.append(PlannedSetting(assigned, "assigned", default))
    out += [_setting(e, f"the run plan's setting {i + 1}", default)
            for i, e in enumerate(entries)]
    drawn = ""
    if count:
        drawn = (_secret_text(secret, Parameter("secret")) if secret is not None
                 else file_secret or new_secret())
        out += [PlannedSetting(p, "probe", default)
                for p in draw_probes(drawn, count, avoid=[s.settings for s in out])]
    out.sort(key=lambda s: s.role != "assigned")
    return RunPlan(tuple(out), secret=drawn)


def load_plan(path: Path, *, assigned: Settings | None = None, runs: int | None = None,
              secret: str | int | None = None) -> RunPlan:
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
    return parse_plan(text, assigned=assigned, runs=runs, secret=secret)
