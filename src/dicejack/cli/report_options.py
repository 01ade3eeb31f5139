"""The text of `dicejack report`'s options read into the Python values the report library takes.

Owns the command line's notation, nothing else: ``--games 100,1000`` or ``100..1e6`` (the 1-2-5
steps), ``-m 10,100`` (repeated or comma lists), ``--learner a,b``, ``--param
[LEARNER.]KEY=V[,V...]`` (each value read by its learner's own parameter, ``1/n`` included), and
``--figure-format png,svg``. The library (:mod:`dicejack.report.config`,
:mod:`dicejack.report.series`) checks the values and builds the series, of the handout's
game's learners or (with ``--game``) of protocol games'; its errors name its
Python parameters (``games``, ``ms``, ``params``...), which :func:`flag_names` says as this
command's flags (as every parser here does). Errors in the text itself are one-line
report errors (:class:`~dicejack.report.ReportError`) that quote the option as typed.
"""

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from dicejack import formats
from dicejack.formats import numbers
from dicejack.learners import LearnerError
from dicejack.report.limits import SERIES_LIMIT, ReportError, check_games, check_ms, series_125
from dicejack.report.series import (
    SeriesSpec,
    check_learners,
    default_learners,
    param_targets,
    series_grid,
)

__all__ = ["FLAGS", "flag_names", "parse_count", "parse_games", "parse_ms", "parse_learners",
           "parse_series", "parse_figure_formats"]

#: The report library's parameters as `dicejack report` says them (the library's errors name the
#: former: ReportError.naming).
FLAGS = {"games": "--games", "ms": "-m", "learners": "--learner", "params": "--param",
         "series": "--learner", "seeds": "--seeds", "figure_formats": "--figure-format",
         "out": "--out", "game": "--game", "game_params": "--game-param"}


@contextmanager
def flag_names() -> Iterator[None]:
    """Say the report library's errors in this command's flags (`games` -> `--games`)."""
    try:
        yield
    except ReportError as exc:
        if not exc.parameters:
            raise
        raise ReportError(exc.naming(FLAGS)) from None


def _words(values: Iterable[str]) -> list[str]:
    """The items of repeated options and/or comma lists, stripped, blanks dropped."""
    return [w.strip() for item in values for w in str(item).split(",") if w.strip()]


def parse_count(text: str) -> int:
    """One checkpoint of --games in the notation of every count (formats.numbers.parse_count; commas
    separate checkpoints here, so no thousands separators)."""
    try:
        return numbers.parse_count(text, "game count")
    except formats.FormatError as exc:
        raise ReportError(str(exc)) from None


def parse_games(text: str) -> tuple[int, ...]:
    """'100,1000,10000' (strictly increasing) or 'A..B' (the 1-2-5 series from A to B)."""
    with flag_names():
        return _games(text.strip())


def _games(text: str) -> tuple[int, ...]:
    """:func:`parse_games` of stripped `text`, its errors naming the library's parameters."""
    if ".." in text:
        first, _, last = text.partition("..")
        a, b = parse_count(first), parse_count(last)
        if b >= 1:
            check_games((b,))  # a count past the limit is said as such first
        if a < 1 or b <= a:
            raise ReportError(f"game counts must be positive and increasing, got {text}")
        return check_games(series_125(a, b))
    parts = [p for p in text.split(",") if p.strip()]
    if not parts:
        raise ReportError("no game counts given")
    return check_games(tuple(parse_count(p) for p in parts))


def parse_ms(values: Iterable[str]) -> tuple[float, ...]:
    """M values from repeated options and/or comma lists: '-m 10 -m 100' or '-m 10,100'."""
    out: list[float] = []
    for part in _words(values):
        try:
            out.append(float(part))
        except ValueError:
            raise ReportError(f"M must be a number, got {part!r}") from None
    with flag_names():
        return check_ms(out)


