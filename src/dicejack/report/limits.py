"""A report's settings as Python values: the error, the limits and defaults, and the checks of
game counts and M values shared by every game's report.

Owns what a setting may be, not the study (:mod:`dicejack.report.config` holds it together,
:mod:`dicejack.report.series` its curves). Bad settings raise :class:`ReportError`, the error of
the whole report package, whose message names the Python parameter at fault (``games``, ``ms``,
``params``...) so that the command line can say its own flags instead
(:meth:`ReportError.naming`). Nothing here parses the command line's text
(:mod:`dicejack.cli.report_options` does).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from dicejack.learners import checks, formulas
from dicejack.runtime.messages import Parameter, ParameterError

__all__ = [
    "Parameter",
    "ReportError",
    "DEFAULT_SEEDS",
    "GAME_DEFAULT_SEEDS",
    "SEEDS_LIMIT",
    "TOTAL_GAMES_LIMIT",
    "SERIES_LIMIT",
    "DEFAULT_M",
    "DEFAULT_GAMES",
    "GAME_DEFAULT_GAMES",
    "INFORMATION_DEFAULT_GAMES",
    "TIMING_FILE",
    "series_125",
    "check_games",
    "check_ms",
    "sequence",
    "series_pairs",
]

#: Default seeds per series: the handout's game, and any other game (``--game``).
DEFAULT_SEEDS = 10
GAME_DEFAULT_SEEDS = 5
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
#: Default checkpoints of a report on another game (``--game``): 1000, 2000, 5000, ..., 100,000.
GAME_DEFAULT_GAMES = series_125(1000, 100_000)
#: Default checkpoints of a report on a game with hidden information (CFR's iterations, one
#: "game" each): 10, 20, 50, ..., 10,000.
INFORMATION_DEFAULT_GAMES = series_125(10, 10_000)

#: The report's file of run times: the one file a re-run does not reproduce.
TIMING_FILE = "timing.json"


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


def sequence(values: Any, name: str, what: str) -> tuple[Any, ...]:
    """`values` as a tuple, or ReportError naming parameter `name` when it is not a sequence
    (a string of text included: the command line's text is read in the cli)."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ReportError(Parameter(name), f" must be a sequence of {what}, got {values!r}")
    return tuple(values)


def series_pairs(params: Any) -> list[tuple[str, Any]]:
    """The (key, values) pairs of `params` (a mapping or pairs) of
    :func:`dicejack.report.series.series_grid`; ReportError naming `params` else."""
    if isinstance(params, Mapping):
        return list(params.items())
    items = list(sequence(params, "params", "(key, values) pairs or a mapping"))
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
    games = tuple(_whole(g) for g in sequence(games, "games", "game counts"))
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
    ms = sequence(ms, "ms", "numbers")
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
