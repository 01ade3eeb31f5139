"""Pig and Piglet, the jeopardy dice games Neller and Presser solved ("Optimal Play of the Dice
Game Pig", UMAP Journal 25(1), 2004; "Solving the Dice Game Pig: an introduction to dynamic
programming and value iteration"), as protocol games: :class:`Pig` and :class:`Piglet`.

Two players take turns. On a turn the mover rolls as often as they like, adding each roll to a
turn total, until they hold (the turn total is banked, the turn passes) or roll a 1 (a "pig":
the turn total is lost, the turn passes). The first to reach the goal wins. As in the papers, a
mover whose banked score plus turn total reaches the goal has won (holding then is their only
sensible move), so the game ends there. Holding with a turn total of 0 is not a move (it would
only pass the turn; the papers' optimal play never does it), so every game ends with
probability 1. Piglet is Pig with a coin: heads adds 1, tails is a pig. :class:`PigReset` is
two-dice Pig with a reset ("Skunk"'s rule): one 1 is a pig, two 1s also reset the mover's
banked score to 0, so every non-terminal state can return to the start and the whole game is
one strongly connected component (the generic solver's hardest case; benchmarks/
bench_generic_solver.py).

A state is ``(score of player 0, score of player 1, turn total, player to move)``; a terminal
state is ``("win", winner)``; the payoff is player 0's win probability. The state graph has
cycles (two pigs in a row return to the same scores), so it is solved by value iteration.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

from dicejack.games.protocol import GameDefinitionError

__all__ = ["Pig", "Piglet", "PigReset", "ROLL", "HOLD"]

ROLL, HOLD = "roll", "hold"
_ONE = Fraction(1)

#: The largest goal: Pig's states grow as goal**3 (both players' views, about goal**2 * (goal + 1):
#: goal 100, 960,896 reachable; goal 120, about 1.7 million, within games.STATES_LIMIT).
GOAL_LIMIT = 120


def _whole(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise GameDefinitionError(f"{name} must be a whole number in {low}..{high}, got {value!r}")
    return value


class _TurnTotal:
    """What Pig and Piglet share: a goal, and the faces of one throw as (points, probability),
    0 points being the pig."""

    name = "pig"
    num_players = 2
    goal: int

    @cached_property
    def faces(self) -> tuple[tuple[int, Fraction], ...]:  # pragma: no cover - overridden
        raise NotImplementedError

    def initial_state(self) -> tuple[int, int, int, int]:
        return (0, 0, 0, 0)

    def is_terminal(self, state: Any) -> bool:
        return state[0] == "win"

    def payoff(self, state: Any) -> int:
        return 1 if state[1] == 0 else 0

    def player(self, state: Any) -> int:
        return state[3]

    def actions(self, state: Any) -> tuple[str, ...]:
        return (ROLL, HOLD) if state[2] > 0 else (ROLL,)

    def outcomes(self, state: Any, action: Any) -> list[tuple[Any, Fraction]]:
        s0, s1, k, me = state
        if action == HOLD:
            return [((s0 + k, s1, 0, 1) if me == 0 else (s0, s1 + k, 0, 0), _ONE)]
        need = self.goal - (s0 if me == 0 else s1) - k  # points that win now
        out = [((s0, s1, 0, 1 - me), self.pig)]
        if self.reset:  # the banked score lost too: the same state when it is 0
            back = (0, s1, 0, 1) if me == 0 else (s0, 0, 0, 0)
            if back == out[0][0]:
                out[0] = (back, self.pig + self.reset)
            else:
                out.append((back, self.reset))
        for points, probability in self.faces:
            if 0 < points < need:
                out.append(((s0, s1, k + points, me), probability))
        won = self._winning.get(need)
        if won is not None:
            out.append((self._wins[me], won))
        return out

    @cached_property
    def pig(self) -> Fraction:
        """The probability of a pig."""
        return sum((p for points, p in self.faces if points == 0), Fraction(0))

    @cached_property
    def _winning(self) -> dict[int, Fraction]:
        """need -> the probability of a throw of at least `need` points (where it is > 0)."""
        top = max(points for points, _ in self.faces)
        out = {}
        for need in range(1, top + 1):
            p = sum((p for points, p in self.faces if points >= need), Fraction(0))
            if p:
                out[need] = p
        return out

    _wins = (("win", 0), ("win", 1))
    #: The probability of a throw that loses the banked score as well as the turn total.
    reset = Fraction(0)

    def compiled_space(self, limit: int) -> Any:
        """The enumerated game as arrays, no Python call per state (dicejack.games.compiled);
        None (the protocol's enumeration) for a subclass, which may change the rules."""
        from dicejack.games.compiled import turn_total_space

        if type(self) not in (Pig, Piglet, PigReset):
            return None

        top = max(points for points, _ in self.faces)
        return turn_total_space(
            self, [(points, float(p)) for points, p in self.faces], float(self.pig),
            float(self.reset), float(self.pig + self.reset),
            [0.0] + [float(self._winning.get(need, 0)) for need in range(1, top + 1)], limit,
            (ROLL, HOLD))


@dataclass(frozen=True)
class Pig(_TurnTotal):
    """Pig to `goal` points with a `die`-sided die (1 is the pig; 2..die score their face)."""

    goal: int = 100
    die: int = 6

    name = "pig"

    def __post_init__(self) -> None:
        _whole("goal", self.goal, 1, GOAL_LIMIT)
        _whole("die", self.die, 2, 100)

    @cached_property
    def faces(self) -> tuple[tuple[int, Fraction], ...]:
        p = Fraction(1, self.die)
        return ((0, p), *((face, p) for face in range(2, self.die + 1)))


@dataclass(frozen=True)
class Piglet(_TurnTotal):
    """Piglet to `goal` points: a coin, heads adds 1, tails is the pig."""

    goal: int = 10

    name = "piglet"

    def __post_init__(self) -> None:
        _whole("goal", self.goal, 1, GOAL_LIMIT)

    @cached_property
    def faces(self) -> tuple[tuple[int, Fraction], ...]:
        return ((0, Fraction(1, 2)), (1, Fraction(1, 2)))


@dataclass(frozen=True)
class PigReset(_TurnTotal):
    """Two-dice Pig to `goal` with a reset: two `die`-sided dice, their sum scored unless a 1
    shows; one 1 is a pig (the turn total lost), two 1s lose the banked score too."""

    goal: int = 100
    die: int = 6

    name = "pig-reset"

    def __post_init__(self) -> None:
        _whole("goal", self.goal, 1, GOAL_LIMIT)
        _whole("die", self.die, 2, 100)

    @cached_property
    def faces(self) -> tuple[tuple[int, Fraction], ...]:
        d = self.die
        ways: dict[int, int] = {}
        for a in range(2, d + 1):
            for b in range(2, d + 1):
                ways[a + b] = ways.get(a + b, 0) + 1
        return ((0, Fraction(2 * (d - 1), d * d)),
                *((total, Fraction(n, d * d)) for total, n in sorted(ways.items())))

    @cached_property
    def reset(self) -> Fraction:  # type: ignore[override]
        return Fraction(1, self.die * self.die)
