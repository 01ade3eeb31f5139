"""The harness session: drives any learner (:class:`~.base.Learner`, of the handout's game or of
any protocol game) to a number of games, keeps the tables at checkpoints, and hands out the run:
the learner's own run type when it declares one (``RUN_TYPE``: the handout's learner's run adds
its counts), else a :class:`~.base.Run` for the handout's game and a
:class:`~.game_learners.GameRun` for any other. The one session every learner runs in;
:mod:`.session` adds learn and resume by name."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from dicejack.games.handout_rules import Game
from dicejack.learners.base import LearnedRun, Learner, Run, Tables, check_members, readonly
from dicejack.learners.checks import LearnerError, check_count, check_games_limit
from dicejack.learners.game_learners import GameRun
from dicejack.learners.playing import play_to, run_target

__all__ = ["Session"]


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
    """Drives any learner of any game: plays to a number of games, keeps the tables at
    checkpoints, and hands out the run so far (:class:`Run` for the handout's game, whose tables
    are checked against it; :class:`GameRun` for another).

    Every call to the learner's play() is for whole games, so the learner (and the Run that
    :meth:`result` builds) is consistent whenever Python regains control; a caller may save a
    run after an interrupt between chunks.
    """

    def __init__(self, learner: Learner | Any, snapshots: Mapping[int, Any] | None = None) -> None:
        check_members(learner)
        self.learner = learner
        self.handout = isinstance(learner.game, Game)
        self.snapshots: dict[int, Any] = dict(snapshots or {})

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

    def tables(self) -> Any:
        """The learner's tables now (of the handout's game: :class:`Tables`, checked)."""
        if self.handout:
            return Tables.checked(self.learner.game, self.learner.tables())
        return self.learner.tables()

    def snapshot(self) -> None:
        """Keep the tables under the current game count."""
        self.snapshots[self.played] = self.tables()

    def result(self) -> LearnedRun:
        """The run so far (copies; the learner plays on unaffected)."""
        obj = self.learner
        state = obj.state() if callable(getattr(obj, "state", None)) else None
        moves = getattr(obj, "moves", None)
        run_type = getattr(type(obj), "RUN_TYPE", Run if self.handout else GameRun)
        return run_type(
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
    ) -> LearnedRun:
        """Play until `games` games in total, keeping the tables at each checkpoint (which must
        lie between the games played and `games`); return the run.

        With chunk_seconds, games are played in chunks sized to last about that long and
        progress(session) is called after each; chunking never changes the result.
        """
        games, marks = run_target(games, self.played, checkpoints)
        play_to(self, marks, games, progress, chunk_seconds)
        return self.result()
