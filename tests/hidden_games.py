"""The small games with hidden information the tests share, each checkable by hand:
:class:`HiddenMatrix` (a 2x2 matrix game played in turn, the first move hidden) and
:class:`HiddenCoin` (one player guesses a coin it does not see); and every deterministic policy
of a player (:func:`deterministic_policies`), for brute force."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any


@dataclass(frozen=True)
class HiddenMatrix:
    """Player 0 picks a row (H or T) face down, player 1 then picks a column not knowing it;
    player 0 is paid ``payoffs[row][column]``. The default is matching pennies (value 0, both
    1/2); with a, b, c, d = payoffs[0][0], [0][1], [1][0], [1][1] and no saddle point the
    value is (ad - bc) / (a + d - b - c) and player 0 plays H with (d - c) / (a + d - b - c),
    player 1 with (d - b) / (a + d - b - c)."""

    payoffs: tuple[tuple[Any, Any], tuple[Any, Any]] = ((1, -1), (-1, 1))
    name = "hidden-matrix"
    num_players = 2

    def initial_state(self) -> tuple[str, ...]:
        return ()

    def is_terminal(self, state: Any) -> bool:
        return len(state) == 2

    def payoff(self, state: Any) -> Any:
        return self.payoffs["HT".index(state[0])]["HT".index(state[1])]

    def player(self, state: Any) -> int:
        return len(state)

    def actions(self, state: Any) -> tuple[str, ...]:
        return ("H", "T")

    def outcomes(self, state: Any, action: Any) -> list[tuple[Any, Any]]:
        return [((*state, action), 1)]

    def information_state(self, state: Any, player: int) -> str:
        return "row" if player == 0 else "column"  # player 1 never sees the row


@dataclass(frozen=True)
class HiddenCoin:
    """One player: a coin lands heads with probability `heads`, unseen; the player guesses and
    is paid 1 when right. Value max(heads, 1 - heads); the uniform guess earns 1/2."""

    heads: Fraction = Fraction(2, 3)
    name = "hidden-coin"
    num_players = 1

    def initial_state(self) -> str:
        return "start"

    def is_terminal(self, state: Any) -> bool:
        return isinstance(state, tuple)

    def payoff(self, state: Any) -> Any:
        return int(state[0] == state[1])

    def player(self, state: Any) -> int:
        return 0

    def actions(self, state: Any) -> tuple[str, ...]:
        return ("toss",) if state == "start" else ("H", "T")

    def outcomes(self, state: Any, action: Any) -> list[tuple[Any, Any]]:
        if state == "start":
            return [("H", self.heads), ("T", 1 - self.heads)]
        return [((state, action), 1)]

    def information_state(self, state: Any, player: int) -> str:
        return "before" if state == "start" else "guess"


def deterministic_policies(tree: Any, player: int) -> Iterator[dict[Any, dict[Any, int]]]:
    """Every deterministic policy of `player` on an InformationTree: one action per decision
    key, as probabilities 0 and 1."""
    sets = tree.decisions(player)
    for choice in itertools.product(*(s.actions for s in sets)):
        yield {s.key: {a: int(a == c) for a in s.actions}
               for s, c in zip(sets, choice, strict=True)}
