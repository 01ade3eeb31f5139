"""The series of a report, one curve each: a learner and the parameters set for it.

Owns the curves, not the rest of the study (:mod:`dicejack.report.config`). A
:class:`SeriesSpec` is one learner and its parameters: a learner of the handout's game
(:mod:`dicejack.learners`, the handout's learner with M = 100 by default) or, with
``protocol=True``, a learner of another game (:data:`PROTOCOL_LEARNERS`: those of
perfect-information games, and CFR for games with hidden information; :func:`default_series`
when none is given). :func:`series_grid` builds the series of several learners and lists of
parameter values (one series per combination); :func:`check_learners` and :func:`param_targets`
read learner names and parameter keys for it. Errors are
:class:`~dicejack.report.limits.ReportError` naming the Python parameter at fault.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dicejack import learners
from dicejack.games.information import is_information_game
from dicejack.learners import checks, formulas
from dicejack.learners.base import Param, check_params
from dicejack.learners.catalogue import (
    canonical_name,
    check_learner_params,
    learner_class,
    same_rule_name,
)
from dicejack.learners.catalogue import parameters as learner_parameters
from dicejack.learners.cfr import CFR_LEARNERS, VARIANTS
from dicejack.learners.game_learners import GAME_LEARNERS
from dicejack.report.limits import (
    SERIES_LIMIT,
    Parameter,
    ReportError,
    check_ms,
    sequence,
    series_pairs,
)

__all__ = [
    "GAME_DEFAULT_LEARNERS",
    "INFORMATION_DEFAULT_LEARNERS",
    "PROTOCOL_LEARNERS",
    "protocol_learner_class",
    "value_text",
    "learner_params",
    "SeriesSpec",
    "default_learners",
    "default_series",
    "check_learners",
    "param_targets",
    "series_grid",
    "value_lists",
]

#: Default learners of a report on another game (``--game``): one series each.
GAME_DEFAULT_LEARNERS = ("q-learning", "mc-exploring-starts")
#: Default learners of a report on a game with hidden information: CFR, one series per variant
#: (:func:`default_series`).
INFORMATION_DEFAULT_LEARNERS = ("cfr",)
#: The learners of every game but the handout's, by name: those of perfect-information games
#: and the CFR family of games with hidden information (a report's config checks that its
#: series' learners play its game: :func:`dicejack.learners.catalogue.learners_for`).
PROTOCOL_LEARNERS: dict[str, type] = {**GAME_LEARNERS, **CFR_LEARNERS}


def protocol_learner_class(name: str) -> type:
    """The learner of :data:`PROTOCOL_LEARNERS` called `name` (any case, ``_`` for ``-``);
    ReportError listing them."""
    key = str(same_rule_name(name, handout=False)).strip().lower().replace("_", "-")
    cls = PROTOCOL_LEARNERS.get(key)
    if cls is None:
        raise ReportError(f"no learner {name!r} for another game than the handout's; the "
                          f"learners: {', '.join(PROTOCOL_LEARNERS)} (cfr for games with "
                          "hidden information)")
    return cls


def value_text(value: Any) -> str:
    """A parameter value as typed after ``--param key=``: 1/n for None, %g when that reads back
    exactly, else repr (so that a command built from a series reproduces it)."""
    if isinstance(value, float):
        short = f"{value:g}"
        return short if float(short) == value else repr(value)
    return learners.base.format_value(value)


def learner_params(name: str, protocol: bool = False) -> tuple[Param, ...]:
    """The parameters of learner `name` (canonical) of the handout's game, or of protocol
    games."""
    if protocol:
        return protocol_learner_class(name).PARAMS
    try:
        return learner_parameters(name)
    except checks.LearnerError as exc:
        raise ReportError(str(exc)) from None


def _canonical(name: str, protocol: bool) -> str:
    """`name` (any spelling) as its learner's canonical name; ReportError if there is none."""
    if protocol:
        return protocol_learner_class(name).NAME
    try:
        return canonical_name(name)
    except checks.LearnerError as exc:
        raise ReportError(str(exc)) from None


