"""Peeking Blackjack, the MDP of Stanford CS221's "blackjack" assignment, as a one-player
protocol game with a per-action cost: :class:`PeekingBlackjack`.

A deck holds `multiplicity` cards of each face value in `card_values`, shuffled. In each round
the player takes the top card (its value joins the hand's total), peeks at it (pays
`peek_cost`; the next take draws that card; no two peeks in a row) or quits. The game ends when
the player quits or the deck runs out (the hand's total is paid) or the total passes
`threshold` (a bust: 0 is paid). Total reward, no discount: the peek costs are the game's
per-action rewards (``reward(state, action)`` of the protocol), the hand's pay its terminal
payoff.

States are the assignment's: ``(total, index of the peeked card or None, counts per face
value)``; a terminal state is ``(total, None, None)``, paying ``total`` when ``total <=
threshold`` and 0 otherwise. Actions are ``"Take"``, ``"Peek"`` and ``"Quit"``, in that order,
``"Peek"`` left out right after a peek: in the assignment's code a second peek is an action
with no successor (``succAndProbReward`` returns ``[]``: value 0, the episode stops), which
quitting (the total, at least 0) always matches or beats, so the optimal values are the same.
The starter code's MDPs (``smallMDP``, ``largeMDP``, ``originalMDP``, ``newThresholdMDP``) are
:data:`ASSIGNMENT_MDPS` (docs/studies.md cites the copy of the starter code read).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dicejack.games.protocol import GameDefinitionError

__all__ = ["PeekingBlackjack", "TAKE", "PEEK", "QUIT", "ASSIGNMENT_MDPS", "DECKS_LIMIT"]

TAKE, PEEK, QUIT = "Take", "Peek", "Quit"
#: The most deck contents ((multiplicity + 1) ** len(card_values)) a game may have.
DECKS_LIMIT = 200_000

#: The starter code's four MDPs: name -> (card_values, multiplicity, threshold, peek_cost).
ASSIGNMENT_MDPS: dict[str, tuple[tuple[int, ...], int, int, int]] = {
    "smallMDP": ((1, 5), 2, 10, 1),
    "largeMDP": ((1, 3, 5, 8, 10), 3, 40, 1),
    "originalMDP": ((1, 5), 2, 10, 1),
    "newThresholdMDP": ((1, 5), 2, 15, 1),
}


def _values(raw: Any) -> tuple[int, ...]:
    """card_values from a sequence of whole numbers or text like ``1,5`` (``--game-param``)."""
    if isinstance(raw, str):
        words = raw.replace(",", " ").split()
        try:
            raw = [int(w) for w in words]
        except ValueError:
            raise GameDefinitionError(f"card_values must be whole numbers, e.g. 1,5; got "
                                      f"{raw!r}") from None
    elif isinstance(raw, int) and not isinstance(raw, bool):
        raw = [raw]
    try:
        values = tuple(raw)
    except TypeError:
        raise GameDefinitionError(f"card_values must be whole numbers, got {raw!r}") from None
    if not values or len(values) > 20 or any(
        isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 10**6 for v in values
    ):
        raise GameDefinitionError(f"card_values must be 1 to 20 whole numbers in 1..1000000, got "
                                  f"{raw!r}")
    return values


def _whole(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise GameDefinitionError(f"{name} must be a whole number in {low}..{high}, got {value!r}")
    return value


@dataclass(frozen=True)
class PeekingBlackjack:
    """Peeking Blackjack (module docstring); the defaults are the starter code's smallMDP."""

    card_values: tuple[int, ...] = (1, 5)
    multiplicity: int = 2
    threshold: int = 10
    peek_cost: Any = 1

    name = "peeking-blackjack"
    num_players = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "card_values", _values(self.card_values))
        _whole("multiplicity", self.multiplicity, 1, 1000)
        _whole("threshold", self.threshold, 0, 10**6)
        cost = self.peek_cost
        if isinstance(cost, bool) or not isinstance(cost, (int, Fraction)) or cost < 0:
            raise GameDefinitionError(f"peek_cost must be a number >= 0 (a whole number or a "
                                      f"fraction), got {cost!r}")
        decks = (self.multiplicity + 1) ** len(self.card_values)
        if decks > DECKS_LIMIT:
            raise GameDefinitionError(f"{decks:,} deck contents ((multiplicity + 1) ** "
                                      f"{len(self.card_values)}) is too many; at most "
                                      f"{DECKS_LIMIT:,}")

    def params(self) -> dict[str, Any]:
        return {"card_values": ",".join(map(str, self.card_values)),
                "multiplicity": self.multiplicity, "threshold": self.threshold,
                "peek_cost": self.peek_cost}

    def initial_state(self) -> tuple[int, None, tuple[int, ...]]:
        return (0, None, (self.multiplicity,) * len(self.card_values))

    def is_terminal(self, state: Any) -> bool:
        return state[2] is None

    def payoff(self, state: Any) -> int:
        return state[0] if state[0] <= self.threshold else 0

    def player(self, state: Any) -> int:
        return 0

    def actions(self, state: Any) -> tuple[str, ...]:
        return (TAKE, QUIT) if state[1] is not None else (TAKE, PEEK, QUIT)

    def reward(self, state: Any, action: Any) -> Any:
        return -self.peek_cost if action == PEEK else 0

    def _draw(self, total: int, counts: tuple[int, ...], i: int) -> tuple[Any, ...]:
        """The state after card i joins a hand of `total` from a deck of `counts`."""
        new = total + self.card_values[i]
        left = counts[:i] + (counts[i] - 1,) + counts[i + 1:]
        if new > self.threshold or not any(left):
            return (new, None, None)
        return (new, None, left)

    def outcomes(self, state: Any, action: Any) -> list[tuple[Any, Fraction | int]]:
        total, peeked, counts = state
        if action == QUIT:
            return [((total, None, None), 1)]
        if action == TAKE and peeked is not None:
            return [(self._draw(total, counts, peeked), 1)]
        cards = sum(counts)
        out: dict[Any, Fraction] = {}
        for i, c in enumerate(counts):
            if c:
                nxt = (total, i, counts) if action == PEEK else self._draw(total, counts, i)
                out[nxt] = out.get(nxt, Fraction(0)) + Fraction(c, cards)
        return list(out.items())
