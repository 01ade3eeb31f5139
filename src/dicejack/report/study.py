"""A convergence study: what to run, running it, and the statistics over seeds.

Owns the numbers of a report, not its files. :class:`ReportConfig` says what to study (a game, the
series, checkpoint game counts, seeds) and :func:`parse_series` / :func:`parse_games` read them
from the command line's text. A series (:class:`SeriesSpec`) is one curve: a bundled learner of
:mod:`dicejack.learners` and the parameters set for it (the handout's learner with M = 100 by
default; ``-m 10,100`` is one series per M). :func:`run_one` is one learner run with every metric
of :mod:`dicejack.compare` at every checkpoint; :func:`run_study` runs every (series, seed)
through :mod:`dicejack.parallel` and returns a :class:`Study`, which gives the mean and 95%
interval over seeds of every metric and the games each series needs to reach a target
(:meth:`Study.games_to_target`).

Seeds: run i (i = 0..seeds-1) of every series uses seed ``first_seed + i`` (the same seeds for
every series), so any run can be replayed with ``dicejack learn --seed S``. Runs give identical
numbers whichever executor runs them: each depends only on (game, series, seed, counts). The 95%
interval over seeds is the Student-t interval mean +- t(0.975, n-1) * sd / sqrt(n), sd with
ddof=1, over the n seeds whose value is defined (NaN where n < 2).
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import itertools
import math
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dicejack import compare, frames, learner, learners, parallel
from dicejack.compare import METRIC_NAMES, Learned, Truth
from dicejack.game import DicejackError, Game

__all__ = [
    "ReportError",
    "HANDOUT_GAME",
    "DEFAULT_SEEDS",
    "SEEDS_LIMIT",
    "TOTAL_GAMES_LIMIT",
    "DEFAULT_M",
    "DEFAULT_GAMES",
    "series_125",
    "parse_games",
    "check_games",
    "parse_ms",
    "check_ms",
    "SeriesSpec",
    "parse_learners",
    "parse_series",
    "ReportConfig",
    "RunResult",
    "run_one",
    "interval",
    "Reach",
    "games_to_reach",
    "Study",
    "run_study",
]

#: The handout's example game: `dicejack report` with no options studies it.
HANDOUT_GAME = Game(n_sides=6, low=15, high=17, n_dice=2)
DEFAULT_SEEDS = 10
DEFAULT_M = (100.0,)


class ReportError(DicejackError):
    """Bad report parameters or an output folder that cannot be written."""


# ------------------------------------------------------------------------------ parameters
def series_125(first: int, last: int) -> tuple[int, ...]:
    """Game counts 1, 2, 5 x 10^k from `first` to `last` (both kept), e.g. 100, 200, 500, 1000."""
    if first < 1 or last < first:
        raise ReportError(f"bad game-count range {first}..{last}")
    values = {first, last}
    for k in range(int(math.log10(first)) - 1, int(math.log10(last)) + 2):
        for lead in (1, 2, 5):
            v = lead * 10**k
            if first <= v <= last:
                values.add(v)
    return tuple(sorted(values))


#: Default checkpoints: 100, 200, 500, ..., 1,000,000 (13 log-spaced game counts).
DEFAULT_GAMES = series_125(100, 10**6)


#: Most learner runs per M in one report.
SEEDS_LIMIT = 10_000
#: Most games a whole report may play (seeds x M values x the last checkpoint): about two days on
#: one core.
TOTAL_GAMES_LIMIT = 10**12


def _check_limit(games: int) -> None:
    try:
        learner.check_games_limit(games, "--games")
    except learner.LearnerError as exc:
        raise ReportError(str(exc)) from None


def _parse_count(text: str) -> int:
    text = text.strip().replace("_", "")
    try:
        value = float(text) if any(c in text for c in ".eE") else int(text)
    except ValueError:
        raise ReportError(f"game count {text!r} is not a number") from None
    if isinstance(value, float) and (not math.isfinite(value) or value != int(value)):
        raise ReportError(f"game count {text!r} is not a whole number")
    return int(value)


def parse_games(text: str) -> tuple[int, ...]:
    """'100,1000,10000' (strictly increasing) or 'A..B' (the 1-2-5 series from A to B)."""
    text = text.strip()
    if ".." in text:
        first, _, last = text.partition("..")
        a, b = _parse_count(first), _parse_count(last)
        _check_limit(b)
        if a < 1 or b <= a:
            raise ReportError(f"game counts must be positive and increasing, got {text}")
        return series_125(a, b)
    parts = [p for p in text.split(",") if p.strip()]
    if not parts:
        raise ReportError("no game counts given")
    return check_games(tuple(_parse_count(p) for p in parts))


def check_games(games: Sequence[int]) -> tuple[int, ...]:
    """Validate checkpoint game counts: non-empty, positive, strictly increasing, at most
    :data:`dicejack.learner.GAMES_LIMIT`."""
    games = tuple(int(g) for g in games)
    if not games:
        raise ReportError("no game counts given")
    _check_limit(max(games))
    if any(g < 1 for g in games):
        raise ReportError(f"game counts must be positive, got {', '.join(map(str, games))}")
    if any(b <= a for a, b in zip(games, games[1:], strict=False)):
        raise ReportError(
            f"game counts must be strictly increasing, got {', '.join(map(str, games))}"
        )
    return games


def parse_ms(values: Sequence[str | float]) -> tuple[float, ...]:
    """M values from repeated options and/or comma lists: '-m 10 -m 100' or '-m 10,100'."""
    out: list[float] = []
    for item in values:
        for part in str(item).split(","):
            part = part.strip()
            if not part:
                continue
            try:
                out.append(float(part))
            except ValueError:
                raise ReportError(f"M must be a number, got {part!r}") from None
    return check_ms(out)


def check_ms(ms: Sequence[float]) -> tuple[float, ...]:
    """Validate M values: at least one, each finite and >= 0, no repeats."""
    if not ms:
        raise ReportError("no M given")
    clean = []
    for m in ms:
        try:
            clean.append(learner.check_m(float(m)))
        except learner.LearnerError as exc:
            raise ReportError(str(exc)) from None
    if len(set(clean)) != len(clean):
        raise ReportError(f"M values must be distinct, got {', '.join(f'{m:g}' for m in ms)}")
    return tuple(clean)


def _value_text(value: Any) -> str:
    """A parameter value as typed after ``--param key=``: 1/n for None, %g when that reads back
    exactly, else repr (so that a command built from a series reproduces it)."""
    if isinstance(value, float):
        short = f"{value:g}"
        return short if float(short) == value else repr(value)
    return learners.base.format_value(value)


@dataclass(frozen=True)
class SeriesSpec:
    """One series of a report (one curve on every figure): a bundled learner (a name of
    :data:`dicejack.learners.NAMES`) and the parameters set for it, as (name, value) pairs.

    The parameters are checked and kept in the learner's own order; those not given take the
    learner's defaults when it runs. The handout's learner always carries its M (``m``, default
    100). ``SeriesSpec("q-learning", (("alpha", 0.1),))`` is labelled ``q-learning alpha=0.1``,
    ``SeriesSpec.handout(10)`` ``handout M=10``.
    """

    learner: str = "handout"
    params: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        try:
            specs = learners.parameters(self.learner)
        except learners.LearnerError as exc:
            raise ReportError(str(exc)) from None
        pairs = tuple(tuple(p) for p in self.params)
        if any(len(p) != 2 or not isinstance(p[0], str) for p in pairs):
            raise ReportError(f"{self.learner} series parameters must be (name, value) pairs")
        given = dict(pairs)
        if len(given) != len(pairs):
            raise ReportError(f"a {self.learner} series sets a parameter twice")
        if self.learner == "handout":
            given.setdefault("m", 100.0)
        try:
            full = learners.check_learner_params(self.learner, given)
            if "m" in given:
                full["m"] = learner.check_m(full["m"])
        except learners.LearnerError as exc:
            raise ReportError(str(exc)) from None
        ordered = tuple((p.name, full[p.name]) for p in specs if p.name in given)
        object.__setattr__(self, "params", ordered)

    @classmethod
    def handout(cls, m: float) -> SeriesSpec:
        """The handout's learner with M = `m` (and its default tie-break)."""
        return cls("handout", (("m", float(m)),))

    @property
    def m(self) -> float | None:
        """The handout's M, or None for another learner."""
        return dict(self.params).get("m") if self.learner == "handout" else None

    @property
    def plain_handout(self) -> bool:
        """The handout's learner with only its M set: a series of a classic M report."""
        return self.learner == "handout" and [k for k, _ in self.params] == ["m"]

    @property
    def label(self) -> str:
        """The series in legends and tables: ``handout M=100``, ``q-learning alpha=0.1``,
        ``thompson``."""
        words = [f"{'M' if k == 'm' and self.learner == 'handout' else k}={_value_text(v)}"
                 for k, v in self.params]
        return " ".join([self.learner, *words])

    @property
    def slug(self) -> str:
        """The label as a file-name part: ``handout_m100``, ``q-learning_alpha0.1``."""
        parts = [self.learner, *(f"{k}{_value_text(v)}" for k, v in self.params)]
        text = "_".join(parts).replace("/", "-")
        return "".join(c if c.isalnum() or c in "-._" else "-" for c in text)

    def kwargs(self) -> dict[str, Any]:
        """The parameters to pass to :func:`dicejack.learners.learn`."""
        return dict(self.params)

    def all_params(self) -> dict[str, Any]:
        """Every parameter of the learner as it runs: the ones set, the rest at their
        defaults."""
        return learners.check_learner_params(self.learner, self.kwargs())


