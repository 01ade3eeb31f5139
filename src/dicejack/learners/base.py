"""The learner interface: the protocol, the tables every learner reports, a finished run, the
parameter specifications, and the checks every learner shares.

A learner plays seeded self-play of the game in chunks (:meth:`Learner.play`) and reports, at any
point, its greedy tables (:class:`Tables`): the best J per state, its estimated win probability,
and how many moves were made from each state. Tables follow the handout's output convention (best
J 0 and probability -1 where the learner has no data), so :mod:`dicejack.compare` measures any
learner as it measures the handout's. A resumable learner also exports its full state
(:meth:`ResumableLearner.state`: numpy arrays and plain scalars, the generator's state as JSON
text) and is rebuilt from it (:meth:`ResumableLearner.restore`), so that a run continues exactly
where it stopped.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from dicejack.games.handout_rules import Game
from dicejack.learners.checks import (
    CDF_ENTRIES_LIMIT,
    LearnerError,
    check_count,
    check_games_limit,
    check_seed,
    check_table_sizes,
)

__all__ = [
    "Counted",
    "Tables",
    "Learner",
    "ResumableLearner",
    "LearnedRun",
    "Run",
    "Param",
    "EPSILON_PARAMS",
    "check_learner_size",
    "roll_guide",
    "check_protocol",
    "check_members",
    "roll_tables",
    "rng_state_text",
    "generator_from_text",
    "state_array",
    "state_int",
    "readonly",
    "Bundled",
    "SelfPlaying",
]


def readonly(a: np.ndarray) -> np.ndarray:
    """`a` marked read-only (returned for chaining)."""
    a.setflags(write=False)
    return a


# ------------------------------------------------------------------------------------ tables
@dataclass(frozen=True, eq=False)
class Tables:
    """A learner's greedy tables at one moment, each (low, low), read-only.

    best: int64, the J the learner rates best in each state (1..NDice), 0 where it has no data;
    probability: float64, its estimated win probability for the mover, -1 where it has none;
    visits: int64, the moves made from each state so far (any J).
    """

    best: np.ndarray
    probability: np.ndarray
    visits: np.ndarray

    @classmethod
    def checked(cls, game: Game, tables: Any, *, copy: bool = True) -> Tables:
        """Tables (or a (best, probability, visits) triple) as read-only copies, checked against
        `game`: shapes (low, low), best in 0..NDice, probability in [0, 1] or -1, visits >= 0,
        and no data (best 0) exactly where the probability is -1. copy=False: arrays already of
        the right dtype are made read-only in place (the caller gives up writing them; a file
        reader saves a copy of every snapshot)."""
        if isinstance(tables, Tables):
            parts = (tables.best, tables.probability, tables.visits)
        elif isinstance(tables, (tuple, list)) and len(tables) == 3:
            parts = tuple(tables)
        else:
            raise LearnerError(
                f"a learner's tables() must give Tables(best, probability, visits), got "
                f"{type(tables).__name__}"
            )
        arrays = []
        for name, part in zip(("best", "probability", "visits"), parts, strict=True):
            a = np.asarray(part)
            if a.shape != game.shape:
                raise LearnerError(f"the {name} table has shape {a.shape}, not {game.shape}")
            if name == "probability":
                if a.dtype.kind not in "iuf":
                    raise LearnerError(f"the probability table has dtype {a.dtype}, not float")
            elif a.dtype.kind not in "iu":
                raise LearnerError(f"the {name} table has dtype {a.dtype}, not integers")
            arrays.append(a)
        best = np.array(arrays[0], dtype=np.int64, copy=copy or None)
        prob = np.array(arrays[1], dtype=np.float64, copy=copy or None)
        visits = np.array(arrays[2], dtype=np.int64, copy=copy or None)
        if best.min(initial=0) < 0 or best.max(initial=0) > game.n_dice:
            raise LearnerError(f"the best table has values outside 0..{game.n_dice}")
        unknown = prob == -1
        if not np.all(unknown | ((prob >= 0) & (prob <= 1))):
            raise LearnerError("the probability table has values outside [0, 1] other than -1")
        if not np.array_equal(unknown, best == 0):
            raise LearnerError("best is 0 (no data) exactly where the probability is -1, not so")
        if visits.min(initial=0) < 0:
            raise LearnerError("the visits table has negative counts")
        return cls(readonly(best), readonly(prob), readonly(visits))

    @classmethod
    def empty(cls, game: Game) -> Tables:
        """The tables of a learner that has played nothing: no data anywhere."""
        return cls(
            readonly(np.zeros(game.shape, np.int64)),
            readonly(np.full(game.shape, -1.0)),
            readonly(np.zeros(game.shape, np.int64)),
        )

    def __iter__(self):  # (best, probability, visits) = tables
        return iter((self.best, self.probability, self.visits))

    def equals(self, other: Tables) -> bool:
        """True when all three tables are identical."""
        return all(np.array_equal(a, b) for a, b in zip(self, other, strict=True))


# ---------------------------------------------------------------------------------- protocol
@runtime_checkable
class Learner(Protocol):
    """What :func:`dicejack.learners.learn` needs of a learner (a user's own object included).

    name: a short label ("q-learning"); game: the :class:`~dicejack.games.handout_rules.Game` it
    plays; seed: the seed of its generator; played: games played so far. play(games) plays that
    many more games of self-play (however the games are chunked, the result must be the same);
    tables() reports the greedy tables now. Optional: `params` (a mapping shown in labels and
    saved in runs) and `moves` (moves played so far).
    """

    name: str
    game: Game
    seed: int

    @property
    def played(self) -> int: ...

    def play(self, games: int) -> None: ...

    def tables(self) -> Tables: ...


@runtime_checkable
class ResumableLearner(Learner, Protocol):
    """A :class:`Learner` that can be saved and resumed exactly.

    state() returns everything needed to continue (numpy arrays, ints, floats, str; the generator
    state as JSON text); ``cls.restore(game, seed, params, state)`` rebuilds a learner that plays
    on exactly as the original would have. Every bundled learner is resumable.
    """

    def state(self) -> dict[str, Any]: ...

    @classmethod
    def restore(
        cls, game: Game, seed: int, params: Mapping[str, Any], state: Mapping[str, Any]
    ) -> ResumableLearner: ...


# ------------------------------------------------------------------------------ protocol check
_MEMBERS = ("name", "game", "seed", "played", "play", "tables")


def check_members(obj: Any) -> None:
    """LearnerError naming what `obj` lacks of the learner protocol's members (a learner of any
    game: the handout's or another protocol game)."""
    missing = [m for m in _MEMBERS if not hasattr(obj, m)]
    if missing:
        raise LearnerError(
            f"{type(obj).__name__} is not a learner: it has no {', '.join(missing)} "
            f"(see dicejack.learners.Learner)"
        )


def check_protocol(obj: Any) -> None:
    """LearnerError naming what `obj` lacks of the :class:`Learner` protocol (a learner of the
    handout's game)."""
    missing = [m for m in _MEMBERS if not hasattr(obj, m)]
    if missing:
        raise LearnerError(
            f"{type(obj).__name__} is not a learner: it has no {', '.join(missing)} "
            f"(see dicejack.learners.Learner)"
        )
    if not isinstance(obj.game, Game):
        raise LearnerError(f"learner {obj.name}: its game is not a Game")


# ---------------------------------------------------------------------------------------- run
@dataclass(frozen=True, eq=False)
class LearnedRun:
    """A finished stretch of learning of any game: the final tables, checkpoints, and the state
    to resume (what :class:`Run`, the handout's game's, and
    :class:`~dicejack.learners.game_learners.GameRun`, any other game's, share).

    name, params: the learner and its parameters; game: the game it played; games: games played
    in all; seed; final: its tables after them; snapshots: {games: tables} at the checkpoints;
    state: the learner's :meth:`~ResumableLearner.state` (None for a learner that cannot be
    resumed); moves: moves played (None when the learner does not count them); learner_type:
    the class that :func:`dicejack.learners.resume` rebuilds.
    """

    name: str
    params: Mapping[str, Any]
    game: Any
    games: int
    seed: int
    final: Any
    snapshots: Mapping[int, Any] = field(default_factory=dict)
    state: Mapping[str, Any] | None = None
    moves: int | None = None
    learner_type: type | None = field(default=None, repr=False)

    @property
    def played(self) -> int:
        """Games played in all (the learner protocol's word for `games`)."""
        return self.games

    @property
    def label(self) -> str:
        """E.g. ``q-learning epsilon=1 alpha=1/n seed=1 games=1000`` (for legends and
        messages)."""
        words = [self.name, *(f"{k}={format_value(v)}" for k, v in self.params.items())]
        return " ".join([*words, f"seed={self.seed}", f"games={self.games}"])


@dataclass(frozen=True, eq=False)
class Run(LearnedRun):
    """A run of the handout's game (a :class:`LearnedRun` whose game is a
    :class:`~dicejack.games.handout_rules.Game` and whose tables are :class:`Tables`).
    ``run.tables`` is (best, probability), which is what :func:`dicejack.compare.compare`
    reads, with ``run.game`` and ``run.label``.
    """

    game: Game
    final: Tables
    snapshots: Mapping[int, Tables] = field(default_factory=dict)

    @property
    def tables(self) -> tuple[np.ndarray, np.ndarray]:
        """(best, probability): the handout's two output arrays after `games` games."""
        return self.final.best, self.final.probability

    @property
    def visits(self) -> np.ndarray:
        """Moves made from each state (LxL)."""
        return self.final.visits

    def best_dice(self) -> np.ndarray:
        """LxL best number of dice per state (0 where there is no data)."""
        return self.final.best

    def win_probability(self) -> np.ndarray:
        """LxL estimated win probability of the best J (-1 where there is no data)."""
        return self.final.probability


def format_value(value: Any) -> str:
    """A parameter value as written on the command line (None as 1/n, floats with %g)."""
    if value is None:
        return "1/n"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


# ---------------------------------------------------------------------------------- parameters
@dataclass(frozen=True)
class Param:
    """One parameter of a learner: its name, default, meaning, type and valid range.

    kind "float": a number in [low, high] (low excluded when `low_open`; +inf only when
    `allow_inf`); `none`, when set, is the command-line word for the value None (e.g. "1/n").
    kind "int": a whole number in [low, high]. kind "choice": one of `choices`.
    """

    name: str
    default: Any
    help: str
    kind: str = "float"
    low: float = -math.inf
    high: float = math.inf
    low_open: bool = False
    allow_inf: bool = False
    choices: tuple[str, ...] = ()
    none: str | None = None

    def allowed(self) -> str:
        """The valid values, e.g. ``[0, 1]``, ``(0, inf]``, ``(0, 1] or 1/n``, ``lowest|random``."""
        if self.kind == "choice":
            return "|".join(self.choices)
        if self.kind == "int" and math.isinf(self.low) and math.isinf(self.high):
            return "a whole number"
        lo = "(" if self.low_open else "["
        hi = "]" if self.allow_inf or not math.isinf(self.high) else ")"
        text = f"{lo}{format_value(float(self.low))}, {format_value(float(self.high))}{hi}"
        return text + (f" or {self.none}" if self.none is not None else "")

    def describe(self) -> str:
        """One line for help text: name, meaning, valid values and default."""
        return f"{self.name}: {self.help} ({self.allowed()}; default {format_value(self.default)})"

    def check(self, learner: str, value: Any) -> Any:
        """`value` converted (float, a choice string, or None) and checked; LearnerError."""
        where = f"{learner} parameter {self.name}"
        if self.kind == "choice":
            if not isinstance(value, str) or value not in self.choices:
                raise LearnerError(
                    f"{where} must be one of {', '.join(self.choices)}; got {value!r}"
                )
            return value
        if value is None and self.none is not None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            extra = f" or {self.none}" if self.none is not None else ""
            raise LearnerError(f"{where} must be a number{extra}, got {value!r}")
        if self.kind == "int":
            if isinstance(value, (float, np.floating)) and not float(value).is_integer():
                raise LearnerError(f"{where} must be a whole number, got {value!r}")
            whole = int(value)
            if not self.low <= whole <= self.high:
                raise LearnerError(f"{where} must be in {self.allowed()}, got {value!r}")
            return whole
        v = float(value)
        below = v <= self.low if self.low_open else v < self.low
        if math.isnan(v) or below or v > self.high or (math.isinf(v) and not self.allow_inf):
            raise LearnerError(f"{where} must be in {self.allowed()}, got {value!r}")
        if 0 < abs(v) < sys.float_info.min:
            raise LearnerError(f"{where} must not be subnormal, got {value!r}")
        return v

    def parse(self, learner: str, text: str) -> Any:
        """The value of `text` (from ``--param name=text``), converted and checked."""
        raw = text.strip()
        if self.kind == "choice":
            return self.check(learner, raw)
        if self.none is not None and raw.lower() in (self.none, "none"):
            return None
        try:
            value = float(raw)
        except ValueError:
            extra = f" or {self.none}" if self.none is not None else ""
            raise LearnerError(
                f"{learner} parameter {self.name} must be a number{extra}, got {text!r}"
            ) from None
        return self.check(learner, value)


#: The exploration schedule shared by q-learning and mc-epsilon (see
#: :func:`dicejack.learners.reference.epsilon_at`).
EPSILON_PARAMS: tuple[Param, ...] = (
    Param("epsilon", 1.0, "exploration rate at the start", low=0.0, high=1.0),
    Param("epsilon_min", 0.1, "exploration rate floor", low=0.0, high=1.0),
    Param("epsilon_decay", 1000.0, "games until epsilon halves (inf: no decay)",
          low=0.0, low_open=True, allow_inf=True),
)


# -------------------------------------------------------------------------------------- checks
def check_learner_size(game: Game, tables: int, name: str) -> None:
    """The learners' limits: `tables` float64/int64 tables of the game's per-action shape within
    the learner memory limit, and the exact dice-sum CDF within its size limit."""
    if not isinstance(game, Game):
        raise LearnerError(f"game must be a Game, got {type(game).__name__}")
    check_table_sizes(game, tables * game.table_bytes, name)


def roll_tables(game: Game) -> tuple[np.ndarray, np.ndarray]:
    """(cdf, guide) for drawing roll totals with one uniform x: the first t with
    x < cdf[j, t] (cdf = :attr:`Game.sum_cdf_table`); guide[j, floor(x * G)] is a start for
    that search, which the kernels correct both ways (so any guide gives the exact total)."""
    cdf = np.ascontiguousarray(game.sum_cdf_table, dtype=np.float64)
    return cdf, roll_guide(cdf)


def roll_guide(cdf: np.ndarray) -> np.ndarray:
    """The compiled loops' start points for drawing a roll total with one uniform x:
    guide[j, floor(x * G)] is where the search for the first t with x < cdf[j, t] begins; the
    kernels correct it both ways, so the total is exactly
    :func:`dicejack.games.handout_rules.roll_total`'s.
    4 buckets per possible total (fewer steps after the guess), within a size cap."""
    buckets = cdf.shape[1] * (4 if cdf.size * 4 <= CDF_ENTRIES_LIMIT else 1)
    levels = np.arange(buckets) / buckets
    guide = np.stack([np.searchsorted(row, levels, side="right") for row in cdf])
    return np.ascontiguousarray(np.minimum(guide, cdf.shape[1] - 1).astype(np.int64))



# ------------------------------------------------------------------------------- state helpers
def rng_state_text(rng: np.random.Generator) -> str:
    """The generator's PCG64 state as JSON text (its 128-bit integers kept exactly)."""
    return json.dumps(rng.bit_generator.state)


def generator_from_text(text: Any) -> np.random.Generator:
    """A Generator at the PCG64 state `text` (from :func:`rng_state_text`); LearnerError if the
    text is not such a state."""
    if not isinstance(text, str) or len(text) > 4096:
        raise LearnerError("rng_state must be the JSON text of a PCG64 generator state")
    try:
        state = json.loads(text)
        if not isinstance(state, dict) or state.get("bit_generator") != "PCG64":
            raise ValueError("not PCG64")
        bitgen = np.random.PCG64()
        bitgen.state = state
    except (ValueError, TypeError, KeyError, OverflowError):
        raise LearnerError("rng_state is not a PCG64 generator state") from None
    return np.random.Generator(bitgen)


def state_array(
    state: Mapping[str, Any], key: str, shape: tuple[int, ...], kinds: str
) -> np.ndarray:
    """state[key] as an array of `shape` whose dtype kind is in `kinds`; LearnerError if not."""
    if key not in state:
        raise LearnerError(f"the learner state has no {key!r}")
    a = np.asarray(state[key])
    if a.shape != shape or a.dtype.kind not in kinds:
        raise LearnerError(
            f"the learner state's {key} has shape {a.shape} ({a.dtype}), not {shape}"
        )
    return a


def state_int(state: Mapping[str, Any], key: str) -> int:
    """state[key] as an int >= 0; LearnerError if it is missing or not one."""
    if key not in state:
        raise LearnerError(f"the learner state has no {key!r}")
    value = state[key]
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise LearnerError(f"the learner state's {key} must be a whole number >= 0")
    return int(value)


class Bundled:
    """Common parts of the bundled learners: name, game, seed, checked params, engine.

    Subclasses set NAME, SUMMARY (one line for help) and PARAMS, call :meth:`setup` first in
    their constructor, and implement played, play, tables, state and restore.
    """

    NAME: ClassVar[str] = ""
    SUMMARY: ClassVar[str] = ""
    PARAMS: ClassVar[tuple[Param, ...]] = ()
    ENGINES: ClassVar[tuple[str, ...]] = ("numba", "python")

    name: str
    game: Game
    seed: int
    params: dict[str, Any]
    engine: str

    def setup(self, game: Game, seed: object, params: Mapping[str, Any], engine: str) -> None:
        """Check and keep the game (:meth:`check_game`), seed (None: a fresh one), parameters
        and engine."""
        self.check_game(game)
        if engine not in self.ENGINES:
            raise LearnerError(f"engine must be one of {', '.join(self.ENGINES)}; got {engine!r}")
        self.name = self.NAME
        self.game = game
        self.seed = check_seed(seed)
        self.params = check_params(self.NAME, self.PARAMS, params)
        self.engine = engine

    def check_game(self, game: Any) -> None:
        """LearnerError unless `game` is a game this learner plays (the handout's
        :class:`Game`; learners of other games override it)."""
        if not isinstance(game, Game):
            raise LearnerError(f"game must be a Game, got {type(game).__name__}")

    def __repr__(self) -> str:
        words = " ".join(f"{k}={format_value(v)}" for k, v in self.params.items())
        return f"<{type(self).__name__} {self.name} {words} seed={self.seed} " \
               f"played={self.played}>"

    @property
    def games_label(self) -> str:
        """E.g. ``evolved-fsm n_states=2 games=1000``: the name, the parameters and the games
        played (for legends and messages)."""
        words = [self.name, *(f"{k}={format_value(v)}" for k, v in self.params.items())]
        return " ".join([*words, f"games={self.played}"])

    @property
    def played(self) -> int:  # pragma: no cover - overridden
        raise NotImplementedError



class Counted:
    """A learner whose `counters` array holds [games, moves, ...] (bumped by its loops after each
    whole game): `played` and `moves` read from it (every self-playing learner, of the handout's
    game or of a protocol game)."""

    counters: np.ndarray

    @property
    def played(self) -> int:
        """Games played so far."""
        return int(self.counters[0])

    @property
    def moves(self) -> int:
        """Moves played so far."""
        return int(self.counters[1])


class SelfPlaying(Counted, Bundled):
    """A bundled learner with its own self-play loops: `counters` = [games, moves] (bumped by
    the loops after each whole game), and play() running the compiled loop (engine "numba") or
    the plain reference (engine "python"), which subclasses implement as play_compiled and
    play_reference."""

    rng: np.random.Generator

    def progress_state(self) -> dict[str, Any]:
        """The part of :meth:`state` every self-playing learner shares, after its own tables:
        games, moves and the generator's state (JSON text)."""
        return {"games": self.played, "moves": self.moves, "rng_state": rng_state_text(self.rng)}

    def play(self, games: int) -> None:
        """Play `games` more games (chunking never changes the result)."""
        games = check_games_limit(check_count("games", games))
        if games == 0:
            return
        if self.engine == "numba":
            self.play_compiled(games)
        else:
            self.play_reference(games)

    def play_compiled(self, games: int) -> None:  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    def play_reference(self, games: int) -> None:  # pragma: no cover - every subclass overrides
        raise NotImplementedError

def check_params(
    name: str, specs: tuple[Param, ...], params: Mapping[str, Any]
) -> dict[str, Any]:
    """`params` completed with defaults, each checked, in the order of `specs`; unknown names are
    a LearnerError listing the valid ones."""
    known = {p.name: p for p in specs}
    unknown = [k for k in params if k not in known]
    if unknown:
        valid = ", ".join(known) if known else "none"
        raise LearnerError(
            f"learner {name} has no parameter {unknown[0]!r}; its parameters: {valid}"
        )
    out = {p.name: p.check(name, params.get(p.name, p.default)) for p in specs}
    if "epsilon_min" in out and out["epsilon_min"] > out["epsilon"]:
        given = "epsilon_min" in params
        default, hint = ("", "") if given else (", its default", "; set epsilon_min too")
        raise LearnerError(
            f"{name} parameter epsilon_min ({out['epsilon_min']:g}{default}) must be <= epsilon "
            f"({out['epsilon']:g}){hint}"
        )
    return out
