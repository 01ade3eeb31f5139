"""What a convergence report studies: the game, the series, checkpoints and seeds, checked.

Owns the study's settings as Python values, not the running, and not the command line's text
(``--games 100..1e6``, ``-m 10,100``, ``--param key=v,w``: :mod:`dicejack.cli.report_options`
reads it into the Python values taken here). :class:`ReportConfig` says what to study: a game
(the handout's by default, a :class:`~dicejack.games.handout_rules.Game` whose sides, low, high
and dice are its parameters, also when named ``"handout"``; or any game of :mod:`dicejack.games`
by name, ``"pig"``, ``"kuhn"`` or ``"FILE.py:Class"``, with its parameters), the series
(:mod:`dicejack.report.series`), checkpoint game counts and seeds, and
:meth:`ReportConfig.command` writes the `dicejack report` command line that reproduces it (a
formatter: nothing here parses). The limits, defaults and :class:`ReportError` are
:mod:`dicejack.report.limits`'.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from dicejack.figures.canvas import check_formats
from dicejack.games import GameDefinitionError, make_game
from dicejack.games.handout import HandoutGame
from dicejack.games.handout_rules import HANDOUT_GAME, Game
from dicejack.games.information import is_information_game
from dicejack.games.protocol import game_label, game_params
from dicejack.learners import checks, formulas
from dicejack.learners.catalogue import learners_for
from dicejack.report.limits import (
    DEFAULT_GAMES,
    DEFAULT_M,
    DEFAULT_SEEDS,
    GAME_DEFAULT_GAMES,
    GAME_DEFAULT_SEEDS,
    INFORMATION_DEFAULT_GAMES,
    SEEDS_LIMIT,
    SERIES_LIMIT,
    TOTAL_GAMES_LIMIT,
    Parameter,
    ReportError,
    check_games,
    check_ms,
    series_125,
)
from dicejack.report.series import (
    SeriesSpec,
    default_series,
    series_grid,
    value_lists,
    value_text,
)

__all__ = [
    "LEARNED_FIGURES_LIMIT",
    "protocol_game",
    "ReportConfig",
]

#: Learned-table heatmaps drawn in a report at most: one per series, for the first this many.
LEARNED_FIGURES_LIMIT = 12


@functools.lru_cache(maxsize=4)
def protocol_game(spec: str, params: tuple[tuple[str, Any], ...]) -> Any:
    """The game of :mod:`dicejack.games` that `spec` names (``pig``, ``FILE.py:Class``) with
    `params`, built once per process; ReportError when it cannot be."""
    try:
        return make_game(spec, dict(params))
    except GameDefinitionError as exc:
        raise ReportError(str(exc)) from None


@dataclass(frozen=True)
class ReportConfig:
    """What to study: a game, the series, checkpoint game counts, seeds first_seed +
    0..seeds-1.

    `game`: the handout's game (a :class:`~dicejack.games.handout_rules.Game`, its
    sides, low, high and dice its parameters; the default; named ``"handout"`` with those as
    `game_params`, it is the same study), or another game of
    :mod:`dicejack.games` by name (``"pig"``, ``"FILE.py:Class"``) with `game_params` as
    (name, value) pairs, studied with learners of protocol games (:attr:`protocol`; for a game
    with hidden information, :attr:`information`, CFR). Left out, `games` and `seeds` are the
    game's defaults (100..10^6 and 10 for the handout's game, 1000..10^5 and 5 for another,
    10..10^4 iterations and 5 for a game with hidden information).

    Give either `ms` (the handout's learner, one series per M; default M = 100) or `series`
    (:class:`~dicejack.report.series.SeriesSpec` each, e.g. from
    :func:`~dicejack.report.series.series_grid`; another game's default:
    :func:`~dicejack.report.series.default_series`, for a game with hidden information CFR once
    per variant, cfr+, cfr and outcome-sampling); afterwards both are set: `ms` lists
    the M values of the handout series. A study whose series are all the handout's learner with
    only M set is a classic M report (its files as before the learners came); any other is a
    comparison of learners (:attr:`comparison`).
    """

    game: Game | str = HANDOUT_GAME
    ms: tuple[float, ...] | None = None
    games: tuple[int, ...] | None = None
    seeds: int | None = None
    first_seed: int = 1
    series: tuple[SeriesSpec, ...] | None = None
    #: The formats each figure is written in: PNG always (report.md and report.html show it),
    #: SVG and PDF on request (``--figure-format png,svg,pdf``, for papers).
    figure_formats: tuple[str, ...] = ("png",)
    game_params: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        self._check_game()
        if self.series is None and self.protocol:
            if self.ms is not None:
                raise ReportError(Parameter("ms"), " sets the handout learner's M; the "
                                  "learners of another game have none")
            series, ms = default_series(self.game_object), ()
        elif self.series is None:
            ms = check_ms(self.ms if self.ms is not None else DEFAULT_M)
            series = tuple(SeriesSpec.handout(m) for m in ms)
        else:
            series, ms = self._checked_series()
        object.__setattr__(self, "ms", ms)
        object.__setattr__(self, "series", series)
        if self.games is not None:
            games = self.games
        elif self.protocol:
            games = INFORMATION_DEFAULT_GAMES if self.information else GAME_DEFAULT_GAMES
        else:
            games = DEFAULT_GAMES
        object.__setattr__(self, "games", check_games(games))
        try:
            fmts = check_formats(("png", *(self.figure_formats or ())))
        except ValueError as exc:
            raise ReportError(Parameter("figure_formats"), f": {exc}") from None
        object.__setattr__(self, "figure_formats", fmts)
        if self.seeds is None:
            object.__setattr__(self, "seeds", GAME_DEFAULT_SEEDS if self.protocol
                               else DEFAULT_SEEDS)
        self._check_seeds()

    def _check_game(self) -> None:
        """The game checked: a handout Game without `game_params`, or a game's name whose
        parameters build it (in one line when they do not). The handout's game named
        (``"handout"`` with its sides, low, high and dice as `game_params`, or a
        :class:`~dicejack.games.HandoutGame`) becomes its Game: one study, one report."""
        if isinstance(self.game, HandoutGame):
            object.__setattr__(self, "game", self.game.rules)
        if isinstance(self.game, str):
            pairs = tuple((str(k), v) for k, v in dict(self.game_params).items())
            object.__setattr__(self, "game_params", pairs)
            built = protocol_game(self.game, pairs)
            if isinstance(built, HandoutGame):
                object.__setattr__(self, "game", built.rules)
                object.__setattr__(self, "game_params", ())
        elif not isinstance(self.game, Game):
            raise ReportError(Parameter("game"), " must be a Game or a game's name, got "
                              f"{type(self.game).__name__}")
        elif self.game_params:
            raise ReportError(Parameter("game_params"), " are another game's: the handout's "
                              "game takes its parameters as a Game(sides, low, high, dice)")

    def _checked_series(self) -> tuple[tuple[SeriesSpec, ...], tuple[float, ...]]:
        """The given `series` checked (SeriesSpec each, of the game's learners, not too many,
        distinct in value, label and file name), and the M values of its handout series
        checked for the game."""
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
        other = [s for s in series if s.protocol != self.protocol]
        if other:
            whose = "another game's" if self.protocol else "the handout's game's"
            raise ReportError(Parameter("series"), f" {other[0].label}: not a learner of "
                              f"{whose} (SeriesSpec(..., protocol={self.protocol}))")
        if self.protocol:
            plays = learners_for(self.game_object)
            stray = [s for s in series if s.learner not in plays]
            if stray:
                raise ReportError(Parameter("series"), f" {stray[0].label}: {stray[0].learner} "
                                  f"does not play {self.game_label}; its learners: "
                                  f"{', '.join(plays)}")
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
    def protocol(self) -> bool:
        """A study of another game than the handout's (named, as ``--game`` takes it), with
        learners of protocol games."""
        return isinstance(self.game, str)

    @property
    def information(self) -> bool:
        """A study of a game with hidden information (Kuhn poker...), learned by CFR and
        measured by the exact exploitability of its average policy."""
        return self.protocol and is_information_game(self.game_object)

    @property
    def game_object(self) -> Any:
        """The game played: the handout's Game, or the game `game` names built with
        `game_params` (once per process)."""
        return protocol_game(self.game, self.game_params) if self.protocol else self.game

    @property
    def game_key(self) -> tuple[Any, ...]:
        """The game as the plain, picklable values a run takes (:func:`dicejack.report.runs.
        run_one`): (sides, low, high, dice) for the handout's game, (name, params) for
        another."""
        if self.protocol:
            return (self.game, self.game_params)
        g = self.game
        return (g.n_sides, g.low, g.high, g.n_dice)

    @property
    def game_label(self) -> str:
        """The game in titles: ``pig goal=40 die=6``; the handout's ``Game(...)`` as it prints."""
        return game_label(self.game_object) if self.protocol else str(self.game)

    @property
    def game_slug(self) -> str:
        """The game as a folder name: ``pig-goal40-die6``, ``s6-l15-h17-d2``."""
        if not self.protocol:
            return self.game.label()
        game = self.game_object
        words = [str(game.name), *(f"{k}{v}" for k, v in game_params(game).items())]
        text = "-".join(words).replace("/", "_")
        return "".join(c if c.isalnum() or c in "-._" else "-" for c in text)

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
        listed = self.protocol or names != ["handout"]
        words = [f"--learner {','.join(names)}"] if listed else []
        grid = value_lists(self.series, names)
        texts = {key: [value_text(v) for v in values] for key, values in grid}
        if any(not t or "," in t or t != "".join(t.split()) for ts in texts.values() for t in ts):
            return ""  # a value the option text cannot carry
        def is_m(key: str) -> bool:
            return key == "handout.m" and not self.protocol

        for key, ts in texts.items():  # in the learners' order, each's parameters in its own
            if not is_m(key):
                words.append(f"--param {key}={','.join(ts)}")
            elif ts != ["100"]:
                words += [f"-m {t}" for t in ts]
        ms = [v for key, values in grid if is_m(key) for v in values]
        try:
            same = series_grid(names, [kv for kv in grid if not is_m(kv[0])], ms,
                               protocol=self.protocol) == self.series
        except ReportError:
            same = False
        return " ".join(words) if same else ""

    def command(self) -> str:
        """The `dicejack report` command line that reproduces this study (for series built in
        Python that no command line gives, the command with the series labels after it)."""
        games = ",".join(str(n) for n in self.games)
        if self.games == series_125(self.games[0], self.games[-1]):
            games = f"{self.games[0]}..{self.games[-1]}"
        seed = f" --seed {self.first_seed}" if self.first_seed != 1 else ""
        if self.figure_formats != ("png",):
            seed += f" --figure-format {','.join(self.figure_formats)}"
        if self.protocol:
            head = " ".join(["dicejack report", f"--game {self.game}",
                             *(f"--game-param {k}={v}" for k, v in self.game_params)])
        else:
            g = self.game
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