def parse_learners(values: Iterable[str]) -> tuple[str, ...]:
    """Learner names from repeated options and/or comma lists: ``--learner handout,ucb``; each a
    bundled learner (:data:`dicejack.learners.NAMES`), none twice."""
    names: list[str] = []
    for item in values:
        for part in str(item).split(","):
            name = part.strip()
            if not name:
                continue
            try:
                learners.learner_class(name)
            except learners.LearnerError as exc:
                raise ReportError(str(exc)) from None
            if name in names:
                raise ReportError(f"--learner names {name} twice")
            names.append(name)
    if not names:
        raise ReportError("no learner given; choose from: " + ", ".join(learners.NAMES))
    return tuple(names)


def _param_values(name: str, key: str, text: str, item: str) -> list[Any]:
    """The comma list `text` of values of learner `name`'s parameter `key`, each parsed and
    checked, none twice."""
    spec = next((p for p in learners.parameters(name) if p.name == key), None)
    if spec is None:
        valid = ", ".join(p.name for p in learners.parameters(name)) or "none"
        raise ReportError(f"--param {item}: learner {name} has no parameter {key!r}; its "
                          f"parameters: {valid}")
    parts = [p.strip() for p in text.split(",")]
    if not all(parts):
        raise ReportError(f"--param {item}: give a value, or a comma list of values, after '='")
    try:
        values = [spec.parse(name, p) for p in parts]
    except learners.LearnerError as exc:
        raise ReportError(f"--param {item}: {exc}") from None
    if len({repr(v) for v in values}) != len(values):
        raise ReportError(f"--param {item}: the values must be distinct")
    return values


