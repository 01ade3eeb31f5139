"""The checks and limits every learner shares: its error, whole numbers, seeds, the size of a run
in games and of a learner's tables in memory, and a rough duration for messages. The ground of
:mod:`dicejack.learners`: it imports nothing of dicejack but the game."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dicejack.games.handout_rules import Game
from dicejack.runtime.messages import DicejackError

__all__ = [
    "LearnerError",
    "LEARNER_BYTES_LIMIT",
    "CDF_ENTRIES_LIMIT",
    "GAMES_LIMIT",
    "GAMES_PER_SECOND",
    "SEED_LIMIT",
    "check_count",
    "check_choice",
    "check_games_limit",
    "check_seed",
    "check_table_sizes",
    "duration_text",
]


class LearnerError(DicejackError, ValueError):
    """Invalid learner input (a parameter, a table, a run); the message is one line."""


#: Largest memory the learner's two int64 tables plus snapshots may take.
LEARNER_BYTES_LIMIT = 8 * 2**30


#: Largest exact dice-sum CDF table (n_dice + 1) * (n_dice * n_sides + 1) the learner builds.
CDF_ENTRIES_LIMIT = 2**22


#: Most games one run may be asked for: 10**12, about two days on one core at the rate below
#: (and far below int64, whose overflow would corrupt the counts).
GAMES_LIMIT = 10**12


#: Learner games per second on one core, the handout's game (measured; for time estimates only).
GAMES_PER_SECOND = 6_000_000


#: Largest seed stored in run files (a non-negative int64).
SEED_LIMIT = 2**63



# ---------------------------------------------------------------------------------- checks
def check_count(name: str, value: object) -> int:
    """A whole number >= 0 (games, checkpoints); LearnerError otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise LearnerError(f"{name} must be a whole number, got {value!r}")
    if value < 0:
        raise LearnerError(f"{name} must be >= 0, got {value}")
    return int(value)


def duration_text(seconds: float) -> str:
    """A rough duration for the user: '40 minutes', '3 days', '5,300 years'."""
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("hours", 3600),
                       ("minutes", 60)):
        if seconds >= 2 * size:
            amount = seconds / size
            return f"{amount:,.0f} {unit}" if amount < 1e15 else f"{amount:.1e} {unit}"
    return f"{seconds:.0f} seconds"


def check_games_limit(games: int, name: str = "games", limit: int = GAMES_LIMIT) -> int:
    """`games` if it is at most `limit`; else a LearnerError naming the size and the time it
    would take at :data:`GAMES_PER_SECOND`."""
    if games > limit:
        try:
            took = f"about {duration_text(games / GAMES_PER_SECOND)}"
        except OverflowError:
            took = "longer than the universe"
        shown = f"{games:,}" if games < 10**30 else f"~10^{int(games.bit_length() * 0.30103)}"
        raise LearnerError(
            f"{name} {shown} is more than the limit of {limit:,} games (it would take {took} "
            f"at {GAMES_PER_SECOND:,} games/s)"
        )
    return games


def check_seed(seed: object) -> int:
    """A seed in 0..2**63-1 (None draws a fresh one); LearnerError otherwise."""
    if seed is None:
        return int(np.random.SeedSequence().entropy % SEED_LIMIT)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise LearnerError(f"seed must be a whole number, got {seed!r}")
    if not 0 <= seed < SEED_LIMIT:
        raise LearnerError(f"seed must be in 0..2**63-1, got {seed}")
    return int(seed)


def check_choice(name: str, value: str, allowed: Sequence[str]) -> str:
    if value not in allowed:
        raise LearnerError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
    return value


def check_table_sizes(game: Game, need: int, name: str, tables: str = "tables") -> None:
    """A learner's limits: `need` bytes of `tables` within :data:`LEARNER_BYTES_LIMIT` and the
    game's exact dice-sum CDF within :data:`CDF_ENTRIES_LIMIT`; else a LearnerError naming the
    learner (`name`, e.g. "the learner") and its `tables`."""
    if need > LEARNER_BYTES_LIMIT:
        raise LearnerError(
            f"game too large for {name}: its {tables} need {need / 2**30:.1f} GiB, over the "
            f"{LEARNER_BYTES_LIMIT / 2**30:.0f} GiB limit"
        )
    entries = (game.n_dice + 1) * (game.n_dice * game.n_sides + 1)
    if entries > CDF_ENTRIES_LIMIT:
        raise LearnerError(
            f"NDice={game.n_dice} is too large for {name}'s exact dice-sum tables "
            f"((NDice+1)*(NDice*NSides+1) = {entries} entries, limit {CDF_ENTRIES_LIMIT})"
        )

