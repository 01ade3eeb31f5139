"""The games the tests share, declared once: the handout's game and the small games whose numbers
tests know by hand or solve in milliseconds. Import them (``from tests.games import HANDOUT``);
the root conftest.py also offers them as fixtures."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from dicejack.games.handout_rules import Game

#: The handout's game: NSides 6, LTarget 15, UTarget 17, NDice 2.
HANDOUT = Game(n_sides=6, low=15, high=17, n_dice=2)
#: The handout's targets with 3 dice.
HANDOUT_3_DICE = Game(n_sides=6, low=15, high=17, n_dice=3)
#: A tiny game (36 states) that every learner and the solver handle in milliseconds.
TINY = Game(n_sides=3, low=6, high=7, n_dice=2)
#: The grading tests' small game (64 states): reference runs in about a second.
SMALL = Game(n_sides=4, low=8, high=9, n_dice=2)
#: The smallest games: 4 and 9 states, small enough to check by hand.
SMALLEST = Game(n_sides=2, low=2, high=2, n_dice=2)
HAND_SIZED = Game(n_sides=2, low=3, high=4, n_dice=2)


@dataclass(frozen=True)
class Climb:
    """One player: at height h < 3 'go' (up 1 w.p. 2/3, back to 0 w.p. 1/3) or 'stop' (payoff
    h / 3); at 3 the payoff is 1. Cyclic (a fall returns to 0)."""

    name = "climb"
    num_players = 1

    def initial_state(self):
        return 0

    def is_terminal(self, s):
        return isinstance(s, tuple)

    def payoff(self, s):
        return Fraction(s[1], 3)

    def player(self, s):
        return 0

    def actions(self, s):
        return ("go", "stop")

    def outcomes(self, s, a):
        if a == "stop":
            return [(("end", s), 1)]
        up = ("end", 3) if s == 2 else s + 1
        return [(up, Fraction(2, 3)), (0, Fraction(1, 3))]