def parse_series(
    learner_names: Iterable[str] = (), params: Iterable[str] = (), ms: Iterable[str] = ()
) -> tuple[SeriesSpec, ...]:
    """The series of ``--learner``, ``--param`` and ``-m`` (the command line's text).

    learner_names: comma lists or repeats (default handout). params: ``key=value`` sets `key`
    for every listed learner that has it (an error if none has), ``learner.key=value`` for that
    learner only; a comma list of values gives one series per value. ms: the handout's M (as
    ``--param handout.m=``). Series come in the order of the learners, then of the values, the
    parameters combined in every way (the learner's parameter order, the last varying fastest).
    """
    given = [str(v) for v in learner_names]
    names = parse_learners(given) if given else ("handout",)
    settings: dict[str, dict[str, list[Any]]] = {n: {} for n in names}
    ms = [str(v) for v in ms]
    if ms:
        if "handout" not in names:
            raise ReportError(f"-m sets the handout's M, but --learner {','.join(names)} does "
                              "not include handout")
        settings["handout"]["m"] = list(parse_ms(ms))
    for item in params:
        item = str(item)
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ReportError(f"--param must be key=value or learner.key=value, got {item!r}")
        scope, dot, pname = key.rpartition(".")
        if dot:
            try:
                learners.learner_class(scope)
            except learners.LearnerError as exc:
                raise ReportError(f"--param {item}: {exc}") from None
            if scope not in names:
                raise ReportError(f"--param {item}: {scope} is not in --learner "
                                  f"{','.join(names)}")
            targets = [scope]
        else:
            targets = [n for n in names if any(p.name == pname for p in learners.parameters(n))]
            if not targets:
                others = [n for n in learners.NAMES
                          if any(p.name == pname for p in learners.parameters(n))]
                hint = (f" ({', '.join(others)} has it)" if others else
                        " (no bundled learner has it)")
                raise ReportError(f"--param {item}: no learner in --learner {','.join(names)} "
                                  f"has a parameter {pname!r}{hint}")
        for name in targets:
            if pname in settings[name]:
                what = "M (-m and --param m)" if (name, pname) == ("handout", "m") else pname
                raise ReportError(f"{name} parameter {what} given twice")
            settings[name][pname] = _param_values(name, pname, text, item)
    out: list[SeriesSpec] = []
    for name in names:
        keys = [p.name for p in learners.parameters(name) if p.name in settings[name]]
        for combo in itertools.product(*(settings[name][k] for k in keys)):
            out.append(SeriesSpec(name, tuple(zip(keys, combo, strict=True))))
    return tuple(out)


