"""Learning and resuming on the harness (:class:`~.harness.Session`, re-exported here):
:func:`learn` and :func:`resume` for a learner given by name, class or object."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from dicejack.games.handout_rules import Game
from dicejack.learners.base import Learner, Run, check_protocol
from dicejack.learners.catalogue import make, restore
from dicejack.learners.checks import LearnerError
from dicejack.learners.harness import Session

__all__ = ["Session", "learn", "resume"]


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

