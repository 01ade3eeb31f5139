"""Kuhn poker, the smallest standard game with hidden cards, as an information game
(:mod:`dicejack.games.information`): :class:`Kuhn`.

Three cards, J < Q < K; each of two players antes `ante` and is dealt one card, face down (six
deals, each 1/6). Player 0 passes or bets `bet`; after a pass player 1 passes (a showdown for
the antes) or bets, and player 0 then passes (folds) or bets (calls); after a bet player 1
passes (folds) or bets (calls). A fold loses the antes; a showdown pays the pot's other half
to the higher card. Payoffs are player 0's; the game's value is -1/18 at ante 1, bet 1 (Kuhn
1950).

States are ``(cards, history)``: `cards` None before the deal (player 0's forced ``"deal"``,
whose outcomes are the six deals) and then (player 0's card, player 1's card) as ranks 0, 1, 2;
`history` the moves as letters, ``p`` pass and ``b`` bet (OpenSpiel's ``kuhn_poker`` spells its
histories so, with actions 0 = pass and 1 = bet). A player's information state is its card and
the history, e.g. ``"Qpb"`` (player 0 holding Q, after pass and bet); before the deal ``""``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dicejack.games.protocol import GameDefinitionError

__all__ = ["Kuhn", "CARDS", "DEAL", "PASS", "BET", "TERMINAL_HISTORIES"]

CARDS = ("J", "Q", "K")
DEAL, PASS, BET = "deal", "pass", "bet"
#: The histories that end a hand.
TERMINAL_HISTORIES = ("pp", "pbp", "pbb", "bp", "bb")
_LETTER = {PASS: "p", BET: "b"}


def _stake(name: str, value: Any) -> Fraction | int:
    ok = isinstance(value, (int, Fraction)) and not isinstance(value, bool)
    if not ok or value <= 0 or value > 10**6:
        raise GameDefinitionError(f"{name} must be a positive whole number or fraction up to "
                                  f"1000000, got {value!r}")
    return value


@dataclass(frozen=True)
class Kuhn:
    """Kuhn poker (module docstring); `ante` and `bet` are each player's stakes."""

    ante: int | Fraction = 1
    bet: int | Fraction = 1
    name = "kuhn"
    num_players = 2

    def __post_init__(self) -> None:
        _stake("ante", self.ante)
        _stake("bet", self.bet)

    def initial_state(self) -> tuple[None, str]:
        return (None, "")

    def is_terminal(self, state: Any) -> bool:
        return state[1] in TERMINAL_HISTORIES

    def payoff(self, state: Any) -> Any:
        (c0, c1), history = state
        if history == "bp":
            return self.ante  # player 1 folds
        if history == "pbp":
            return -self.ante  # player 0 folds
        pot = self.ante if history == "pp" else self.ante + self.bet
        return pot if c0 > c1 else -pot

    def player(self, state: Any) -> int:
        return 0 if state[0] is None else len(state[1]) % 2

    def actions(self, state: Any) -> tuple[str, ...]:
        return (DEAL,) if state[0] is None else (PASS, BET)

    def outcomes(self, state: Any, action: Any) -> list[tuple[Any, Fraction]]:
        cards, history = state
        if cards is None:
            sixth = Fraction(1, 6)
            return [(((a, b), ""), sixth) for a in range(3) for b in range(3) if a != b]
        return [((cards, history + _LETTER[action]), 1)]

    def information_state(self, state: Any, player: int) -> str:
        cards, history = state
        if cards is None:
            return ""
        return CARDS[cards[player]] + history