#: Learned-table heatmaps drawn in a report at most: one per series, for the first this many.
LEARNED_FIGURES_LIMIT = 12


@dataclass(frozen=True)
class ReportConfig:
    """What to study: a game, the series, checkpoint game counts, seeds first_seed +
    0..seeds-1.

    Give either `ms` (the handout's learner, one series per M; default M = 100) or `series`
    (:class:`SeriesSpec` each, e.g. from :func:`parse_series`); afterwards both are set: `ms`
    lists the M values of the handout series. A study whose series are all the handout's learner
    with only M set is a classic M report (its files as before the learners came); any other is a
    comparison of learners (:attr:`comparison`).
    """

    game: Game = HANDOUT_GAME
    ms: tuple[float, ...] | None = None
    games: tuple[int, ...] = DEFAULT_GAMES
    seeds: int = DEFAULT_SEEDS
    first_seed: int = 1
    series: tuple[SeriesSpec, ...] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.game, Game):
            raise ReportError(f"game must be a Game, got {type(self.game).__name__}")
        if self.series is None:
            ms = check_ms(tuple(self.ms if self.ms is not None else DEFAULT_M))
            series = tuple(SeriesSpec.handout(m) for m in ms)
        else:
            if self.ms is not None:
                raise ReportError("give ms or series, not both (the handout's M is the series "
                                  "parameter m: SeriesSpec.handout(M))")
            series = tuple(self.series)
            if not series:
                raise ReportError("no series given")
            bad = [s for s in series if not isinstance(s, SeriesSpec)]
            if bad:
                raise ReportError(f"series must be SeriesSpec, got {type(bad[0]).__name__}")
            for kind, values in (("series", series), ("series labels", [s.label for s in series]),
                                 ("series file names", [s.slug for s in series])):
                twice = [v for i, v in enumerate(values) if v in values[:i]]
                if twice:
                    shown = twice[0].label if isinstance(twice[0], SeriesSpec) else twice[0]
                    raise ReportError(f"{kind} must be distinct: {shown} twice")
            ms = tuple(dict.fromkeys(s.m for s in series if s.m is not None))
            try:
                for m in ms:
                    learner.check_m(m, self.game.n_dice)
            except learner.LearnerError as exc:
                raise ReportError(str(exc)) from None
        object.__setattr__(self, "ms", ms)
        object.__setattr__(self, "series", series)
        object.__setattr__(self, "games", check_games(self.games))
        if isinstance(self.seeds, bool) or not isinstance(self.seeds, (int, np.integer)):
            raise ReportError(f"seeds must be a whole number, got {self.seeds!r}")
        if self.seeds < 1:
            raise ReportError(f"seeds must be >= 1, got {self.seeds}")
        if self.seeds > SEEDS_LIMIT:
            raise ReportError(f"--seeds {self.seeds} is more than the limit of {SEEDS_LIMIT:,} "
                              "learner runs per series")
        total = self.seeds * len(series) * self.games[-1]
        what = "M" if not self.comparison else "series"
        try:
            learner.check_games_limit(total, limit=TOTAL_GAMES_LIMIT)
        except learner.LearnerError as exc:
            raise ReportError(
                f"the study plays {self.seeds} seeds x {len(series)} {what} x "
                f"{self.games[-1]:,} games: {exc}"
            ) from None
        if not 0 <= self.first_seed < 2**63 - self.seeds:
            raise ReportError(f"the first seed must be >= 0, got {self.first_seed}")

    @property
    def comparison(self) -> bool:
        """True unless every series is the handout's learner with only M set."""
        return not all(s.plain_handout for s in self.series)

    @property
    def seed_list(self) -> tuple[int, ...]:
        return tuple(self.first_seed + i for i in range(self.seeds))

    def legend(self, series: SeriesSpec) -> str:
        """The legend label of `series`: ``M = 100`` in a classic M report, else its
        :attr:`SeriesSpec.label`."""
        return f"M = {series.m:g}" if not self.comparison else series.label

    def _series_options(self) -> str:
        """--learner, -m and --param options that :func:`parse_series` reads back as the
        series; '' when there is no such command line."""
        names = list(dict.fromkeys(s.learner for s in self.series))
        words = [f"--learner {','.join(names)}"] if names != ["handout"] else []
        for name in names:
            mine = [s for s in self.series if s.learner == name]
            keys = [p.name for p in learners.parameters(name)
                    if any(p.name in dict(s.params) for s in mine)]
            for key in keys:
                values = list(dict.fromkeys(_value_text(dict(s.params).get(key)) for s in mine
                                            if key in dict(s.params)))
                if name == "handout" and key == "m":
                    if values != ["100"]:
                        words += [f"-m {v}" for v in values]
                else:
                    words.append(f"--param {name}.{key}={','.join(values)}")
        options = " ".join(words)
        try:
            same = parse_series(
                [",".join(names)],
                [w.removeprefix("--param ") for w in words if w.startswith("--param ")],
                [w.removeprefix("-m ") for w in words if w.startswith("-m ")],
            ) == self.series
        except ReportError:
            same = False
        return options if same else ""

    def command(self) -> str:
        """The `dicejack report` command line that reproduces this study (for series built in
        Python that no command line gives, the command with the series labels after it)."""
        g = self.game
        games = ",".join(str(n) for n in self.games)
        if self.games == series_125(self.games[0], self.games[-1]):
            games = f"{self.games[0]}..{self.games[-1]}"
        seed = f" --seed {self.first_seed}" if self.first_seed != 1 else ""
        head = (f"dicejack report --sides {g.n_sides} --low {g.low} --high {g.high} "
                f"--dice {g.n_dice}")
        tail = f"--games {games} --seeds {self.seeds}{seed}"
        if not self.comparison:
            ms = " ".join(f"-m {m:g}" for m in self.ms)
            return f"{head} {ms} {tail}"
        options = self._series_options()
        if options:
            return f"{head} {options} {tail}"
        labels = "; ".join(s.label for s in self.series)
        return f"{head} {tail} (series set in Python: {labels})"


