"""Every game for OpenSpiel: ``import dicejack.envs.openspiel`` registers the handout's game as
``python_dicejack``; :func:`load` gives any game (the handout's by default; Pig, Piglet, the
user's protocol game, registered once per process as ``python_dicejack_<label>``).

``pyspiel.load_game("python_dicejack(sides=3,low=10,high=20,dice=2)")`` (default: the handout's
6, 15, 17, 2). Sequential, two players, perfect information, zero-sum, returns +1 / -1 at the end.
A turn is two moves: the player to move chooses action a = J - 1 (0-based, J dice), then a chance
node rolls: its outcomes are the totals t that J dice can show, each with its exact probability
(``Game.chance_outcomes``); the rules after the roll are ``Game.outcome``. Player 0 moves first.
Observation (tensor and string) from player p's view: p's score, the opponent's, whether it is
p's turn and the dice chosen (0 before the roll). The information state string is the same Markov
state (scores and the player to move): in this perfect-information game nothing earlier matters
to the future, so tabular algorithms see one entry per <X, Y> and seat, not one per history.

A protocol game: decision nodes are the enumerated game's states; action ids number its actions
in the order the enumeration first meets them (``os_game.action_labels``); a move with several
outcomes is followed by a chance node whose outcome k is the move's k-th successor, with its
exact probability. Returns are player 0's return (the rewards of the moves so far,
``reward(state, action)``, plus the payoff at the end; reward model REWARDS when the game pays on
the way), ``rewards()`` what the last move paid; a state's text adds what has been paid so far
when it is not 0. Utility range and max_game_length are the game's bounds
(:func:`dicejack.games.bounds.game_bounds`). One game class and one state class play both
(:mod:`dicejack.envs.openspiel_game`, through the game's :mod:`dicejack.envs.bridge`).

A game with hidden information (:mod:`dicejack.games.information`; ``load(Kuhn())``) is of
IMPERFECT_INFORMATION, reward model TERMINAL: chance first deals (a forced move's outcomes,
e.g. Kuhn's six deals, each 1/6, as one chance node), decision nodes are the tree's, action ids
number the decisions' actions in the order met (Kuhn: pass 0, bet 1, as ``kuhn_poker``);
``information_state_string(p)`` (and the observation string) is p's key (a ``str`` key as it
is, e.g. ``"Qpb"``; OpenSpiel's ``kuhn_poker`` writes the card as 0, 1, 2), the tensors a
one-hot of p and of the key's index in ``os_game.bridge.keys[p]``; returns player 0's utility
at the end. OpenSpiel's ``exploitability`` and ``CFRSolver`` run on it;
:func:`information_policy` reads any OpenSpiel policy of it as dicejack's behaviour policy
(key -> {action: probability}) for :mod:`dicejack.solver.information_policies`.

Also the bridges between OpenSpiel and dicejack's conventions for the handout's game, all keyed
by information state (the 2 L^2 decision states, built directly: never a walk of every history,
which on the handout's game is about 1.3e10 of them): :func:`decision_states` and
:func:`tabular_policy` (a ``TabularPolicy`` over them, where ``TabularPolicy(os_game)`` would
walk every history), :func:`policy_table` reads any OpenSpiel policy as the handout's (L, L, K+1)
action distribution per <X, Y> (mover's view), :func:`openspiel_policy` turns a dicejack policy
into an OpenSpiel ``TabularPolicy``, :func:`seat_values` / :func:`exploitability` measure any
OpenSpiel policy exactly as OpenSpiel's ``exploitability`` does (each seat read apart: NashConv /
2 of the pair), :func:`game_of` reads the dicejack Game of a loaded game
(:mod:`dicejack.envs.openspiel_policies`). On import this module teaches
``compare.learned_from_policy`` to read OpenSpiel policies. It checks that OpenSpiel is
installed first.

OpenSpiel is not a dependency of dicejack: in a clone of dicejack, ``pip install
'.[openspiel]'`` (open-spiel and cvxpy, which OpenSpiel's ``value_iteration`` imports but
OpenSpiel does not install).
"""

from __future__ import annotations

from dicejack.runtime.messages import DicejackError


class OpenSpielMissingError(DicejackError, ImportError):
    """:mod:`dicejack.envs.openspiel` was imported but OpenSpiel is not installed."""


try:
    import pyspiel  # noqa: F401  (the check; the modules below use it)
except ImportError:
    raise OpenSpielMissingError(
        "dicejack.envs.openspiel needs OpenSpiel, which dicejack does not install: "
        "pip install '.[openspiel]' in a clone of dicejack (or pip install open-spiel cvxpy)"
    ) from None

from dicejack.envs.openspiel_game import (  # noqa: E402  (after the OpenSpiel check, on purpose)
    PROTOCOL_MAX_GAME_LENGTH,
    SHORT_NAME,
    DicejackGame,
    DicejackState,
    decision_state,
    decision_states,
    game_of,
    load,
    protocol_game,
    state_at,
)
from dicejack.envs.openspiel_policies import (  # noqa: E402
    SeatsDifferError,
    exploitability,
    information_policy,
    openspiel_policy,
    policy_table,
    seat_values,
    tabular_policy,
)

#: The public face (docs/design/api.md; tests/test_public_faces.py holds it). The game and
#: state classes OpenSpiel instantiates (DicejackGame, DicejackState), decision_state and
#: PROTOCOL_MAX_GAME_LENGTH stay importable by name (:data:`_BY_NAME`); ``protocol_game`` is
#: :func:`load` (its earlier name for protocol games).
__all__ = [
    "SHORT_NAME",
    "load",
    "game_of",
    "OpenSpielMissingError",
    "SeatsDifferError",
    "decision_states",
    "state_at",
    "tabular_policy",
    "policy_table",
    "openspiel_policy",
    "seat_values",
    "exploitability",
    "protocol_game",
    "information_policy",
]

#: Importable from here by name, outside the face.
_BY_NAME = (DicejackGame, DicejackState, decision_state, PROTOCOL_MAX_GAME_LENGTH)
