"""Learners on one harness: the learner protocol, the bundled learners, and learn/resume.

Any object with ``name, game, seed, played, play(games), tables()`` is a :class:`Learner`
(plus ``state()`` and a classmethod ``restore(game, seed, params, state)`` to be resumable), and
:func:`learn` runs it with checkpoints into a :class:`Run` that
:func:`dicejack.compare.compare` measures against the exact solution. Bundled, by name
(:data:`NAMES`), each compiled, seeded, deterministic per seed however chunked, and held by tests
to a plain reference loop:

  handout     the handout's counting learner (:mod:`dicejack.learner`), behind the interface
  q-learning  tabular Q-learning, target 1 - max Q of the opponent's next state
  mc-epsilon  the handout's counts and greedy B, explored epsilon-greedily
  ucb         per-state UCB1 on the counts' win rates
  thompson    per-state Thompson sampling from Beta(1 + W, 1 + L)

Modules, in import order: base (protocol, Tables, Run, Param, checks), reference (the plain-Python
rules and loops), kernels (their compiled twins), counting (what the counting learners share),
handout, mc_epsilon, ucb, thompson, qlearning (one learner each), and this registry.

>>> from dicejack.game import Game
>>> run = learn(Game(6, 15, 17, 2), "q-learning", games=1000, seed=1, epsilon=0.2)
>>> run.label
'q-learning epsilon=0.2 epsilon_min=0.1 epsilon_decay=1000 alpha=1/n q_init=0.5 seed=1 games=1000'
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from dicejack.game import Game
from dicejack.learner import check_games_limit, play_to, run_target
from dicejack.learners.base import (
    Learner,
    LearnerError,
    Param,
    ResumableLearner,
    Run,
    Tables,
    check_count,
    check_params,
    readonly,
)
from dicejack.learners.handout import Handout
from dicejack.learners.mc_epsilon import MCEpsilon
from dicejack.learners.qlearning import QLearning
from dicejack.learners.thompson import Thompson
from dicejack.learners.ucb import UCB

__all__ = [
    "LearnerError",
    "Learner",
    "ResumableLearner",
    "Tables",
    "Run",
    "Param",
    "Session",
    "REGISTRY",
    "NAMES",
    "Handout",
    "QLearning",
    "MCEpsilon",
    "UCB",
    "Thompson",
    "learner_class",
    "parameters",
    "check_learner_params",
    "parse_params",
    "help_text",
    "make",
    "restore",
    "learn",
    "resume",
]

#: The bundled learners by name, in the order of every listing.
REGISTRY: dict[str, type] = {
    cls.NAME: cls for cls in (Handout, QLearning, MCEpsilon, UCB, Thompson)
}
#: Their names: handout, q-learning, mc-epsilon, ucb, thompson.
NAMES: tuple[str, ...] = tuple(REGISTRY)


# ------------------------------------------------------------------------------- the registry
def learner_class(name: str) -> type:
    """The bundled learner called `name`; LearnerError listing the names if there is none."""
    if not isinstance(name, str) or name not in REGISTRY:
        raise LearnerError(f"unknown learner {name!r}; choose one of: {', '.join(NAMES)}")
    return REGISTRY[name]


def parameters(name: str) -> tuple[Param, ...]:
    """The parameters of bundled learner `name` (names, defaults, ranges, help)."""
    return learner_class(name).PARAMS


def check_learner_params(name: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """`params` of learner `name`, checked and completed with the defaults (in the learner's
    order); LearnerError naming the learner, the parameter and the valid values."""
    return check_params(name, parameters(name), params)


def parse_params(name: str, items: Iterable[str]) -> dict[str, Any]:
    """``--param key=value`` strings for learner `name` as checked Python values (only the keys
    given; defaults are filled in by the learner). E.g. ``parse_params("q-learning",
    ["alpha=0.1", "epsilon=0.2"])`` gives ``{"alpha": 0.1, "epsilon": 0.2}``; ``alpha=1/n`` gives
    None (the 1/N step). LearnerError (one line) for a missing '=', an unknown or repeated key,
    or a bad value."""
    specs = {p.name: p for p in parameters(name)}
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = str(item).partition("=")
        key = key.strip()
        if not sep or not key:
            raise LearnerError(f"a learner parameter must be key=value, got {item!r}")
        if key not in specs:
            valid = ", ".join(specs) if specs else "none"
            raise LearnerError(f"learner {name} has no parameter {key!r}; its parameters: {valid}")
        if key in out:
            raise LearnerError(f"learner parameter {key} given twice")
        out[key] = specs[key].parse(name, value)
    check_learner_params(name, out)  # the checks across parameters
    return out


def help_text() -> str:
    """The bundled learners and their parameters, for --help (one line per learner, one per
    parameter)."""
    lines = []
    for name, cls in REGISTRY.items():
        lines.append(f"{name}: {cls.SUMMARY}")
        lines += [f"  {p.describe()}" for p in cls.PARAMS] or ["  (no parameters)"]
    return "\n".join(lines)


def make(
    game: Game, name: str, seed: int | None = None, *, engine: str = "numba", **params: Any
) -> ResumableLearner:
    """A fresh bundled learner: ``make(game, "ucb", seed=1, c=1.0)``. engine "python" runs the
    plain reference loop (identical tables, about 100x slower)."""
    return learner_class(name)(game, seed, engine=engine, **params)


def restore(run: Run, *, engine: str | None = None) -> ResumableLearner:
    """The learner positioned where `run` stopped (to play on with it); LearnerError when the
    run's learner cannot be resumed."""
    if not isinstance(run, Run):
        raise LearnerError(f"restore needs a learners.Run, got {type(run).__name__}")
    cls = run.learner_type if run.learner_type is not None else learner_class(run.name)
    if run.state is None or not callable(getattr(cls, "restore", None)):
        raise LearnerError(f"learner {run.name} cannot be resumed: it has no state()/restore()")
    extra = {} if engine is None else {"engine": engine}
    if cls in REGISTRY.values():
        state = run.state
    else:  # a user's class: give it copies it may keep and modify
        state = {k: np.array(v) if isinstance(v, np.ndarray) else v for k, v in run.state.items()}
    obj = cls.restore(run.game, run.seed, dict(run.params), state, **extra)
    _check_learner(obj)
    if obj.played != run.games:
        raise LearnerError(f"restored learner {run.name} has played {obj.played} games, "
                           f"not the run's {run.games}")
    return obj