# ------------------------------------------------------------------------------ one run
@dataclass(frozen=True, eq=False)
class RunResult:
    """What one learner run sends back: metric values per checkpoint, the last tables, timings.

    values[i, k] is metric METRIC_NAMES[k] after games[i] games. learn_seconds and
    metrics_seconds are CPU seconds of the thread that did the work.
    """

    series: SeriesSpec
    seed: int
    games: tuple[int, ...]
    values: np.ndarray
    best: np.ndarray
    probability: np.ndarray
    moves: int
    learn_seconds: float
    metrics_seconds: float

    @property
    def m(self) -> float:
        """The handout's M of the run's series (NaN for another learner)."""
        m = self.series.m
        return math.nan if m is None else m


def run_one(
    params: tuple[int, int, int, int], series: SeriesSpec | float, seed: int,
    games: tuple[int, ...],
) -> RunResult:
    """One learner run of the game (n_sides, low, high, n_dice) for `series` (a
    :class:`SeriesSpec`, or a number: the handout's learner with that M) with snapshots at
    `games`, and every metric at every snapshot.

    Top-level, picklable, and given only plain values: this is what executors run.
    """
    spec = series if isinstance(series, SeriesSpec) else SeriesSpec.handout(series)
    t = parallel.truth_for(params)
    t0 = time.thread_time()
    run = learners.learn(t.game, spec.learner, games[-1], seed, checkpoints=games,
                         **spec.kwargs())
    t1 = time.thread_time()
    values = np.empty((len(games), len(METRIC_NAMES)))
    for i, n in enumerate(games):
        tables = run.snapshots[n]
        metrics = compare.metric_values(
            t, compare.learned_from_tables(t.game, tables.best, tables.probability))
        values[i] = [metrics[name] for name in METRIC_NAMES]
    t2 = time.thread_time()
    last = compare.learned_from_tables(t.game, run.final.best, run.final.probability)
    return RunResult(
        series=spec, seed=int(seed), games=tuple(games), values=values,
        best=np.asarray(last.best, dtype=np.int8 if t.game.n_dice < 128 else np.int64),
        probability=np.asarray(last.probability), moves=int(run.moves or 0),
        learn_seconds=t1 - t0, metrics_seconds=t2 - t1,
    )


