"""Learning and resuming on the harness (:class:`~.harness.Session`, re-exported here):
:func:`learn` and :func:`resume` for a learner given by name, class or object, of any game.

The handout's game (a :class:`~dicejack.games.handout_rules.Game`, or a
:class:`~dicejack.games.HandoutGame`, its protocol view) runs its own learners (handout,
q-learning, mc-epsilon, ucb, thompson) into a :class:`~.base.Run`; any other protocol game of
:mod:`dicejack.games` runs the learners of :mod:`~.game_learners` (q-learning,
mc-exploring-starts, counting) into a :class:`~.game_learners.GameRun`. Which learners play which
game: :func:`dicejack.learners.catalogue.learners_for`."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from dicejack.games.handout import HandoutGame
from dicejack.games.handout_rules import Game
from dicejack.games.information import is_information_game
from dicejack.learners.base import LearnedRun, Learner, Run, check_members, check_protocol
from dicejack.learners.catalogue import (
    game_learner_class,
    handout_rules,
    is_handout_game,
    make,
    restore,
)
from dicejack.learners.checks import LearnerError
from dicejack.learners.game_learners import GameLearner, GameRun
from dicejack.learners.harness import Session

__all__ = ["Session", "learn", "resume"]

#: The learner :func:`learn` runs when none is named: the handout's on the handout's game,
#: q-learning on any other.
DEFAULT_LEARNERS = {True: "handout", False: "q-learning"}


def _learner_for(
    game: Game, learner: Any, seed: int | None, engine: str | None, params: dict[str, Any]
) -> Learner:
    """A learner of the handout's game from a name, a class or an instance (see :func:`learn`)."""
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
    _check_built(learner, game, seed, engine, params)
    return learner


def _check_built(learner: Any, game: Any, seed: int | None, engine: str | None,
                 params: dict[str, Any]) -> None:
    """A learner object given to :func:`learn`: no parameters, engine or other seed or game."""
    if params or engine is not None:
        raise LearnerError(
            f"learner {learner.name} is already built: pass its parameters and engine to its "
            "constructor, not to learn()"
        )
    if seed is not None and seed != learner.seed:
        raise LearnerError(f"learner {learner.name} has seed {learner.seed}, not {seed}")
    if learner.game != game:
        raise LearnerError(f"learner {learner.name} plays another game ({learner.game})")


def _game_learner_for(
    game: Any, learner: Any, seed: int | None, engine: str | None, params: dict[str, Any]
) -> Any:
    """A learner of protocol game `game` (not the handout's) from a name, a class or an
    instance."""
    extra = {} if engine is None else {"engine": engine}
    if isinstance(learner, str):
        return game_learner_class(learner, game)(game, seed, **extra, **params)
    if isinstance(learner, type):
        obj = learner(game, seed, **extra, **params)
        check_members(obj)
        return obj
    check_members(learner)
    _check_built(learner, game, seed, engine, params)
    return learner


def _plays_protocol(learner: Any) -> bool:
    """True for a learner class or object of protocol games given for the handout's game (a
    game learner on HandoutGame, its protocol view): it runs as on any protocol game."""
    if isinstance(learner, type):
        return issubclass(learner, GameLearner)
    return learner is not None and not isinstance(learner, str) and hasattr(learner, "game") \
        and not isinstance(learner.game, Game)


def learn(
    game: Any = None,
    learner: str | type | Learner | None = None,
    games: int = 100_000,
    seed: int | None = None,
    *,
    checkpoints: Iterable[int] = (),
    engine: str | None = None,
    progress: Callable[[Session], None] | None = None,
    chunk_seconds: float | None = None,
    **params: Any,
) -> LearnedRun:
    """Self-play of `game` until `games` games with the tables kept at each checkpoint; the run.

    `game`: the handout's game (a Game or a HandoutGame; None: the handout's defaults, 6 15 17
    2), giving a :class:`Run` exactly as the handout's learners always have, or any other
    protocol game of :mod:`dicejack.games`, giving a :class:`GameRun`. `learner` is a bundled
    learner's name (:func:`~dicejack.learners.catalogue.learners_for` the game; default handout
    for the handout's game, cfr for a game with hidden information, q-learning for another;
    `params` are its parameters, checked), a
    class called as ``cls(game, seed, **params)``, or a learner object, which plays on from
    where it is (then pass neither params nor engine, and seed only if it is the object's).
    seed=None draws a fresh seed (recorded in the run). engine "python" runs a bundled learner's
    reference loop (identical tables, far slower).
    """
    if game is None:
        game = HandoutGame()
    handout = is_handout_game(game) and not _plays_protocol(learner)
    if learner is None:
        learner = DEFAULT_LEARNERS[handout] if handout or not is_information_game(game) \
            else "cfr"
    if handout:
        obj = _learner_for(handout_rules(game), learner, seed, engine, params)
    else:
        obj = _game_learner_for(game, learner, seed, engine, params)
    return Session(obj).run_to(games, checkpoints, progress, chunk_seconds)


def resume(
    run: LearnedRun,
    games: int,
    *,
    checkpoints: Iterable[int] = (),
    engine: str | None = None,
    progress: Callable[[Session], None] | None = None,
    chunk_seconds: float | None = None,
) -> LearnedRun:
    """Continue `run` (of any game) to `games` games in total; equals a straight run of that
    many games (its snapshots are kept, the new checkpoints added)."""
    if isinstance(run, Run):
        obj = restore(run, engine=engine)
    elif isinstance(run, GameRun):
        obj = _restore_game_run(run, engine)
    else:
        raise LearnerError(f"resume needs a run of learn(), got {type(run).__name__}")
    return Session(obj, run.snapshots).run_to(games, checkpoints, progress, chunk_seconds)


def _restore_game_run(run: GameRun, engine: str | None) -> Any:
    """The learner of a protocol game positioned where `run` stopped."""
    cls = run.learner_type
    if run.state is None or cls is None or not callable(getattr(cls, "restore", None)):
        raise LearnerError(f"run of {run.name} cannot be resumed (no state)")
    extra = {} if engine is None else {"engine": engine}
    obj = cls.restore(run.game, run.seed, dict(run.params), run.state, **extra)
    check_members(obj)
    if obj.played != run.games:
        raise LearnerError(f"restored learner {run.name} has played {obj.played} games, "
                           f"not the run's {run.games}")
    return obj
