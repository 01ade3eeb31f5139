"""What a convergence report studies: its settings, as Python values, checked.

Owns the settings, not the running, and not the command line's text (``--games 100..1e6``,
``-m 10,100``, ``--param key=v,w``: :mod:`dicejack.cli.report_options` reads it into the Python
values taken here). :class:`ReportConfig` says what to study (a game, the series, checkpoint game
counts, seeds) and :meth:`ReportConfig.command` writes the `dicejack report` command line that
reproduces it (a formatter: nothing here parses). A series (:class:`SeriesSpec`) is one curve: a
bundled learner of :mod:`dicejack.learners` and the parameters set for it (the handout's learner
with M = 100 by default); :func:`series_grid` builds the series of several learners and lists of
parameter values (one series per combination); :func:`check_games` / :func:`check_ms` check
checkpoints and M values. Bad settings raise :class:`ReportError`, the error of the whole report
package, whose message names the Python parameter at fault (``games``, ``ms``, ``params``...) so
that the command line can say its own flags instead (:meth:`ReportError.naming`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dicejack import learners
from dicejack.figures.canvas import check_formats
from dicejack.games.handout_rules import HANDOUT_GAME, Game
from dicejack.learners import checks, formulas
from dicejack.learners.catalogue import canonical_name, check_learner_params, learner_class
from dicejack.learners.catalogue import parameters as learner_parameters
from dicejack.runtime.messages import Parameter, ParameterError

__all__ = [
    "Parameter",
    "ReportError",
    "HANDOUT_GAME",
    "DEFAULT_SEEDS",
    "SEEDS_LIMIT",
    "TOTAL_GAMES_LIMIT",
    "SERIES_LIMIT",
    "DEFAULT_M",
    "DEFAULT_GAMES",
    "series_125",
    "check_games",
    "check_ms",
    "SeriesSpec",
    "check_learners",
    "param_targets",
    "series_grid",
    "series_pairs",
    "LEARNED_FIGURES_LIMIT",
    "ReportConfig",
]

DEFAULT_SEEDS = 10
DEFAULT_M = (100.0,)


class ReportError(ParameterError):
    """Bad report parameters or an output folder that cannot be written. Its message names the
    Python parameters at fault (``games``, ``ms``, ``learners``, ``params``, ``seeds``,
    ``out``...) as :class:`~dicejack.runtime.messages.Parameter` parts, said as flags by the
    command line."""


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
    """ReportError naming `games` when a checkpoint is past
    :data:`dicejack.learners.checks.GAMES_LIMIT`."""
    try:
        checks.check_games_limit(games, "")
    except checks.LearnerError as exc:
        raise ReportError(Parameter("games"), str(exc)) from None


def _sequence(values: Any, name: str, what: str) -> tuple[Any, ...]:
    """`values` as a tuple, or ReportError naming parameter `name` when it is not a sequence
    (a string of text included: the command line's text is read in the cli)."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ReportError(Parameter(name), f" must be a sequence of {what}, got {values!r}")
    return tuple(values)


def series_pairs(params: Any) -> list[tuple[str, Any]]:
    """The (key, values) pairs of `params` (a mapping or pairs) of :func:`series_grid` and
    :func:`dicejack.report.game_study.game_series_grid`; ReportError naming `params` else."""
    if isinstance(params, Mapping):
        return list(params.items())
    items = list(_sequence(params, "params", "(key, values) pairs or a mapping"))
    if any(not isinstance(i, (tuple, list)) or len(i) != 2 for i in items):
        raise ReportError(Parameter("params"), " must be a mapping from parameter names to "
                          f"values, or (name, values) pairs, got {params!r}")
    return [tuple(i) for i in items]


def _whole(value: Any) -> int:
    """A game count given in Python as a whole number (an int, or a float that is whole)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, np.integer, float, np.floating)) or (
            isinstance(value, (float, np.floating)) and not float(value).is_integer()):
        raise ReportError(Parameter("games"), f" must be whole numbers, got {value!r}")
    return int(value)


def check_games(games: Sequence[int]) -> tuple[int, ...]:
    """Validate checkpoint game counts: non-empty, whole, positive, strictly increasing, at most
    :data:`dicejack.learners.checks.GAMES_LIMIT`."""
    games = tuple(_whole(g) for g in _sequence(games, "games", "game counts"))
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


def check_ms(ms: Sequence[float]) -> tuple[float, ...]:
    """Validate M values: at least one, each finite and >= 0, no repeats."""
    ms = _sequence(ms, "ms", "numbers")
    if not ms:
        raise ReportError("no M given")
    clean = []
    for m in ms:
        try:
            clean.append(formulas.check_m(m))
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
            specs = learner_parameters(self.learner)
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
            full = check_learner_params(self.learner, given)
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
        return check_learner_params(self.learner, self.kwargs())


def check_learners(names: Iterable[str]) -> tuple[str, ...]:
    """Learner names, each a bundled learner (:data:`dicejack.learners.NAMES`, any spelling) or
    the user's ``MODULE:Class``, as canonical names; none twice, at least one."""
    if isinstance(names, (str, bytes)):
        names = (names,)
    out: list[str] = []
    for item in names:
        try:
            name = canonical_name(item)
        except learners.LearnerError as exc:
            raise ReportError(str(exc)) from None
        if name in out:
            raise ReportError(Parameter("learners"), f" names {name} twice")
        out.append(name)
    if not out:
        raise ReportError("no learner given; choose from: " + ", ".join(learners.NAMES))
    return tuple(out)


def param_targets(names: Sequence[str], key: str) -> list[tuple[str, learners.Param]]:
    """What a parameter `key` of :func:`series_grid` sets among the learners `names` (canonical,
    from :func:`check_learners`): ``learner.name`` that learner's parameter, a bare ``name``
    that of every learner listed that has it (an error, with a hint, if none has); as
    (learner, its :class:`~dicejack.learners.Param`) pairs."""
    scope, dot, pname = str(key).strip().rpartition(".")
    if dot:
        try:
            learner_class(scope)
        except learners.LearnerError as exc:
            raise ReportError(str(exc)) from None
        if scope not in names:
            raise ReportError(f"{scope} is not in ", Parameter("learners"),
                              f" {','.join(names)}")
        specs = learner_parameters(scope)
        spec = next((p for p in specs if p.name == pname), None)
        if spec is None:
            valid = ", ".join(p.name for p in specs) or "none"
            raise ReportError(f"learner {scope} has no parameter {pname!r}; its parameters: "
                              f"{valid}")
        return [(scope, spec)]
    targets = [(n, p) for n in names for p in learner_parameters(n) if p.name == pname]
    if not targets:
        others = [n for n in learners.NAMES
                  if any(p.name == pname for p in learner_parameters(n))]
        hint = (f" ({', '.join(others)} has it)" if others else
                " (no bundled learner has it)")
        raise ReportError("no learner in ", Parameter("learners"), f" {','.join(names)} "
                          f"has a parameter {pname!r}{hint}")
    return targets


def _values(given: Any) -> list[Any]:
    """A parameter's values in :func:`series_grid`: a list or tuple of them, or one value."""
    return list(given) if isinstance(given, (list, tuple)) else [given]


def _checked_values(name: str, spec: learners.Param, key: str, given: Any) -> list[Any]:
    """The values `given` for learner `name`'s parameter `spec` (`key` of `params`), each
    checked, at most :data:`SERIES_LIMIT`, none twice."""
    values = _values(given)
    where = (Parameter("params"), f"[{key!r}]")
    if not values:
        raise ReportError(*where, ": give a value, or a list of values")
    if len(values) > SERIES_LIMIT:
        raise ReportError(*where, f": {len(values):,} values; the limit is {SERIES_LIMIT:,} "
                          "series in one report")
    try:
        values = [spec.check(name, v) for v in values]
    except learners.LearnerError as exc:
        raise ReportError(*where, f": {exc}") from None
    if len({repr(v) for v in values}) != len(values):
        raise ReportError(*where, ": the values must be distinct")
    return values


def _check_series_count(names: tuple[str, ...], settings: dict[str, dict[str, list[Any]]]
                        ) -> None:
    """Refuse settings that combine into more than :data:`SERIES_LIMIT` series."""
    counts = {n: math.prod(len(v) for v in settings[n].values()) for n in names}
    total = sum(counts.values())
    if total > SERIES_LIMIT:
        shown = " + ".join(f"{n} {' x '.join(str(len(v)) for v in settings[n].values()) or 1}"
                           for n in names)
        raise ReportError(Parameter("params"), " and ", Parameter("ms"), f" ask for {total:,} "
                          f"series ({shown}); the limit is {SERIES_LIMIT:,} series in one report")


def series_grid(
    learners: Iterable[str] = ("handout",),
    params: Mapping[str, Any] | Iterable[tuple[str, Any]] = (),
    ms: Sequence[float] = (),
) -> tuple[SeriesSpec, ...]:
    """The series of several learners and lists of parameter values, one per combination.

    `learners`: names (:func:`check_learners`; default the handout's). `params`: a mapping (or
    (key, values) pairs) from ``name`` (every listed learner that has it; an error if none has)
    or ``learner.name`` (that learner only) to a value or a list of values, one series per value,
    e.g. ``{"q-learning.alpha": [0.1, None], "epsilon_min": 0.05}``. `ms`: the handout's M values
    (as ``handout.m``). Series come in the order of the learners, then of the values, the
    parameters combined in every way (the learner's parameter order, the last varying fastest);
    at most :data:`SERIES_LIMIT`.
    """
    names = check_learners(learners)
    settings: dict[str, dict[str, list[Any]]] = {n: {} for n in names}
    ms = _sequence(ms, "ms", "numbers")
    if ms:
        if "handout" not in names:
            raise ReportError(Parameter("ms"), " sets the handout's M, but ",
                              Parameter("learners"), f" {','.join(names)} does not include "
                              "handout")
        settings["handout"]["m"] = list(check_ms(ms))
    for key, given in series_pairs(params):
        try:
            targets = param_targets(names, key)
        except ReportError as exc:
            raise ReportError(Parameter("params"), f"[{key!r}]: ", *exc.parts) from None
        for name, spec in targets:
            if spec.name in settings[name]:
                if (name, spec.name) == ("handout", "m"):
                    raise ReportError("handout parameter M (", Parameter("ms"), " and ",
                                      Parameter("params"), " m) given twice")
                raise ReportError(f"{name} parameter {spec.name} given twice")
            settings[name][spec.name] = _checked_values(name, spec, key, given)
    _check_series_count(names, settings)
    out: list[SeriesSpec] = []
    for name in names:
        keys = [p.name for p in learner_parameters(name) if p.name in settings[name]]
        for combo in itertools.product(*(settings[name][k] for k in keys)):
            out.append(SeriesSpec(name, tuple(zip(keys, combo, strict=True))))
    return tuple(out)


def _value_lists(series: Sequence[SeriesSpec], names: Sequence[str]
                 ) -> list[tuple[str, list[Any]]]:
    """The values each learner's parameters take across `series`, as (``learner.name``, values)
    pairs in the order of `names` and of each learner's parameters, values in order of first
    appearance."""
    grid = []
    for name in names:
        mine = [dict(s.params) for s in series if s.learner == name]
        for p in learner_parameters(name):
            values = list(dict.fromkeys(d[p.name] for d in mine if p.name in d))
            if values:
                grid.append((f"{name}.{p.name}", values))
    return grid


#: Learned-table heatmaps drawn in a report at most: one per series, for the first this many.
LEARNED_FIGURES_LIMIT = 12


@dataclass(frozen=True)
class ReportConfig:
    """What to study: a game, the series, checkpoint game counts, seeds first_seed +
    0..seeds-1.

    Give either `ms` (the handout's learner, one series per M; default M = 100) or `series`
    (:class:`SeriesSpec` each, e.g. from :func:`series_grid`); afterwards both are set: `ms`
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
            raise ReportError(Parameter("game"), f" must be a Game, got "
                              f"{type(self.game).__name__}")
        if self.series is None:
            ms = check_ms(self.ms if self.ms is not None else DEFAULT_M)
            series = tuple(SeriesSpec.handout(m) for m in ms)
        else:
            series, ms = self._checked_series()
        object.__setattr__(self, "ms", ms)
        object.__setattr__(self, "series", series)
        object.__setattr__(self, "games", check_games(self.games))
        try:
            fmts = check_formats(("png", *(self.figure_formats or ())))
        except ValueError as exc:
            raise ReportError(Parameter("figure_formats"), f": {exc}") from None
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
            raise ReportError(Parameter("series"), " must be SeriesSpec, got "
                              f"{type(bad[0]).__name__}")
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
            raise ReportError(Parameter("seeds"), f" must be a whole number, got {self.seeds!r}")
        if self.seeds < 1:
            raise ReportError(Parameter("seeds"), f" must be >= 1, got {self.seeds}")
        if self.seeds > SEEDS_LIMIT:
            raise ReportError(Parameter("seeds"), f" {self.seeds} is more than the limit of "
                              f"{SEEDS_LIMIT:,} learner runs per series")
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
        """--learner, -m and --param options that give back exactly the series (the same
        learners and value lists, combined in every way: :func:`series_grid` on the values
        these options name); '' when there is no such command line."""
        names = list(dict.fromkeys(s.learner for s in self.series))
        words = [f"--learner {','.join(names)}"] if names != ["handout"] else []
        grid = _value_lists(self.series, names)
        texts = {key: [_value_text(v) for v in values] for key, values in grid}
        if any(not t or "," in t or t != "".join(t.split()) for ts in texts.values() for t in ts):
            return ""  # a value the option text cannot carry
        for key, ts in texts.items():  # in the learners' order, each's parameters in its own
            if key != "handout.m":
                words.append(f"--param {key}={','.join(ts)}")
            elif ts != ["100"]:
                words += [f"-m {t}" for t in ts]
        ms = dict(grid).get("handout.m", [])
        try:
            same = series_grid(names, [kv for kv in grid if kv[0] != "handout.m"], ms) \
                == self.series
        except ReportError:
            same = False
        return " ".join(words) if same else ""

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