def _all_names(protocol: bool) -> tuple[str, ...]:
    """Every bundled learner's name, of protocol games or of the handout's game."""
    return tuple(PROTOCOL_LEARNERS) if protocol else tuple(learners.NAMES)


@dataclass(frozen=True)
class SeriesSpec:
    """One series of a report (one curve on every figure): a learner and the parameters set for
    it, as (name, value) pairs; `protocol` says it is a learner of another game
    (:data:`PROTOCOL_LEARNERS`, for a report on another game) and
    not of the handout's game (a name of :data:`dicejack.learners.NAMES`).

    The parameters are checked and kept in the learner's own order; those not given take the
    learner's defaults when it runs. The handout's learner always carries its M (``m``, default
    100). ``SeriesSpec("q-learning", (("alpha", 0.1),))`` is labelled ``q-learning alpha=0.1``,
    ``SeriesSpec.handout(10)`` ``handout M=10``.
    """

    learner: str = "handout"
    params: tuple[tuple[str, Any], ...] = ()
    protocol: bool = False

    def __post_init__(self) -> None:
        if self.protocol:
            object.__setattr__(self, "learner", _canonical(self.learner, True))
        specs = learner_params(self.learner, self.protocol)
        pairs = tuple(tuple(p) for p in self.params)
        if any(len(p) != 2 or not isinstance(p[0], str) for p in pairs):
            raise ReportError(f"{self.learner} series parameters must be (name, value) pairs")
        given = dict(pairs)
        if len(given) != len(pairs):
            raise ReportError(f"a {self.learner} series sets a parameter twice")
        if self.learner == "handout" and not self.protocol:
            given.setdefault("m", 100.0)
        try:
            full = self._checked(given)
            if "m" in given and not self.protocol:
                full["m"] = formulas.check_m(full["m"])
        except learners.LearnerError as exc:
            raise ReportError(str(exc)) from None
        ordered = tuple((p.name, full[p.name]) for p in specs if p.name in given)
        object.__setattr__(self, "params", ordered)

    def _checked(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Every parameter of the learner: `given` checked, the rest at their defaults."""
        if self.protocol:
            cls = protocol_learner_class(self.learner)
            return check_params(cls.NAME, cls.PARAMS, given)
        return check_learner_params(self.learner, given)

    @classmethod
    def handout(cls, m: float) -> SeriesSpec:
        """The handout's learner with M = `m` (and its default tie-break)."""
        return cls("handout", (("m", float(m)),))

    @property
    def m(self) -> float | None:
        """The handout's M, or None for another learner."""
        return dict(self.params).get("m") if self.plain_learner("handout") else None

    def plain_learner(self, name: str) -> bool:
        """The learner of the handout's game called `name`."""
        return self.learner == name and not self.protocol

    @property
    def plain_handout(self) -> bool:
        """The handout's learner with only its M set: a series of a classic M report."""
        return self.plain_learner("handout") and [k for k, _ in self.params] == ["m"]

    @property
    def label(self) -> str:
        """The series in legends and tables: ``handout M=100``, ``q-learning alpha=0.1``,
        ``thompson``."""
        words = [f"{'M' if k == 'm' and self.m is not None else k}={value_text(v)}"
                 for k, v in self.params]
        return " ".join([self.learner, *words])

    @property
    def slug(self) -> str:
        """The label as a file-name part: ``handout_m100``, ``q-learning_alpha0.1``."""
        parts = [self.learner, *(f"{k}{value_text(v)}" for k, v in self.params)]
        text = "_".join(parts).replace("/", "-")
        return "".join(c if c.isalnum() or c in "-._" else "-" for c in text)

    def kwargs(self) -> dict[str, Any]:
        """The parameters to pass to :func:`dicejack.learners.learn` (or
        :func:`dicejack.learners.learn`)."""
        return dict(self.params)

    def all_params(self) -> dict[str, Any]:
        """Every parameter of the learner as it runs: the ones set, the rest at their
        defaults."""
        return self._checked(self.kwargs())


def default_learners(protocol: bool = False, game: Any = None) -> tuple[str, ...]:
    """The learners of a report when none is named: the handout's, or for another game
    :data:`GAME_DEFAULT_LEARNERS` (:data:`INFORMATION_DEFAULT_LEARNERS` when `game` has hidden
    information)."""
    if not protocol:
        return ("handout",)
    return INFORMATION_DEFAULT_LEARNERS if is_information_game(game) else GAME_DEFAULT_LEARNERS


def default_series(game: Any) -> tuple[SeriesSpec, ...]:
    """The series of a report on `game` (another game than the handout's) when none is given:
    one per learner of :func:`default_learners` at its defaults; for a game with hidden
    information, CFR once per variant (cfr+, cfr, outcome-sampling: the two deterministic
    ones and the sampled one side by side)."""
    if is_information_game(game):
        return series_grid(INFORMATION_DEFAULT_LEARNERS, {"cfr.variant": list(VARIANTS)},
                           protocol=True)
    return series_grid(protocol=True)


def check_learners(names: Iterable[str], protocol: bool = False,
                   defaults: Sequence[str] | None = None) -> tuple[str, ...]:
    """Learner names, each a bundled learner (:data:`dicejack.learners.NAMES`, any spelling) or
    the user's ``MODULE:Class`` (with `protocol`, learners of :data:`PROTOCOL_LEARNERS`), as
    canonical names; none twice, at least one (with `protocol`, none given is `defaults`,
    by default :data:`GAME_DEFAULT_LEARNERS`)."""
    if isinstance(names, (str, bytes)):
        names = (names,)
    out: list[str] = []
    for item in names:
        name = _canonical(item, protocol)
        if name in out:
            raise ReportError(Parameter("learners"), f" names {name} twice")
        out.append(name)
    if not out and protocol:
        return tuple(defaults) if defaults is not None else GAME_DEFAULT_LEARNERS
    if not out:
        raise ReportError("no learner given; choose from: " + ", ".join(learners.NAMES))
    return tuple(out)


def param_targets(names: Sequence[str], key: str, protocol: bool = False
                  ) -> list[tuple[str, Param]]:
    """What a parameter `key` of :func:`series_grid` sets among the learners `names` (canonical,
    from :func:`check_learners`): ``learner.name`` that learner's parameter, a bare ``name``
    that of every learner listed that has it (an error, with a hint, if none has); as
    (learner, its :class:`~dicejack.learners.Param`) pairs."""
    scope, dot, pname = str(key).strip().rpartition(".")
    if dot:
        if protocol:
            scope = _canonical(scope, True)
        else:
            try:
                learner_class(scope)
            except learners.LearnerError as exc:
                raise ReportError(str(exc)) from None
        if scope not in names:
            raise ReportError(f"{scope} is not in ", Parameter("learners"),
                              f" {','.join(names)}")
        specs = learner_params(scope, protocol)
        spec = next((p for p in specs if p.name == pname), None)
        if spec is None:
            valid = ", ".join(p.name for p in specs) or "none"
            raise ReportError(f"learner {scope} has no parameter {pname!r}; its parameters: "
                              f"{valid}")
        return [(scope, spec)]
    targets = [(n, p) for n in names for p in learner_params(n, protocol) if p.name == pname]
    if not targets:
        others = [n for n in _all_names(protocol)
                  if any(p.name == pname for p in learner_params(n, protocol))]
        hint = (f" ({', '.join(others)} has it)" if others else
                " (no bundled learner has it)")
        raise ReportError("no learner in ", Parameter("learners"), f" {','.join(names)} "
                          f"has a parameter {pname!r}{hint}")
    return targets


def _values(given: Any) -> list[Any]:
    """A parameter's values in :func:`series_grid`: a list or tuple of them, or one value."""
    return list(given) if isinstance(given, (list, tuple)) else [given]


def _checked_values(name: str, spec: Param, key: str, given: Any) -> list[Any]:
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


def _check_series_count(names: tuple[str, ...], settings: dict[str, dict[str, list[Any]]],
                        protocol: bool) -> None:
    """Refuse settings that combine into more than :data:`SERIES_LIMIT` series."""
    counts = {n: math.prod(len(v) for v in settings[n].values()) for n in names}
    total = sum(counts.values())
    if total > SERIES_LIMIT:
        shown = " + ".join(f"{n} {' x '.join(str(len(v)) for v in settings[n].values()) or 1}"
                           for n in names)
        given = (Parameter("params"),) if protocol else (Parameter("params"), " and ",
                                                         Parameter("ms"))
        raise ReportError(*given, f" ask for {total:,} series ({shown}); the limit is "
                          f"{SERIES_LIMIT:,} series in one report")


def series_grid(
    learners: Iterable[str] | None = None,
    params: Mapping[str, Any] | Iterable[tuple[str, Any]] = (),
    ms: Sequence[float] = (),
    *,
    protocol: bool = False,
) -> tuple[SeriesSpec, ...]:
    """The series of several learners and lists of parameter values, one per combination.

    `learners`: names (:func:`check_learners`; default :func:`default_learners`: the handout's,
    or with `protocol` the learners of protocol games :data:`GAME_DEFAULT_LEARNERS`). `params`:
    a mapping (or (key, values) pairs) from ``name`` (every listed learner that has it; an
    error if none has) or ``learner.name`` (that learner only) to a value or a list of values,
    one series per value, e.g. ``{"q-learning.alpha": [0.1, None], "epsilon_min": 0.05}``.
    `ms`: the handout's M values (as ``handout.m``). Series come in the order of the learners,
    then of the values, the parameters combined in every way (the learner's parameter order,
    the last varying fastest); at most :data:`SERIES_LIMIT`.
    """
    names = check_learners(default_learners(protocol) if learners is None else learners,
                           protocol)
    settings: dict[str, dict[str, list[Any]]] = {n: {} for n in names}
    ms = sequence(ms, "ms", "numbers")
    if ms:
        if "handout" not in names or protocol:
            raise ReportError(Parameter("ms"), " sets the handout's M, but ",
                              Parameter("learners"), f" {','.join(names)} does not include "
                              "handout")
        settings["handout"]["m"] = list(check_ms(ms))
    for key, given in series_pairs(params):
        try:
            targets = param_targets(names, key, protocol)
        except ReportError as exc:
            raise ReportError(Parameter("params"), f"[{key!r}]: ", *exc.parts) from None
        for name, spec in targets:
            if spec.name in settings[name]:
                if (name, spec.name) == ("handout", "m") and not protocol:
                    raise ReportError("handout parameter M (", Parameter("ms"), " and ",
                                      Parameter("params"), " m) given twice")
                raise ReportError(f"{name} parameter {spec.name} given twice")
            settings[name][spec.name] = _checked_values(name, spec, key, given)
    _check_series_count(names, settings, protocol)
    out: list[SeriesSpec] = []
    for name in names:
        keys = [p.name for p in learner_params(name, protocol) if p.name in settings[name]]
        for combo in itertools.product(*(settings[name][k] for k in keys)):
            out.append(SeriesSpec(name, tuple(zip(keys, combo, strict=True)), protocol))
    return tuple(out)


def value_lists(series: Sequence[SeriesSpec], names: Sequence[str]
                ) -> list[tuple[str, list[Any]]]:
    """The values each learner's parameters take across `series`, as (``learner.name``, values)
    pairs in the order of `names` and of each learner's parameters, values in order of first
    appearance."""
    grid = []
    for name in names:
        mine = [s for s in series if s.learner == name]
        values_of = [dict(s.params) for s in mine]
        protocol = bool(mine) and mine[0].protocol
        for p in learner_params(name, protocol):
            values = list(dict.fromkeys(d[p.name] for d in values_of if p.name in d))
            if values:
                grid.append((f"{name}.{p.name}", values))
    return grid
