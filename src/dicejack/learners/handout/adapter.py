"""The handout's counting learner behind the generic learner interface (the learner `handout`).

An adapter over :class:`dicejack.learners.handout.Session`, which does all the work: the same
tables for the same seed as :func:`dicejack.learners.handout.learn`, the same compiled loop held to
the same reference (engine "python"), and the same exact resumption. Parameters: m (M, the handout's
explore/exploit constant) and tie_break (how B is chosen among tied f_J).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dicejack.game import Game
from dicejack.learners.base import (
    Bundled,
    Param,
    Tables,
    generator_from_text,
    rng_state_text,
    state_int,
)
from dicejack.learners.counting import check_counts, count_tables
from dicejack.learners.formulas import check_m
from dicejack.learners.handout import session as handout_session

__all__ = ["Handout"]


class Handout(Bundled):
    """The handout's learner as a :class:`~dicejack.learners.base.ResumableLearner`.

    ``Handout(game, seed=None, *, engine="numba", m=100.0, tie_break="lowest")``; `session` is
    the underlying :class:`dicejack.learners.handout.Session`.
    """

    NAME = "handout"
    #: The keys of :meth:`state` (a run file holds exactly these; others are refused unread).
    STATE_KEYS = ("win", "lose", "games", "moves", "rng_state")
    SUMMARY = "the handout's counting learner (p_J explore rule)"
    PARAMS = (
        Param("m", 100.0, "M, the handout's explore/exploit constant", low=0.0),
        Param("tie_break", "lowest", "B among tied f_J", kind="choice",
              choices=handout_session.TIE_BREAKS),
    )

    def __init__(
        self, game: Game, seed: int | None = None, *, engine: str = "numba", **params: Any
    ) -> None:
        self.setup(game, seed, params, engine)
        self.params["m"] = check_m(self.params["m"], game.n_dice)
        self.session = handout_session.Session(
            game, self.params["m"], self.seed, tie_break=self.params["tie_break"], engine=engine
        )

    @classmethod
    def from_learn_run(cls, run: handout_session.LearnRun, *, engine: str = "numba") -> Handout:
        """The learner positioned where a :class:`dicejack.learners.handout.LearnRun` stopped."""
        obj = cls(run.game, run.seed, engine=engine, m=run.m, tie_break=run.tie_break)
        obj.session = handout_session.Session(run.game, engine=engine, start=run)
        return obj

    def learn_run(self) -> handout_session.LearnRun:
        """The run so far as the handout learner's own :class:`~dicejack.learners.handout.LearnRun`
        (what `dicejack learn` saves), without snapshots."""
        return self.session.result()

    @property
    def played(self) -> int:
        """Games played so far."""
        return self.session.played

    @property
    def moves(self) -> int:
        """Moves played so far."""
        return self.session.moves

    def play(self, games: int) -> None:
        """Play `games` more games (chunking never changes the result)."""
        self.session.play(games)

    def tables(self) -> Tables:
        """The handout's two output arrays (:func:`~dicejack.learners.formulas.learned_tables`),
        and the visits."""
        return count_tables(self.session.win, self.session.lose)

    def state(self) -> dict[str, Any]:
        """win, lose (copies), games, moves and rng_state (JSON text)."""
        return {
            "win": self.session.win.copy(),
            "lose": self.session.lose.copy(),
            "games": self.played,
            "moves": self.moves,
            "rng_state": rng_state_text(self.session.rng),
        }

    @classmethod
    def restore(
        cls, game: Game, seed: int, params: Mapping[str, Any], state: Mapping[str, Any], *,
        engine: str = "numba",
    ) -> Handout:
        """The learner that `state` (from :meth:`state`) describes; LearnerError if the counts
        do not add up to its games and moves or the generator state is not PCG64's."""
        obj = cls(game, seed, engine=engine, **params)
        games, moves = state_int(state, "games"), state_int(state, "moves")
        win, lose = check_counts(game, state, games, moves)
        rng_state = generator_from_text(state.get("rng_state")).bit_generator.state
        run = handout_session.LearnRun(
            game=game, m=obj.params["m"], games=games, seed=obj.seed,
            win=handout_session.frozen_counts(win), lose=handout_session.frozen_counts(lose),
            rng_state=rng_state, tie_break=obj.params["tie_break"], moves=moves,
        )
        obj.session = handout_session.Session(game, engine=engine, start=run)
        return obj
