"""What a convergence report studies: its settings, read from the command line and checked.

Owns the settings, not the running. :class:`ReportConfig` says what to study (a game, the series,
checkpoint game counts, seeds) and :meth:`ReportConfig.command` is the `dicejack report` command
line that reproduces it; :func:`parse_series` / :func:`parse_games` / :func:`parse_ms` read them
from the command line's text, :func:`check_games` / :func:`check_ms` check them. A series
(:class:`SeriesSpec`) is one curve: a bundled learner of :mod:`dicejack.learners` and the
parameters set for it (the handout's learner with M = 100 by default; ``-m 10,100`` is one series
per M). Bad settings raise :class:`ReportError`, the error of the whole report package.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dicejack import formats, learners
from dicejack.figures.base import check_formats
from dicejack.game import HANDOUT_GAME, DicejackError, Game
from dicejack.learners import checks, formulas

__all__ = [
    "ReportError",
    "HANDOUT_GAME",
    "DEFAULT_SEEDS",
    "SEEDS_LIMIT",
    "TOTAL_GAMES_LIMIT",
    "SERIES_LIMIT",
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
    "LEARNED_FIGURES_LIMIT",
    "ReportConfig",
]

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
#: Most games a whole report may play (seeds x series x the last checkpoint): about five hours on
#: one core at the handout's rate; a longer study is refused up front with its size and time.
TOTAL_GAMES_LIMIT = 10**11
#: Most series (learner x parameter combinations) in one report: more would be unreadable curves.
SERIES_LIMIT = 200


def _check_limit(games: int) -> None:
    try:
        checks.check_games_limit(games, "--games")
    except checks.LearnerError as exc:
        raise ReportError(str(exc)) from None


def _parse_count(text: str) -> int:
    """One checkpoint of --games in the notation of every count (formats.parse_count; commas
    separate checkpoints here, so no thousands separators)."""
    try:
        return formats.parse_count(text, "game count")
    except formats.FormatError as exc:
        raise ReportError(str(exc)) from None


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
    :data:`dicejack.learners.checks.GAMES_LIMIT`."""
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
            clean.append(formulas.check_m(float(m)))
        except checks.LearnerError as exc:
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
                full["m"] = formulas.check_m(full["m"])
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
            if not part.strip():
                continue
            try:
                name = learners.canonical_name(part)
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
    if len(parts) > SERIES_LIMIT:
        raise ReportError(f"--param {key}=...: {len(parts):,} values; the limit is "
                          f"{SERIES_LIMIT:,} series in one report")
    if not all(parts):
        raise ReportError(f"--param {item}: give a value, or a comma list of values, after '='")
    try:
        values = [spec.parse(name, p) for p in parts]
    except learners.LearnerError as exc:
        raise ReportError(f"--param {item}: {exc}") from None
    if len({repr(v) for v in values}) != len(values):
        raise ReportError(f"--param {item}: the values must be distinct")
    return values


def _split_param(item: str) -> tuple[str | None, str, str]:
    """``--param`` text `item` as (scope, key, values text); scope is None without a dot."""
    key, sep, text = item.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ReportError(f"--param must be key=value or learner.key=value, got {item!r}")
    scope, dot, pname = key.rpartition(".")
    return (scope if dot else None), pname, text


def _param_targets(names: tuple[str, ...], item: str, scope: str | None, pname: str
                   ) -> list[str]:
    """The learners of `names` that ``--param`` `item` sets: its scope, else every listed
    learner with a parameter `pname` (an error, with a hint, if none has)."""
    if scope is not None:
        try:
            learners.learner_class(scope)
        except learners.LearnerError as exc:
            raise ReportError(f"--param {item}: {exc}") from None
        if scope not in names:
            raise ReportError(f"--param {item}: {scope} is not in --learner "
                              f"{','.join(names)}")
        return [scope]
    targets = [n for n in names if any(p.name == pname for p in learners.parameters(n))]
    if not targets:
        others = [n for n in learners.NAMES
                  if any(p.name == pname for p in learners.parameters(n))]
        hint = (f" ({', '.join(others)} has it)" if others else
                " (no bundled learner has it)")
        raise ReportError(f"--param {item}: no learner in --learner {','.join(names)} "
                          f"has a parameter {pname!r}{hint}")
    return targets