# ---------------------------------------------------------------------------------- driving
_MEMBERS = ("name", "game", "seed", "played", "play", "tables")


def _check_learner(obj: Any) -> None:
    """LearnerError naming what `obj` lacks of the :class:`Learner` protocol."""
    missing = [m for m in _MEMBERS if not hasattr(obj, m)]
    if missing:
        raise LearnerError(
            f"{type(obj).__name__} is not a learner: it has no {', '.join(missing)} "
            f"(see dicejack.learners.Learner)"
        )
    if not isinstance(obj.game, Game):
        raise LearnerError(f"learner {obj.name}: its game is not a Game")


def _frozen_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a learner's state that nobody can change: arrays read-only copies, numpy
    scalars as Python ones, anything else deep-copied."""
    if not isinstance(state, Mapping):
        raise LearnerError(f"a learner's state() must give a dict, got {type(state).__name__}")
    out: dict[str, Any] = {}
    for key, value in state.items():
        if isinstance(value, np.ndarray):
            out[str(key)] = readonly(np.array(value, copy=True))
        elif isinstance(value, np.generic):
            out[str(key)] = value.item()
        else:
            out[str(key)] = copy.deepcopy(value)
    return out


class Session:
    """Drives any :class:`Learner`: plays to a number of games, keeps the tables at checkpoints,
    and hands out the :class:`Run` so far.

    Every call to the learner's play() is for whole games, so the learner (and the Run that
    :meth:`result` builds) is consistent whenever Python regains control; a caller may save a
    run after an interrupt between chunks.
    """

    def __init__(self, learner: Learner, snapshots: Mapping[int, Tables] | None = None) -> None:
        _check_learner(learner)
        self.learner = learner
        self.snapshots: dict[int, Tables] = dict(snapshots or {})

    @property
    def played(self) -> int:
        """Games the learner has played."""
        return int(self.learner.played)

    def play(self, games: int) -> None:
        """Play `games` more games; LearnerError if the learner does not play exactly that
        many."""
        games = check_games_limit(check_count("games", games))
        before = self.played
        self.learner.play(games)
        if self.played != before + games:
            raise LearnerError(
                f"learner {self.learner.name} was asked for {games} games and played "
                f"{self.played - before}"
            )

    def tables(self) -> Tables:
        """The learner's tables now, checked against its game."""
        return Tables.checked(self.learner.game, self.learner.tables())

    def snapshot(self) -> None:
        """Keep the tables under the current game count."""
        self.snapshots[self.played] = self.tables()

    def result(self) -> Run:
        """The run so far (copies; the learner plays on unaffected)."""
        obj = self.learner
        state = obj.state() if callable(getattr(obj, "state", None)) else None
        moves = getattr(obj, "moves", None)
        return Run(
            name=str(obj.name),
            params=dict(getattr(obj, "params", None) or {}),
            game=obj.game,
            games=self.played,
            seed=int(obj.seed),
            final=self.tables(),
            snapshots=dict(sorted(self.snapshots.items())),
            state=None if state is None else _frozen_state(state),
            moves=None if moves is None else int(moves),
            learner_type=type(obj),
        )

    def run_to(
        self,
        games: int,
        checkpoints: Iterable[int] = (),
        progress: Callable[[Session], None] | None = None,
        chunk_seconds: float | None = None,
    ) -> Run:
        """Play until `games` games in total, keeping the tables at each checkpoint (which must
        lie between the games played and `games`); return the run.

        With chunk_seconds, games are played in chunks sized to last about that long and
        progress(session) is called after each; chunking never changes the result.
        """
        games, marks = run_target(games, self.played, checkpoints)
        play_to(self, marks, games, progress, chunk_seconds)
        return self.result()


