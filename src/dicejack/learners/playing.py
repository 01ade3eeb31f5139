"""Playing a learner to a number of games in chunks, with the tables kept at checkpoints: the loop
the harness (:class:`dicejack.learners.harness.Session`) drives every learner with. Chunking never
changes what is learnt; it only lets progress be shown and an interrupt land between whole
games."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from dicejack.learners.checks import LearnerError, check_count, check_games_limit

__all__ = ["checkpoint_marks", "run_target", "play_to"]


def checkpoint_marks(checkpoints: Iterable[int], played: int, games: int) -> list[int]:
    """The checkpoints, sorted without repeats; LearnerError unless each lies in played..games."""
    marks = sorted({check_count("checkpoint", c) for c in checkpoints})
    bad = [c for c in marks if not played <= c <= games]
    if bad:
        raise LearnerError(
            f"checkpoints must lie in {played}..{games}, got {', '.join(map(str, bad))}"
        )
    return marks


def run_target(
    games: int, played: int, checkpoints: Iterable[int] = ()
) -> tuple[int, list[int]]:
    """(games, marks) for a session that has `played` games and is to play to `games` in total:
    `games` a whole number within :data:`GAMES_LIMIT` and at least `played`, the checkpoints as
    :func:`checkpoint_marks` gives them; LearnerError otherwise."""
    games = check_games_limit(check_count("games", games))
    if games < played:
        raise LearnerError(f"the run already has {played} games; games must be >= that")
    return games, checkpoint_marks(checkpoints, played, games)


def play_to(
    session: Any,
    marks: Sequence[int],
    games: int,
    progress: Callable[[Any], None] | None = None,
    chunk_seconds: float | None = None,
) -> None:
    """Play `session` (anything with ``played``, ``play(n)`` and ``snapshot()``) to `games` games,
    with a snapshot at each mark. With chunk_seconds, games go in chunks sized to last about that
    long, progress(session) after each; chunking never changes what is learnt."""
    chunk = 1_000 if chunk_seconds is not None else None
    for target in [*marks, games]:
        while session.played < target:
            left = target - session.played
            step = left if chunk is None else min(left, chunk)
            started = time.perf_counter()
            session.play(step)
            if chunk_seconds is not None:
                took = max(time.perf_counter() - started, 1e-6)
                chunk = max(1, min(10 * step, int(step * chunk_seconds / took)))
            if progress is not None:
                progress(session)
        if target in marks:
            session.snapshot()