# ------------------------------------------------------------------------------ statistics
def interval(values: np.ndarray, axis: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean and the 95% Student-t interval over `axis`, ignoring NaN: (mean, low, high).

    mean +- t(0.975, n-1) * sd / sqrt(n) with sd of ddof=1; low/high are NaN where n < 2 and the
    mean is NaN where n = 0.
    """
    from scipy.special import stdtrit  # t(0.975, df): scipy.stats.t.ppf's own kernel, 1 s lighter

    values = np.asarray(values, dtype=float)
    finite = np.isfinite(values)
    n = finite.sum(axis=axis)
    total = np.where(finite, values, 0.0).sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(n > 0, total / np.maximum(n, 1), np.nan)
        dev = np.where(finite, values - np.expand_dims(mean, axis), 0.0)
        sd = np.sqrt((dev * dev).sum(axis=axis) / np.maximum(n - 1, 1))
        half = stdtrit(np.maximum(n - 1, 1), 0.975) * sd / np.sqrt(np.maximum(n, 1))
    half = np.where(n >= 2, half, np.nan)
    return mean, mean - half, mean + half


@dataclass(frozen=True)
class Reach:
    """When a series reaches a target value of a metric (None: not within the study).

    mean: the first checkpoint where the mean over seeds is >= the target; per_seed: each
    seed's first checkpoint >= the target; median, first, last: the median and range of those
    over seeds, a seed that never reaches it counting as later than every checkpoint (median
    None when that decides it; the median of an even count is the mean of the middle two);
    reached: how many seeds reach it.
    """

    target: float
    mean: int | None
    per_seed: tuple[int | None, ...]
    median: float | None
    first: int | None
    last: int | None
    reached: int


def _first_at_least(values: np.ndarray, games: Sequence[int], target: float) -> int | None:
    ok = np.flatnonzero(np.isfinite(values) & (values >= target))
    return int(games[ok[0]]) if len(ok) else None


def games_to_reach(values: np.ndarray, games: Sequence[int], target: float) -> Reach:
    """:class:`Reach` of one metric from its (seeds, checkpoints) values at game counts
    `games`."""
    values = np.asarray(values, dtype=float)
    mean = interval(values, axis=0)[0]
    per_seed = tuple(_first_at_least(row, games, target) for row in values)
    order = sorted(math.inf if g is None else g for g in per_seed)
    n = len(order)
    middle = order[n // 2] if n % 2 else (order[n // 2 - 1] + order[n // 2]) / 2
    reached = [g for g in per_seed if g is not None]
    return Reach(
        target=float(target), mean=_first_at_least(mean, games, target), per_seed=per_seed,
        median=None if math.isinf(middle) else float(middle),
        first=min(reached) if reached else None,
        last=max(reached) if len(reached) == n and reached else None,
        reached=len(reached),
    )


@dataclass(frozen=True, eq=False)
class Study:
    """All runs of a study, ordered by (series, seed), with the truth and the timings.

    A series is named by its :class:`SeriesSpec`, its label, or (for the handout's learner) its
    M. The statistics over seeds are computed once per series, on first use, and shared by the
    report's tables, metrics.json and figures.
    """

    config: ReportConfig
    truth: Truth
    runs: tuple[RunResult, ...]
    timing: dict[str, float] = field(default_factory=dict)

    def spec(self, which: SeriesSpec | str | float) -> SeriesSpec:
        """The study's series named by `which`; ReportError when there is none."""
        for s in self.config.series:
            if which == s or (isinstance(which, str) and which in (s.label,
                                                                  self.config.legend(s))):
                return s
        if isinstance(which, (int, float)) and not isinstance(which, bool):
            for s in self.config.series:
                if s.m == float(which):
                    return s
        raise ReportError(f"the study has no series {which!r}")

    def runs_for(self, which: SeriesSpec | str | float) -> list[RunResult]:
        spec = self.spec(which)
        return [r for r in self.runs if r.series == spec]

    def values(self, which: SeriesSpec | str | float) -> np.ndarray:
        """(seeds, checkpoints, metrics) array for one series."""
        return np.stack([r.values for r in self.runs_for(which)])

    @functools.cached_property
    def _summaries(self) -> dict[SeriesSpec, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        return {s: interval(self.values(s), axis=0) for s in self.config.series}

    def summary(self, which: SeriesSpec | str | float) -> tuple[np.ndarray, np.ndarray,
                                                                np.ndarray]:
        """(mean, low, high), each (checkpoints, metrics), over seeds for one series."""
        return self._summaries[self.spec(which)]

    def metric(self, which: SeriesSpec | str | float,
               name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(mean, low, high) per checkpoint for one series and metric."""
        k = METRIC_NAMES.index(name)
        mean, lo, hi = self.summary(which)
        return mean[:, k], lo[:, k], hi[:, k]

    def games_to_target(self, which: SeriesSpec | str | float, name: str,
                        target: float) -> Reach:
        """When series `which` reaches `target` in metric `name` (:func:`games_to_reach`)."""
        k = METRIC_NAMES.index(name)
        return games_to_reach(self.values(which)[:, :, k], self.config.games, target)

    def _key_columns(self, spec: SeriesSpec) -> dict[str, Any]:
        """The columns naming a series in rows: ``m`` in a classic M report, else ``series``
        and ``learner``."""
        if not self.config.comparison:
            return {"m": spec.m}
        return {"series": spec.label, "learner": spec.learner}

    @property
    def key_names(self) -> list[str]:
        """The names of the columns that name a series (see :meth:`rows`)."""
        return ["series", "learner"] if self.config.comparison else ["m"]

    def rows(self) -> list[dict[str, Any]]:
        """One row per run and checkpoint, in (series, seed, games) order: the series (``m``
        in a classic M report, else ``series, learner``), ``seed, games`` and one column per
        metric (:data:`dicejack.compare.METRIC_NAMES`)."""
        return [
            {**self._key_columns(r.series), "seed": r.seed, "games": n,
             **{name: float(r.values[i, k]) for k, name in enumerate(METRIC_NAMES)}}
            for r in self.runs for i, n in enumerate(r.games)
        ]

    def summary_rows(self) -> list[dict[str, Any]]:
        """One row per series, checkpoint and metric: the series (as in :meth:`rows`),
        ``games, metric, mean, low, high, n`` (the 95% interval over the ``n`` seeds where the
        metric is defined; NaN where undefined)."""
        out = []
        for s in self.config.series:
            mean, lo, hi = self.summary(s)
            defined = np.isfinite(self.values(s)).sum(axis=0)
            for i, n in enumerate(self.config.games):
                for k, name in enumerate(METRIC_NAMES):
                    out.append({**self._key_columns(s), "games": n, "metric": name,
                                "mean": float(mean[i, k]), "low": float(lo[i, k]),
                                "high": float(hi[i, k]), "n": int(defined[i, k])})
        return out

    def to_frame(self, *, summary: bool = False) -> Any:
        """The study as a ``pandas.DataFrame`` (pandas is optional: a one-line
        :class:`dicejack.frames.PandasMissingError` without it).

        By default one row per series x seed x checkpoint (:meth:`rows`: the series columns
        (``m``, or ``series, learner`` when learners are compared), ``seed, games`` and one per
        metric, the numbers of metrics.csv in wide form), so any statistic over seeds is a
        ``groupby`` away; ``summary=True`` gives the report's own summary instead, one row per
        series x checkpoint x metric (:meth:`summary_rows`: ``games, metric, mean, low, high,
        n`` after the series columns, as in metrics.json)::

            df = study.to_frame()
            df.groupby(["m", "games"])["agreement_decisive"].mean()
        """
        keys = self.key_names
        if summary:
            return frames.to_frame(self.summary_rows(),
                                   [*keys, "games", "metric", "mean", "low", "high", "n"])
        return frames.to_frame(self.rows(), [*keys, "seed", "games", *METRIC_NAMES])

    def last_tables(self, run: RunResult) -> Learned:
        """The learned tables of `run` after its last checkpoint."""
        return compare.learned_from_tables(self.truth.game, run.best, run.probability)

    def wrong_decisive(
        self, which: SeriesSpec | str | float
    ) -> list[tuple[int, int, int, tuple[int, ...], float]]:
        """Decisive states wrong at the last checkpoint in at least one seed of a series:
        (x, y, seeds wrong, optimal J, gap), most often wrong first."""
        t = self.truth
        count: dict[tuple[int, int], int] = {}
        rows = {}
        for r in self.runs_for(which):
            for w in compare.compare(t.game, t, self.last_tables(r)).wrong_decisive:
                count[w.x, w.y] = count.get((w.x, w.y), 0) + 1
                rows[w.x, w.y] = (w.optimal, w.gap)
        out = [(x, y, n, *rows[x, y]) for (x, y), n in count.items()]
        out.sort(key=lambda r: (-r[2], -r[4], r[0], r[1]))
        return out


def run_study(
    config: ReportConfig,
    *,
    workers: int | None = None,
    dask: str | None = None,
    executor: cf.Executor | None = None,
    progress: bool = False,
) -> Study:
    """Run every (series, seed) of `config` through an executor (see
    :func:`dicejack.parallel.open_executor`, or pass one) and collect the metrics. The numbers
    do not depend on the executor."""
    timing: dict[str, float] = {}
    g = config.game
    params = (g.n_sides, g.low, g.high, g.n_dice)
    t0 = time.perf_counter()
    truth = parallel.truth_for(params)
    timing["solve"] = time.perf_counter() - t0
    # One tiny run of each learner here first: it compiles (or loads from numba's cache) every
    # kernel once, before any worker starts; forked workers inherit the kernels and the game.
    t0 = time.perf_counter()
    for spec in {s.learner: s for s in reversed(config.series)}.values():
        run_one(params, spec, 0, (1,))
    timing["warmup"] = time.perf_counter() - t0
    tasks = [(s, seed) for s in config.series for seed in config.seed_list]
    if workers is None and dask is None and executor is None:
        workers = min(os.cpu_count() or 1, len(tasks))  # no idle processes for small studies
    t0 = time.perf_counter()
    try:
        runs = tuple(
            parallel.map_tasks(
                run_one,
                [(params, s, seed, config.games) for (s, seed) in tasks],
                workers=workers, dask=dask, executor=executor, label="learner runs",
                progress=progress,
            )
        )
    except parallel.ExecutorError as exc:
        raise ReportError(str(exc)) from None
    timing["runs_wall"] = time.perf_counter() - t0
    timing["learn_cpu"] = sum(r.learn_seconds for r in runs)
    timing["metrics_cpu"] = sum(r.metrics_seconds for r in runs)
    timing["moves"] = float(sum(r.moves for r in runs))
    return Study(config, truth, runs, timing)
