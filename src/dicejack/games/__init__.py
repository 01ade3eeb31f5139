"""Games beyond the handout's: one protocol for any small finite game, and the bundled games.

A game is any object with the members of :class:`FiniteGame` (one or two players, zero-sum;
states, legal actions, chance outcomes with exact probabilities, terminal payoffs; enumerable).
Bundled, one a module: :mod:`~dicejack.games.handout` (the handout's game through the protocol),
:mod:`~dicejack.games.pig` (Pig, Piglet), :mod:`~dicejack.games.peeking_blackjack` (CS221's Peeking
Blackjack: one player, a peek cost per action), :mod:`~dicejack.games.yamslam` (Yamslam's re-roll
decision). :func:`enumerate_game` turns any of them into the arrays of a :class:`StateSpace` that
the generic solver (:mod:`dicejack.solver.generic`) and the generic learners
(:mod:`dicejack.learners.games`) use; :func:`make_game` builds a game from a name or the user's
``FILE.py:Class`` (``--game``). Games with hidden information (Kuhn poker) extend the protocol
in :mod:`~dicejack.games.information`. Modules, from the ground up: protocol, handout, pig,
peeking_blackjack, yamslam, space, information, kuhn, bounds, registry (handout_rules first: the
handout's game's own rules, which every layer above uses). May import :mod:`dicejack.runtime`;
nothing above.

>>> from dicejack.games import Piglet, enumerate_game
>>> enumerate_game(Piglet(goal=2)).n_states
14
"""

from __future__ import annotations

from dicejack.games.handout import HandoutGame
from dicejack.games.peeking_blackjack import PeekingBlackjack
from dicejack.games.pig import Pig, Piglet
from dicejack.games.protocol import FiniteGame, GameDefinitionError
from dicejack.games.registry import make_game
from dicejack.games.space import StateSpace, enumerate_game
from dicejack.games.yamslam import Yamslam

#: The public face (docs/design/api.md; tests/test_public_faces.py holds it): everything else
#: is imported from its module (the protocol's checks, types, game_label and game_params from
#: protocol, the registry's table and parse_game_params from registry, the size limit from space,
#: Pig's HOLD from pig).
__all__ = [
    "FiniteGame",
    "GameDefinitionError",
    "enumerate_game",
    "StateSpace",
    "make_game",
    "HandoutGame",
    "Pig",
    "Piglet",
    "PeekingBlackjack",
    "Yamslam",
]
