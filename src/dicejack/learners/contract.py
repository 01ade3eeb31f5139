"""The learner contract as a public check: :func:`check_learner` tells whether an object keeps the
promises :func:`dicejack.learners.learn` relies on (as scikit-learn's ``check_estimator`` does for
estimators). Every bundled learner passes it, of the handout's game or of any other protocol
game, and so should a user's own (docs/learners.md, docs/games.md).

Checked, each with a one-line LearnerError saying what broke:
- the protocol: ``name, game, seed, played, play(games), tables()``; on the handout's game, tables
  valid for it;
- determinism: two learners built alike (``type(obj)(game, seed, **params)``) give equal tables;
- chunking: playing in chunks gives the tables of one straight run;
- resuming (when the learner has ``state()`` and ``restore``): a run saved and restored, then
  played on, gives the tables of a straight run.
"""

from __future__ import annotations

from typing import Any

from dicejack.games.handout_rules import Game
from dicejack.learners.base import Tables, check_members
from dicejack.learners.checks import LearnerError, check_count
from dicejack.learners.session import Session, learn, resume

__all__ = ["check_learner"]


def _fresh(obj: Any) -> Any:
    """A new learner like `obj`, built as :func:`~dicejack.learners.learn` builds one from a
    class: ``type(obj)(game, seed, **params)``."""
    params = dict(getattr(obj, "params", None) or {})
    try:
        fresh = type(obj)(obj.game, obj.seed, **params)
    except Exception as exc:  # a user's class: say which call failed
        raise LearnerError(
            f"learner {obj.name}: type(obj)(game, seed, **params) failed: {exc}"
        ) from exc
    check_members(fresh)
    if fresh.played != 0:
        raise LearnerError(f"learner {obj.name}: a fresh learner has played {fresh.played} games")
    return fresh


def _same(name: str, what: str, a: Any, b: Any) -> None:
    if not a.equals(b):
        raise LearnerError(f"learner {name}: {what} gives other tables than a straight run")


def check_learner(obj: Any, games: int = 300) -> None:
    """Check that `obj` (a learner of any game, played or not; it is not changed) keeps the
    learner contract over `games` games of fresh learners like it; LearnerError naming the first
    broken promise.

    >>> from dicejack.games.handout_rules import Game
    >>> from dicejack.learners import make
    >>> check_learner(make(Game(4, 6, 7, 2), "ucb", seed=3), games=50)
    """
    check_members(obj)
    games = check_count("games", games)
    if games < 2:
        raise LearnerError(f"check_learner needs at least 2 games, got {games}")
    if isinstance(obj.game, Game):
        Tables.checked(obj.game, obj.tables())
    straight = learn(obj.game, _fresh(obj), games)
    again = learn(obj.game, _fresh(obj), games)
    _same(obj.name, "a second learner with the same seed", straight.final, again.final)
    chunked = Session(_fresh(obj))
    for step in (1, games // 3, games - 1 - games // 3):
        if step:
            chunked.play(step)
    _same(obj.name, "playing in chunks", straight.final, chunked.tables())
    if callable(getattr(obj, "state", None)) and callable(getattr(type(obj), "restore", None)):
        half = learn(obj.game, _fresh(obj), games // 2)
        _same(obj.name, "saving, restoring and playing on",
              straight.final, resume(half, games).final)
