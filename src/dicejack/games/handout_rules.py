"""The rules of the handout's dice game, defined once.

Two players alternately roll 1..n_dice dice with n_sides sides and add the total to their score.
A player whose score lands in [low, high] wins at once; one who passes high loses at once.
A state <x, y> is (points of the player about to move, points of the opponent); the non-terminal
states are exactly 0 <= x, y < low.

Everything else in dicejack (solver, learner, compare, grade) takes its rules from here.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import NamedTuple

import numpy as np

from dicejack.runtime.messages import DicejackError

#: The public face (docs/design/api.md; tests/test_public_faces.py holds it). The rules'
#: helpers (outcome, roll_total, Successor, MOVER_WINS, MOVER_LOSES, CONTINUES), the size limit
#: and the DicejackError re-export stay importable by name for the other layers.
__all__ = ["Game", "GameError", "HANDOUT_GAME"]

#: Largest Q table (low * low * (n_dice + 1) float64) a Game may ask for: 16 GiB, which leaves
#: room on a 24 GiB machine for the solver's working memory.
TABLE_BYTES_LIMIT = 16 * 2**30

#: Outcomes of a roll, see :meth:`Game.outcome`.
MOVER_WINS, MOVER_LOSES, CONTINUES = 1, -1, 0


def outcome(score: int, low: int, high: int) -> int:
    """The handout's rule, defined once: a mover whose new score passes UTarget (`high`) loses
    at once, one who reaches [LTarget, UTarget] wins at once, else the game continues.
    Returns MOVER_LOSES, MOVER_WINS or CONTINUES. (The compiled kernels apply the same two
    comparisons; tests hold them to this.)"""
    if score > high:
        return MOVER_LOSES
    if score >= low:
        return MOVER_WINS
    return CONTINUES


def roll_total(cdf_row: Sequence[float], u: float) -> int:
    """The total of J dice drawn from one uniform `u` in [0, 1), defined once: the smallest total
    t with u < P(total <= t), `cdf_row` being row J of :attr:`Game.sum_cdf_table`. (The compiled
    kernels draw the same way, through a guide table; tests hold them to this.)"""
    return min(bisect_right(cdf_row, u), len(cdf_row) - 1)


class Successor(NamedTuple):
    """One chance outcome of rolling J dice at <x, y>: the total, its probability, what it means
    for the mover (MOVER_WINS, MOVER_LOSES, CONTINUES) and the next state <y, x + total> (None
    when the game ends)."""

    total: int
    probability: float
    outcome: int
    state: tuple[int, int] | None


class GameError(DicejackError, ValueError):
    """Invalid game parameters."""


def _check_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise GameError(f"{name} must be an integer, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class Game:
    """Game parameters, validated.

    n_sides (NSides): faces 1..n_sides; low (LTarget) and high (UTarget): the winning range;
    n_dice (NDice): the most dice one turn may roll.

    >>> Game(n_sides=6, low=15, high=17, n_dice=2).states
    225
    """

    n_sides: int
    low: int
    high: int
    n_dice: int

    def __post_init__(self) -> None:
        for name in ("n_sides", "low", "high", "n_dice"):
            object.__setattr__(self, name, _check_int(name, getattr(self, name)))
        if self.n_sides < 1:
            raise GameError(f"n_sides (NSides) must be >= 1, got {self.n_sides}")
        if self.n_dice < 1:
            raise GameError(f"n_dice (NDice) must be >= 1, got {self.n_dice}")
        if self.low < 1:
            raise GameError(f"low (LTarget) must be >= 1, got {self.low}")
        if self.high < self.low:
            raise GameError(
                f"high (UTarget) must be >= low (LTarget), got low={self.low}, high={self.high}"
            )
        if self.table_bytes > TABLE_BYTES_LIMIT:
            raise GameError(
                f"game too large: its tables need low*low*(n_dice+1) = "
                f"{self.low}*{self.low}*{self.n_dice + 1} float64 = "
                f"{self.table_bytes / 2**30:.1f} GiB, over the {TABLE_BYTES_LIMIT / 2**30:.0f} GiB "
                "limit"
            )
        # The largest roll total must fit the int64 arithmetic of the compiled kernels.
        if self.n_sides * self.n_dice + self.high > 2**62:
            raise GameError("n_sides * n_dice + high is too large for 64-bit scores")

    # ----------------------------------------------------------------------------- sizes
    @property
    def shape(self) -> tuple[int, int]:
        """Shape of the state tables: (low, low), indexed [x, y]."""
        return (self.low, self.low)

    @property
    def table_shape(self) -> tuple[int, int, int]:
        """Shape of per-action tables: (low, low, n_dice + 1), column j = 0 unused."""
        return (self.low, self.low, self.n_dice + 1)

    @property
    def states(self) -> int:
        """Number of non-terminal states <x, y>."""
        return self.low * self.low

    @property
    def table_bytes(self) -> int:
        """Bytes of one float64 table of shape :attr:`table_shape`."""
        return self.low * self.low * (self.n_dice + 1) * 8

    def params(self) -> dict[str, int]:
        """The four parameters as a plain dict (the `params` object of every file format)."""
        return {
            "n_sides": self.n_sides,
            "low": self.low,
            "high": self.high,
            "n_dice": self.n_dice,
        }

    def label(self) -> str:
        """Short name used for folders, e.g. ``s6-l15-h17-d2``."""
        return f"s{self.n_sides}-l{self.low}-h{self.high}-d{self.n_dice}"

    def __str__(self) -> str:
        return (
            f"NSides={self.n_sides}, LTarget={self.low}, UTarget={self.high}, NDice={self.n_dice}"
        )

    # ----------------------------------------------------------------------------- rules
    def outcome(self, score: int) -> int:
        """What a mover's new score means: MOVER_WINS, MOVER_LOSES or CONTINUES."""
        return outcome(score, self.low, self.high)

    # ------------------------------------------------------------- dice-sum distributions
    def sum_counts(self, j: int) -> list[int]:
        """Exact counts of each total of j dice: entry t is #ways to roll t, over n_sides**j.

        Python integers, so exact for any size. Index 0..j-1 are zero.
        """
        return list(self._sum_counts_all[self._check_j(j)])

    def sum_fractions(self, j: int) -> list[Fraction]:
        """Exact probability of each total t of j dice, as Fractions (index = total)."""
        denominator = self.n_sides ** self._check_j(j)
        return [Fraction(c, denominator) for c in self._sum_counts_all[j]]

    def sum_probabilities(self, j: int) -> np.ndarray:
        """float64 probability of each total t of j dice (index = total, length j*n_sides+1)."""
        return self.sum_probability_table[self._check_j(j), : j * self.n_sides + 1].copy()

    @cached_property
    def sum_probability_table(self) -> np.ndarray:
        """(n_dice + 1, n_dice * n_sides + 1) float64: row j is the distribution of j dice.

        Each entry is the exact count divided by n_sides**j, rounded once. Row 0 is [1, 0, ...].
        """
        width = self.n_dice * self.n_sides + 1
        table = np.zeros((self.n_dice + 1, width))
        for j, counts in enumerate(self._sum_counts_all):
            denominator = self.n_sides**j
            table[j, : len(counts)] = [c / denominator for c in counts]
        table.setflags(write=False)
        return table

    @cached_property
    def sum_cdf_table(self) -> np.ndarray:
        """(n_dice + 1, n_dice * n_sides + 1) float64: P(j dice total <= t), exact then rounded."""
        width = self.n_dice * self.n_sides + 1
        table = np.zeros((self.n_dice + 1, width))
        for j, counts in enumerate(self._sum_counts_all):
            denominator = self.n_sides**j
            running = 0
            for t in range(width):
                if t < len(counts):
                    running += counts[t]
                table[j, t] = running / denominator
        table.setflags(write=False)
        return table

    @cached_property
    def _sum_counts_all(self) -> tuple[tuple[int, ...], ...]:
        """Exact counts for j = 0..n_dice, by repeated convolution with one die (Python ints).

        The dice-count limit keeps this cheap: the widest row has n_dice*n_sides+1 entries.
        """
        if self.n_dice * self.n_sides > 10_000_000:
            raise GameError(
                f"n_dice * n_sides = {self.n_dice * self.n_sides} is too large for exact dice-sum "
                "tables (limit 10,000,000)"
            )
        rows: list[tuple[int, ...]] = [(1,)]
        s = self.n_sides
        # Window-sum convolution with the uniform die, in exact integers: O(width) per row.
        for _ in range(self.n_dice):
            prev = rows[-1]
            width = len(prev) + s
            new = [0] * width
            prefix = [0] * (len(prev) + 1)
            for i, c in enumerate(prev):
                prefix[i + 1] = prefix[i] + c
            for t in range(1, width):
                hi = min(t - 1, len(prev) - 1)
                lo = max(t - s, 0)
                if hi >= lo:
                    new[t] = prefix[hi + 1] - prefix[lo]
            rows.append(tuple(new))
        return tuple(rows)

    def _check_j(self, j: int) -> int:
        j = _check_int("j", j)
        if not 0 <= j <= self.n_dice:
            raise GameError(f"number of dice must be in 0..{self.n_dice}, got {j}")
        return j

    # ------------------------------------------------------------------------- successors
    def chance_outcomes(self, j: int) -> list[tuple[int, float]]:
        """(total, probability) of every total j dice can show, ascending: the chance node
        after a mover chooses j (the OpenSpiel game and the environments share it)."""
        row = self.sum_probability_table[self._check_j(j)]
        return [(t, float(row[t])) for t in range(j, j * self.n_sides + 1)]

    def successors(self, x: int, y: int, j: int) -> list[Successor]:
        """Every outcome of the mover at <x, y> rolling j dice, as :class:`Successor` records
        (ascending totals, probabilities summing to 1)."""
        x, y = _check_int("x", x), _check_int("y", y)
        if not (0 <= x < self.low and 0 <= y < self.low):
            raise GameError(f"<{x},{y}> is not a state: scores must be in 0..{self.low - 1}")
        out = []
        for total, probability in self.chance_outcomes(j):
            result = self.outcome(x + total)
            state = (y, x + total) if result == CONTINUES else None
            out.append(Successor(total, probability, result, state))
        return out

    # ----------------------------------------------------------------------------- states
    def reachable(self) -> np.ndarray:
        """Boolean (low, low) mask of states reachable from <0,0> under some legal play.

        <0,0> is reachable; <x, y> (x, y >= 0) leads to <y, x + t> for every total t that j dice
        can show (j <= t <= j*n_sides) while x + t < low.
        """
        low = self.low
        reach = np.zeros((low, low), dtype=bool)
        reach[0, 0] = True
        # Possible totals of one turn: union over j of [j, j*n_sides].
        step = np.zeros(self.n_dice * self.n_sides + 1, dtype=bool)
        for j in range(1, self.n_dice + 1):
            step[j : j * self.n_sides + 1] = True
        totals = np.flatnonzero(step)
        for d in range(0, 2 * low - 1):  # successors have a larger x + y
            xs = np.arange(max(0, d - low + 1), min(d, low - 1) + 1)
            ys = d - xs
            live = reach[xs, ys]
            if not live.any():
                continue
            new = xs[live][:, None] + totals[None, :]  # every successor score, per live state
            rows = np.broadcast_to(ys[live][:, None], new.shape)
            inside = new < low
            reach[rows[inside], new[inside]] = True
        return reach

    @staticmethod
    def dice_label(j: int) -> str:
        """'1 die' / 'j dice', for messages and traces."""
        return "1 die" if j == 1 else f"{j} dice"


#: The handout's own game: NSides=6, LTarget=15, UTarget=17, NDice=2 (every default names it).
HANDOUT_GAME = Game(n_sides=6, low=15, high=17, n_dice=2)