def _check_series_count(names: tuple[str, ...], settings: dict[str, dict[str, list[Any]]]
                        ) -> None:
    """Refuse settings that combine into more than :data:`SERIES_LIMIT` series."""
    counts = {n: math.prod(len(v) for v in settings[n].values()) for n in names}
    total = sum(counts.values())
    if total > SERIES_LIMIT:
        shown = " + ".join(f"{n} {' x '.join(str(len(v)) for v in settings[n].values()) or 1}"
                           for n in names)
        raise ReportError(f"--param and -m ask for {total:,} series ({shown}); the limit is "
                          f"{SERIES_LIMIT:,} series in one report")


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
        scope, pname, text = _split_param(item)
        for name in _param_targets(names, item, scope, pname):
            if pname in settings[name]:
                what = "M (-m and --param m)" if (name, pname) == ("handout", "m") else pname
                raise ReportError(f"{name} parameter {what} given twice")
            settings[name][pname] = _param_values(name, pname, text, item)
    _check_series_count(names, settings)
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
    #: The formats each figure is written in: PNG always (report.md and report.html show it),
    #: SVG and PDF on request (``--figure-format png,svg,pdf``, for papers).
    figure_formats: tuple[str, ...] = ("png",)

    def __post_init__(self) -> None:
        if not isinstance(self.game, Game):
            raise ReportError(f"game must be a Game, got {type(self.game).__name__}")
        if self.series is None:
            ms = check_ms(tuple(self.ms if self.ms is not None else DEFAULT_M))
            series = tuple(SeriesSpec.handout(m) for m in ms)
        else:
            series, ms = self._checked_series()
        object.__setattr__(self, "ms", ms)
        object.__setattr__(self, "series", series)
        object.__setattr__(self, "games", check_games(self.games))
        try:
            fmts = check_formats(("png", *(self.figure_formats or ())))
        except ValueError as exc:
            raise ReportError(f"--figure-format: {exc}") from None
        object.__setattr__(self, "figure_formats", fmts)
        self._check_seeds()

    def _checked_series(self) -> tuple[tuple[SeriesSpec, ...], tuple[float, ...]]:
        """The given `series` checked (SeriesSpec each, not too many, distinct in value, label
        and file name), and the M values of its handout series checked for the game."""
        if self.ms is not None:
            raise ReportError("give ms or series, not both (the handout's M is the series "
                              "parameter m: SeriesSpec.handout(M))")
        series = tuple(self.series or ())
        if not series:
            raise ReportError("no series given")
        if len(series) > SERIES_LIMIT:
            raise ReportError(f"{len(series):,} series; the limit is {SERIES_LIMIT:,} series "
                              "in one report")
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
                formulas.check_m(m, self.game.n_dice)
        except checks.LearnerError as exc:
            raise ReportError(str(exc)) from None
        return series, ms

    def _check_seeds(self) -> None:
        """Refuse a seed count that is not a whole number in 1..SEEDS_LIMIT, a study of more
        than TOTAL_GAMES_LIMIT games, or a first seed out of range (run after the series and
        games are set)."""
        if isinstance(self.seeds, bool) or not isinstance(self.seeds, (int, np.integer)):
            raise ReportError(f"seeds must be a whole number, got {self.seeds!r}")
        if self.seeds < 1:
            raise ReportError(f"seeds must be >= 1, got {self.seeds}")
        if self.seeds > SEEDS_LIMIT:
            raise ReportError(f"--seeds {self.seeds} is more than the limit of {SEEDS_LIMIT:,} "
                              "learner runs per series")
        total = self.seeds * len(self.series) * self.games[-1]
        what = "M" if not self.comparison else "series"
        try:
            checks.check_games_limit(total, limit=TOTAL_GAMES_LIMIT)
        except checks.LearnerError as exc:
            raise ReportError(
                f"the study plays {self.seeds} seeds x {len(self.series)} {what} x "
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
        if self.figure_formats != ("png",):
            seed += f" --figure-format {','.join(self.figure_formats)}"
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
