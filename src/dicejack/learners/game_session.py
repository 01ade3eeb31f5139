"""The harness for learners of protocol games: :func:`learn_game` and :func:`resume_game` drive a
learner (by name, class or object) to a number of games with its tables kept at checkpoints
(the same chunked loop as every learner, :func:`dicejack.learners.playing.play_to`), and
:func:`check_game_learner` checks the contract :func:`dicejack.learners.check_learner` checks
for the handout's game: the same seed gives the same tables, chunks give the tables of a
straight run, and a run saved, restored and played on gives them too."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dicejack.learners.base import format_value, readonly
from dicejack.learners.checks import LearnerError, check_count, check_games_limit
from dicejack.learners.game_learners import GAME_LEARNERS, GameLearner, GameTables
from dicejack.learners.playing import play_to, run_target

__all__ = ["GameRun", "GameSession", "learn_game", "resume_game", "check_game_learner",
           "game_learner_class"]

_MEMBERS = ("name", "game", "seed", "played", "play", "tables")


def _check_member(obj: Any) -> None:
    missing = [m for m in _MEMBERS if not hasattr(obj, m)]
    if missing:
        raise LearnerError(f"{type(obj).__name__} is not a learner of protocol games: it has no "
                           f"{', '.join(missing)}")


def game_learner_class(name: str) -> type[GameLearner]:
    """The learner of protocol games called `name`; LearnerError listing them."""
    cls = GAME_LEARNERS.get(str(name).strip().lower().replace("_", "-"))
    if cls is None:
        raise LearnerError(f"no learner {name!r} for protocol games; the learners: "
                           f"{', '.join(GAME_LEARNERS)}")
    return cls


@dataclass(frozen=True, eq=False)
class GameRun:
    """A finished stretch of learning a protocol game (as :class:`dicejack.learners.Run`)."""

    name: str
    params: Mapping[str, Any]
    game: Any
    games: int
    seed: int
    final: GameTables
    snapshots: Mapping[int, GameTables] = field(default_factory=dict)
    state: Mapping[str, Any] | None = None
    moves: int | None = None
    learner_type: type | None = field(default=None, repr=False)

    @property
    def label(self) -> str:
        words = [self.name, *(f"{k}={format_value(v)}" for k, v in self.params.items())]
        return " ".join([*words, f"seed={self.seed}", f"games={self.games}"])


def _frozen(state: Mapping[str, Any]) -> dict[str, Any]:
    return {str(k): readonly(np.array(v, copy=True)) if isinstance(v, np.ndarray)
            else copy.deepcopy(v) for k, v in state.items()}


class GameSession:
    """Drives a learner of a protocol game; keeps its tables at checkpoints."""

    def __init__(self, learner: Any, snapshots: Mapping[int, GameTables] | None = None) -> None:
        _check_member(learner)
        self.learner = learner
        self.snapshots: dict[int, GameTables] = dict(snapshots or {})

    @property
    def played(self) -> int:
        return int(self.learner.played)

    def play(self, games: int) -> None:
        games = check_games_limit(check_count("games", games))
        before = self.played
        self.learner.play(games)
        if self.played != before + games:
            raise LearnerError(f"learner {self.learner.name} was asked for {games} games and "
                               f"played {self.played - before}")

    def snapshot(self) -> None:
        self.snapshots[self.played] = self.learner.tables()

    def result(self) -> GameRun:
        obj = self.learner
        state = obj.state() if callable(getattr(obj, "state", None)) else None
        moves = getattr(obj, "moves", None)
        return GameRun(str(obj.name), dict(getattr(obj, "params", None) or {}), obj.game,
                       self.played, int(obj.seed), obj.tables(),
                       dict(sorted(self.snapshots.items())),
                       None if state is None else _frozen(state),
                       None if moves is None else int(moves), type(obj))

    def run_to(self, games: int, checkpoints: Iterable[int] = (),
               progress: Callable[[GameSession], None] | None = None,
               chunk_seconds: float | None = None) -> GameRun:
        games, marks = run_target(games, self.played, checkpoints)
        play_to(self, marks, games, progress, chunk_seconds)
        return self.result()


def learn_game(
    game: Any,
    learner: str | type | Any = "q-learning",
    games: int = 10_000,
    seed: int | None = None,
    *,
    checkpoints: Iterable[int] = (),
    progress: Callable[[GameSession], None] | None = None,
    chunk_seconds: float | None = None,
    **params: Any,
) -> GameRun:
    """Self-play of protocol game `game` to `games` games: `learner` a name
    (:data:`~dicejack.learners.game_learners.GAME_LEARNERS`), a class called
    ``cls(game, seed, **params)``, or a learner object (then no params)."""
    if isinstance(learner, str):
        obj = game_learner_class(learner)(game, seed, **params)
    elif isinstance(learner, type):
        obj = learner(game, seed, **params)
    else:
        if params:
            raise LearnerError(f"learner {learner.name} is already built: pass its parameters "
                               "to its constructor")
        obj = learner
    return GameSession(obj).run_to(games, checkpoints, progress, chunk_seconds)


def resume_game(run: GameRun, games: int, *, checkpoints: Iterable[int] = ()) -> GameRun:
    """Continue `run` to `games` games in total; equals a straight run of that many."""
    if run.state is None or run.learner_type is None or not hasattr(run.learner_type,
                                                                    "restore"):
        raise LearnerError(f"run of {run.name} cannot be resumed (no state)")
    obj = run.learner_type.restore(run.game, run.seed, run.params, run.state)
    return GameSession(obj, run.snapshots).run_to(games, checkpoints)


def _fresh(obj: Any) -> Any:
    params = dict(getattr(obj, "params", None) or {})
    try:
        fresh = type(obj)(obj.game, obj.seed, **params)
    except Exception as exc:  # a user's class: say which call failed
        raise LearnerError(f"learner {obj.name}: type(obj)(game, seed, **params) failed: "
                           f"{exc}") from exc
    _check_member(fresh)
    if fresh.played != 0:
        raise LearnerError(f"learner {obj.name}: a fresh learner has played {fresh.played} games")
    return fresh


def check_game_learner(obj: Any, games: int = 300) -> None:
    """The learner contract (as :func:`dicejack.learners.check_learner`) for a learner of a
    protocol game: determinism per seed, chunking, and saving/restoring; LearnerError naming
    the first broken promise. `obj` is not changed."""
    _check_member(obj)
    games = check_count("games", games)
    if games < 2:
        raise LearnerError(f"check_game_learner needs at least 2 games, got {games}")

    def same(what: str, a: GameTables, b: GameTables) -> None:
        if not a.equals(b):
            raise LearnerError(f"learner {obj.name}: {what} gives other tables than a straight "
                               "run")

    straight = learn_game(obj.game, _fresh(obj), games)
    again = learn_game(obj.game, _fresh(obj), games)
    same("a second learner with the same seed", straight.final, again.final)
    chunked = GameSession(_fresh(obj))
    for step in (1, games // 3, games - 1 - games // 3):
        if step:
            chunked.play(step)
    same("playing in chunks", straight.final, chunked.learner.tables())
    if callable(getattr(obj, "state", None)) and callable(getattr(type(obj), "restore", None)):
        half = learn_game(obj.game, _fresh(obj), games // 2)
        same("saving, restoring and playing on", straight.final, resume_game(half, games).final)
