"""The generic session: drives any learner of the protocol (:class:`~.base.Learner`) to a number
of games with the tables kept at checkpoints, and hands out the :class:`~.base.Run`; :func:`learn`
and :func:`resume` for a learner given by name, class or object."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from dicejack.game import Game
from dicejack.learners.base import Learner, Run, Tables, check_protocol, readonly
from dicejack.learners.checks import LearnerError, check_count, check_games_limit
from dicejack.learners.playing import play_to, run_target
from dicejack.learners.registry import make, restore

__all__ = ["Session", "learn", "resume"]


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
        check_protocol(learner)
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
        check_protocol(obj)
        return obj
    check_protocol(learner)
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

