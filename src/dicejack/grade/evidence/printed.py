"""What a printed table means: the one rule that turns a program's two printed arrays into the
values and J that are graded (docs/grading.md, "What is graded"), so that every choice the
handout leaves free (no-data and lost-state conventions, tie-breaking, rounding) grades alike."""

from __future__ import annotations

from typing import Any

import numpy as np

from dicejack import compare
from dicejack.compare.learned import Learned
from dicejack.games.handout_rules import Game

__all__ = ["graded_tables", "graded_learned", "printed_decimals", "as_printed"]


def graded_tables(
    game: Game, policy: Any, probability: Any, no_data: Any = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The printed tables as graded: (J, value, J is valid), each (L, L).

    This is the one rule that makes the grade independent of how a program prints what the
    handout leaves open (docs/grading.md, "What is graded"):

    * value: the printed estimate where it is a number in [0, 1] and not a no-data marker
      (`no_data`: the reader's mask of -1, nan, n/a, ...); **0 everywhere else**. "No data" and
      "estimate 0" (every J lost: handout caveat A) are one graded value, because programs print
      either one as "0 / 0", "J / 0.0" or "-1" and the tables cannot tell them apart;
    * J: the printed number of dice where the value is above 0 and the J is a whole number in
      1..NDice; 0 elsewhere: beside "no data or estimate 0" any J may be printed (the handout's
      tie-break J, a random J, 0, -1), so it carries no information and is not graded;
    * valid: the printed J is a whole number in 1..NDice (for the format flags).
    """
    prob = np.asarray(probability, dtype=np.float64)
    pol = np.asarray(policy, dtype=np.float64)
    mask = (prob == -1) if no_data is None else np.asarray(no_data, dtype=bool)
    valid = np.isfinite(pol) & (pol == np.round(pol)) & (pol >= 1) & (pol <= game.n_dice)
    est = ~mask & np.isfinite(prob) & (prob >= 0) & (prob <= 1)
    value = np.where(est, prob, 0.0)
    j = np.where(valid & (value > 0), pol, 0).astype(np.int64)
    return j, value, valid


def graded_learned(game: Game, policy: np.ndarray, value: np.ndarray, source: str = ""
                   ) -> Learned:
    """Graded tables (:func:`graded_tables`) as compare's Learned: a state has data where its
    value is above 0 and its J is valid, so the quality metrics obey the same rule."""
    has = (policy >= 1) & (value > 0)
    return compare.learned_from_tables(game, np.where(has, policy, 0),
                                       np.where(has, value, -1.0), source=source)


def as_printed(best: np.ndarray, probability: np.ndarray, decimals: int | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """A learned run's tables (lowest tied best J, 0 = no data; estimate, -1 = no data) printed
    as dicejack prints them with `decimals` decimals (None: full precision), as graded:
    (J, value), any leading axes kept. The one rule for the held-out calibration runs, the probe
    runs and the bug models' runs alike: value is the estimate where a J was learned (rounded),
    else 0; J only where the value is above 0 (:func:`graded_tables`)."""
    best = np.asarray(best)
    value = np.where(best >= 1, np.maximum(probability, 0.0), 0.0)
    if decimals is not None:
        value = np.round(value, decimals)
    return np.where(value > 0, best, 0).astype(np.int64), value


def printed_decimals(values: np.ndarray, limit: int = 10) -> int | None:
    """The fewest decimals d <= `limit` that reproduce every value, or None (full precision).

    Absolute test: v * 10**d is within 1e-6 of a whole number. numpy prints 8 decimals by
    default: such a table must be compared with references rounded to 8 decimals too, or a
    printed 0.33333333 ranks below every reference run's 1/3 (ties are common at few games).
    """
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return None
    for d in range(limit + 1):
        scaled = v * 10.0**d
        if np.all(np.abs(scaled - np.round(scaled)) <= 1e-6):
            return d
    return None
