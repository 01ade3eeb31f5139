"""The games the tests share, declared once: the handout's game and the small games whose numbers
tests know by hand or solve in milliseconds. Import them (``from tests.games import HANDOUT``);
the root conftest.py also offers them as fixtures."""

from __future__ import annotations

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