def parse_learners(values: Iterable[str], protocol: bool = False) -> tuple[str, ...]:
    """Learner names from repeated options and/or comma lists: ``--learner handout,ucb``; each a
    bundled learner or ``MODULE:Class`` (with `protocol`, a learner of protocol games), none
    twice (:func:`dicejack.report.series.check_learners`)."""
    with flag_names():
        return check_learners(_words(values), protocol)


def _split_param(item: str) -> tuple[str, list[str]]:
    """``--param`` text `item` as (key, value texts): ``[learner.]name`` and the comma list (a
    key without a name after its dot is refused)."""
    key, sep, text = item.partition("=")
    key = key.strip()
    if not sep or not key or not key.rpartition(".")[2]:
        raise ReportError(f"--param must be key=value or learner.key=value, got {item!r}")
    return key, [p.strip() for p in text.split(",")]


def _quoted(item: str, exc: Exception) -> ReportError:
    """`exc` (a library error naming parameters, or a learner's) after ``--param item:``."""
    text = exc.naming(FLAGS) if isinstance(exc, ReportError) else str(exc)
    return ReportError(f"--param {item}: {text}")


def _param_values(targets: list[tuple[str, Any]], item: str, texts: list[str]
                  ) -> list[tuple[str, list[Any]]]:
    """Each target learner's values of ``--param`` `item` (value `texts` read by its Param),
    as (learner.key, values) pairs for the library; none twice."""
    pairs = []
    for name, spec in targets:
        try:
            values = [spec.parse(name, t) for t in texts]
        except LearnerError as exc:
            raise _quoted(item, exc) from None
        if len({repr(v) for v in values}) != len(values):
            raise ReportError(f"--param {item}: the values must be distinct")
        pairs.append((f"{name}.{spec.name}", values))
    return pairs


def parse_series(learner_names: Iterable[str] = (), params: Iterable[str] = (),
                 ms: Iterable[str] = (), protocol: bool = False, game: Any = None
                 ) -> tuple[SeriesSpec, ...]:
    """The series of ``--learner``, ``--param`` and ``-m`` (the command line's text), built by
    :func:`dicejack.report.series.series_grid`; with `protocol` (``--game``), of learners of
    another game (`game`, the game played, decides the default learners).

    learner_names: comma lists or repeats (default handout; for another game
    :func:`dicejack.report.series.default_learners`: cfr for a game with hidden information,
    else :data:`dicejack.report.series.GAME_DEFAULT_LEARNERS`). params: ``key=value`` sets `key` for
    every listed learner that has it (an error if none has), ``learner.key=value`` for that
    learner only; a comma list of values gives one series per value. ms: the handout's M (as
    ``--param handout.m=``).
    """
    given = [str(v) for v in learner_names]
    if protocol:
        with flag_names():
            names = check_learners(_words(given), True, default_learners(True, game))
    elif given:
        names = parse_learners(given, protocol)
    else:
        names = ("handout",)
    m_values = parse_ms(ms) if [str(v) for v in ms] else ()
    pairs: list[tuple[str, list[Any]]] = []
    for item in map(str, params):
        key, texts = _split_param(item)
        try:
            targets = param_targets(names, key, protocol)
        except ReportError as exc:
            raise _quoted(item, exc) from None
        if len(texts) > SERIES_LIMIT:
            raise ReportError(f"--param {key}=...: {len(texts):,} values; the limit is "
                              f"{SERIES_LIMIT:,} series in one report")
        if not all(texts):
            raise ReportError(f"--param {item}: give a value, or a comma list of values, "
                              "after '='")
        pairs += _param_values(targets, item, texts)
    with flag_names():
        return series_grid(names, pairs, m_values, protocol=protocol)


def parse_figure_formats(text: str) -> tuple[str, ...]:
    """``--figure-format png,svg,pdf`` as a tuple of names (the library checks them)."""
    return tuple(f for f in text.split(",") if f.strip())