def _learner_for(
    game: Game, learner: Any, seed: int | None, engine: str | None, params: dict[str, Any]
) -> Learner:
    """A learner from a name, a class or an instance (see :func:`learn`)."""
    if not isinstance(game, Game):
        raise LearnerError(f"game must be a Game, got {type(game).__name__}")
    extra = {} if engine is None else {"engine": engine}
    if isinstance(learner, str):
        return make(game, learner, seed, **extra, **params)
    if isinstance(learner, type):
        obj = learner(game, seed, **extra, **params)
        _check_learner(obj)
        return obj
    _check_learner(learner)
    if params or engine is not None:
        raise LearnerError(
            f"learner {learner.name} is already built: pass its parameters and engine to its "
            "constructor, not to learn()"
        )
    if seed is not None and seed != learner.seed:
        raise LearnerError(f"learner {learner.name} has seed {learner.seed}, not {seed}")
    if learner.game != game:
        raise LearnerError(f"learner {learner.name} plays another game ({learner.game})")
    return learner


def learn(
    game: Game,
    learner: str | type | Learner = "handout",
    games: int = 100_000,
    seed: int | None = None,
    *,
    checkpoints: Iterable[int] = (),
    engine: str | None = None,
    progress: Callable[[Session], None] | None = None,
    chunk_seconds: float | None = None,
    **params: Any,
) -> Run:
    """Self-play until `games` games with the tables kept at each checkpoint; the :class:`Run`.

    `learner` is a bundled learner's name (:data:`NAMES`; `params` are its parameters, checked),
    a class called as ``cls(game, seed, **params)``, or a :class:`Learner` object, which plays on
    from where it is (then pass neither params nor engine, and seed only if it is the object's).
    seed=None draws a fresh seed (recorded in the run). engine "python" runs a bundled learner's
    reference loop (identical tables, about 100x slower).
    """
    obj = _learner_for(game, learner, seed, engine, params)
    return Session(obj).run_to(games, checkpoints, progress, chunk_seconds)


def resume(
    run: Run,
    games: int,
    *,
    checkpoints: Iterable[int] = (),
    engine: str | None = None,
    progress: Callable[[Session], None] | None = None,
    chunk_seconds: float | None = None,
) -> Run:
    """Continue `run` to `games` games in total; equals a straight run of that many games (its
    snapshots are kept, the new checkpoints added)."""
    obj = restore(run, engine=engine)
    return Session(obj, run.snapshots).run_to(games, checkpoints, progress, chunk_seconds)
