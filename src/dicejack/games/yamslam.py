"""Yamslam's re-roll decision as a one-player protocol game: :class:`Yamslam`.

Five six-sided dice are rolled; the player holds any of them (a mask of 32: bit i holds die i
of the roll sorted ascending) and re-rolls the rest, `rerolls` times (1: the re-roll study's
one-step decision; 2: the real game's two re-rolls, a finite-horizon MDP); the final roll scores
the best pattern of :data:`PATTERNS` that applies (five of a kind 50, large straight 50, four of
a kind 40, full house 30, flush = all odd or all even 25, small straight 20, three of a kind 10,
two pair 5, else 0).

States: ``("start",)``, where the only action ``"roll"`` throws all five dice; ``(roll,
left)`` with `roll` the sorted dice and `left` the re-rolls left (the 252 sorted rolls at each
level), actions the masks 0..31 (masks that hold the same faces are different actions with
the same outcomes: ties); terminal ``("final", roll)``, paying :func:`score` of the roll. The
probabilities are exact (multinomial counts over 6**m for m re-rolled dice).
:meth:`Yamslam.current_score` is a roll's score before re-rolling, the baseline of the
re-roll study's "score difference".
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement
from math import factorial
from typing import Any

from dicejack.games.protocol import GameDefinitionError

__all__ = ["Yamslam", "PATTERNS", "score", "pattern", "ROLLS", "MASKS"]

#: The score table, best first: (pattern, points).
PATTERNS: tuple[tuple[str, int], ...] = (
    ("five of a kind", 50), ("large straight", 50), ("four of a kind", 40),
    ("full house", 30), ("flush", 25), ("small straight", 20), ("three of a kind", 10),
    ("two pair", 5), ("nothing", 0),
)
#: The 252 sorted rolls of five six-sided dice, in lexicographic order.
ROLLS: tuple[tuple[int, ...], ...] = tuple(combinations_with_replacement(range(1, 7), 5))
#: The hold masks: bit i holds die i of the sorted roll.
MASKS: tuple[int, ...] = tuple(range(32))


def _applies(name: str, dice: tuple[int, ...]) -> bool:
    counts = sorted(Counter(dice).values(), reverse=True)
    faces = set(dice)
    if name == "five of a kind":
        return counts[0] == 5
    if name == "large straight":
        return faces in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6})
    if name == "four of a kind":
        return counts[0] >= 4
    if name == "full house":
        return counts[:2] == [3, 2]
    if name == "flush":
        return len({d % 2 for d in dice}) == 1
    if name == "small straight":
        return any(set(range(a, a + 4)) <= faces for a in (1, 2, 3))
    if name == "three of a kind":
        return counts[0] >= 3
    if name == "two pair":
        return len(counts) > 1 and counts[1] >= 2
    return name == "nothing"


@cache
def pattern(dice: tuple[int, ...]) -> str:
    """The best pattern of five dice (any order) that applies."""
    key = tuple(sorted(dice))
    return max((p for p in PATTERNS if _applies(p[0], key)), key=lambda p: p[1])[0]


@cache
def score(dice: tuple[int, ...]) -> int:
    """The points of five dice: the best applicable pattern's (module docstring)."""
    return dict(PATTERNS)[pattern(tuple(sorted(dice)))]


@cache
def _throws(m: int) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    """The sorted faces of m dice thrown, each with its exact probability."""
    out = []
    for faces in combinations_with_replacement(range(1, 7), m):
        ways = factorial(m)
        for c in Counter(faces).values():
            ways //= factorial(c)
        out.append((faces, Fraction(ways, 6 ** m)))
    return tuple(out)


@cache
def _after(held: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    """The sorted rolls after holding `held` (sorted) and re-rolling the rest."""
    return tuple((tuple(sorted(held + faces)), p) for faces, p in _throws(5 - len(held)))


def held_dice(roll: tuple[int, ...], mask: int) -> tuple[int, ...]:
    """The dice of `roll` that `mask` holds (sorted)."""
    return tuple(d for i, d in enumerate(roll) if mask >> i & 1)


@dataclass(frozen=True)
class Yamslam:
    """Yamslam's re-roll decision with `rerolls` re-rolls (module docstring)."""

    rerolls: int = 1

    name = "yamslam"
    num_players = 1

    def __post_init__(self) -> None:
        r = self.rerolls
        if isinstance(r, bool) or not isinstance(r, int) or not 1 <= r <= 3:
            raise GameDefinitionError(f"rerolls must be 1, 2 or 3, got {r!r}")

    def initial_state(self) -> tuple[str]:
        return ("start",)

    def is_terminal(self, state: Any) -> bool:
        return state[0] == "final"

    def payoff(self, state: Any) -> int:
        return score(state[1])

    def current_score(self, state: Any) -> int:
        """The score the dice of a roll state (or a final state) show now; 0 at the start."""
        if state[0] == "start":
            return 0
        return score(state[1] if state[0] == "final" else state[0])

    def player(self, state: Any) -> int:
        return 0

    def actions(self, state: Any) -> tuple[Any, ...]:
        return ("roll",) if state[0] == "start" else MASKS

    def outcomes(self, state: Any, action: Any) -> list[tuple[Any, Fraction]]:
        if state[0] == "start":
            return [((roll, self.rerolls), p) for roll, p in _after(())]
        roll, left = state
        after = _after(held_dice(roll, action))
        if left == 1:
            return [(("final", new), p) for new, p in after]
        return [((new, left - 1), p) for new, p in after]
