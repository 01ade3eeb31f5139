"""The games by name, and the user's own: ``--game NAME`` or ``--game FILE.py:Class`` (or
``MODULE:Class``), with ``--game-param KEY=VALUE`` for its parameters.

Bundled: ``handout`` (the handout's game: sides, low, high, dice), ``pig`` (goal, die),
``piglet`` (goal), ``pig-reset`` (goal, die: two-dice Pig, two 1s reset the banked score),
``peeking-blackjack`` (card_values, multiplicity, threshold, peek_cost) and ``yamslam``
(rerolls); with hidden information (:mod:`dicejack.games.information`, solved by
:mod:`dicejack.solver.sequence_form`, not yet by the commands): ``kuhn`` (ante, bet) and
``deck-duel`` (counts as ``1,2,1``, hand_size, rounds, passing: the deck divide-the-dollar game
between two players, :mod:`dicejack.games.deck_information`, small decks only). A user's
game is a class (called with the parameters as keyword arguments) or an object already built
(then no parameters), loaded by :mod:`dicejack.runtime.user_code`. Parameter values are read as
whole numbers, then fractions (``1/6``, ``0.5`` exactly), else kept as text.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from dicejack.games.deck_information import DeckDuel
from dicejack.games.handout import HandoutGame
from dicejack.games.kuhn import Kuhn
from dicejack.games.peeking_blackjack import PeekingBlackjack
from dicejack.games.pig import Pig, Piglet, PigReset
from dicejack.games.protocol import GameDefinitionError, check_game_object
from dicejack.games.yamslam import Yamslam
from dicejack.runtime.user_code import is_spec, load_object

__all__ = ["GAMES", "INFORMATION_GAMES", "make_game", "parse_game_params", "game_names"]

#: The bundled games by name.
GAMES: dict[str, type] = {"handout": HandoutGame, "pig": Pig, "piglet": Piglet,
                          "pig-reset": PigReset, "peeking-blackjack": PeekingBlackjack,
                          "yamslam": Yamslam}
#: The bundled games with hidden information, by name (make_game builds them; the commands'
#: --game lists GAMES, the games they solve and learn).
INFORMATION_GAMES: dict[str, type] = {"kuhn": Kuhn, "deck-duel": DeckDuel}


def game_names() -> str:
    """'handout, pig, piglet, ..., kuhn' for messages (hidden information last)."""
    return ", ".join([*GAMES, *INFORMATION_GAMES])


def _value(text: str) -> Any:
    raw = text.strip()
    try:
        return int(raw.replace("_", ""))
    except ValueError:
        pass
    try:
        return Fraction(raw)
    except (ValueError, ZeroDivisionError):
        return raw


def parse_game_params(items: Iterable[str] | None) -> dict[str, Any]:
    """``["goal=100", "die=6"]`` -> ``{"goal": 100, "die": 6}``; GameDefinitionError when an
    item is not KEY=VALUE or a key repeats."""
    out: dict[str, Any] = {}
    for item in items or ():
        key, sep, value = str(item).partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise GameDefinitionError(f"--game-param {item!r}: give KEY=VALUE, e.g. goal=100")
        if key in out:
            raise GameDefinitionError(f"--game-param {key} is given twice")
        out[key] = _value(value)
    return out


def make_game(spec: str, params: dict[str, Any] | None = None) -> Any:
    """The game `spec` names (a bundled name, or MODULE:NAME / FILE.py:NAME) built with
    `params`; checked against the protocol (its states are checked when enumerated)."""
    params = dict(params or {})
    if is_spec(spec):
        made = load_object(spec, "--game")
    else:
        key = str(spec).strip().lower()
        made = GAMES.get(key) or INFORMATION_GAMES.get(key)
        if made is None and key.startswith("deck"):
            raise GameDefinitionError(
                f"no game {spec!r}: the deck divide-the-dollar game against its random "
                "opponent is not a game of these commands (one player with hidden cards: its "
                "exact evaluator, search, bound and learners run in `dicejack study "
                "deck-divide-dollar`); between two players it is --game deck-duel")
        if made is None:
            raise GameDefinitionError(f"no game {spec!r}; the games: {game_names()}, or "
                                      "FILE.py:Class for your own")
    if isinstance(made, type):
        try:
            game = made(**params)
        except GameDefinitionError:
            raise
        except TypeError as exc:  # unknown or missing parameters
            raise GameDefinitionError(f"game {spec}: {exc}") from None
        except Exception as exc:  # the user's constructor: one line
            raise GameDefinitionError(f"game {spec}: {type(exc).__name__}: {exc}") from None
    else:
        if params:
            raise GameDefinitionError(f"game {spec} is an object already built; it takes no "
                                      "--game-param")
        game = made
    check_game_object(game)
    return game
