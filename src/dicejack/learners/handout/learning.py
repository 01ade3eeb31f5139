"""The handout's learner on the harness, as the handout names it: :func:`learn` (M, NGAMES, seed)
and :func:`resume`, each a :class:`dicejack.learners.harness.Session` of
:class:`~dicejack.learners.handout.learner.Handout` giving a
:class:`~dicejack.learners.handout.learner.HandoutRun` (the same run as
``dicejack.learners.learn(game, "handout", ...)``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

from dicejack.games.handout_rules import Game
from dicejack.learners.handout.learner import ENGINES, TIE_BREAKS, Handout, HandoutRun
from dicejack.learners.harness import Session

__all__ = ["HandoutRun", "TIE_BREAKS", "ENGINES", "learn", "resume"]


def learn(
    game: Game,
    m: float = 100.0,
    games: int = 100_000,
    seed: int | None = None,
    *,
    checkpoints: Iterable[int] = (),
    tie_break: str = "lowest",
    engine: str = "numba",
) -> HandoutRun:
    """Self-play `games` games from scratch; the tables kept at each checkpoint.

    seed=None draws a fresh seed (recorded in the run). engine="python" runs the reference loop:
    identical tables, about 100x slower.
    """
    learner = Handout(game, seed, engine=engine, m=m, tie_break=tie_break)
    return _handout_run(Session(learner).run_to(games, checkpoints))


def resume(
    run: HandoutRun, games: int, *, checkpoints: Iterable[int] = (), engine: str = "numba"
) -> HandoutRun:
    """Continue `run` to `games` games in total; equals a straight run of that many games."""
    session = Session(Handout.at(run, engine=engine), run.snapshots)
    return _handout_run(session.run_to(games, checkpoints))


def _handout_run(run: object) -> HandoutRun:
    """`run`, typed: the harness gives a Handout learner's run as its RUN_TYPE."""
    return cast(HandoutRun, run)
