"""The game protocol: what any finite game must offer to be solved exactly and learned on one
harness (docs/design/games.md).

A game is a finite, enumerable game with one or two players. Every state (any hashable value)
is either terminal, with a payoff, or has a player to move (0 or 1) and a non-empty list of legal
actions (hashable); an action leads to a chance node whose outcomes are successor states with
exact probabilities (``fractions.Fraction`` or ``int``, positive, summing to exactly 1). Turns may
alternate or not: the successor's player is whatever the game says (Pig's roll keeps the turn).

Payoffs are player 0's: player 0 maximises them, player 1 (in a two-player game) minimises them,
so a two-player game is zero-sum (a constant-sum game, like win = 1 and lose = 0, is the same
game: the payoff is then player 0's win probability). The state graph may have cycles (Pig's two
pig-outs in a row return to the same scores); under any pair of policies a game must end with
probability 1, or the values are undefined (the solver reports a residual that does not fall).

Optionally, a game may also pay player 0 a reward when an action is played (a cost is a
negative reward): ``reward(state, action)``, a finite number (int, Fraction or float), 0 when
the member is absent. A state's value is then the expected sum of the rewards on the way and
the payoff at the end (Peeking Blackjack's peek cost is such a reward).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from fractions import Fraction
from typing import Any, Protocol, Union, runtime_checkable

from dicejack.runtime.messages import DicejackError

__all__ = [
    "GameDefinitionError",
    "FiniteGame",
    "Probability",
    "check_game_object",
    "game_label",
    "game_params",
    "same_game",
]

#: An exact probability: a Fraction or a whole number (1).
Probability = Union[Fraction, int]  # noqa: UP007 - a runtime alias on Python 3.10


class GameDefinitionError(DicejackError, ValueError):
    """A game that breaks the protocol (bad player, no actions, probabilities that are not exact
    or do not sum to 1, too many states), or bad game parameters."""


@runtime_checkable
class FiniteGame(Protocol):
    """A finite game with one or two players, chance, and terminal payoffs (module docstring).

    name: a short label ("pig"); num_players: 1 or 2.
    initial_state(): where every game starts.
    is_terminal(state): True when the game is over at `state`.
    payoff(state): player 0's payoff at a terminal state (int, Fraction or float).
    player(state): who moves at a non-terminal state, 0 or 1.
    actions(state): the legal actions at a non-terminal state (a non-empty sequence, no repeats).
    outcomes(state, action): the chance outcomes of playing `action`: (successor state, exact
    probability) pairs, each successor once, probabilities positive and summing to 1.
    Optional: ``params()`` -> dict (shown in labels and outputs; a dataclass's fields otherwise);
    ``reward(state, action)`` -> player 0's reward for playing `action` at `state` (a cost is
    negative; 0 when absent), added to the payoff at the end.
    """

    name: str
    num_players: int

    def initial_state(self) -> Hashable: ...

    def is_terminal(self, state: Any) -> bool: ...

    def payoff(self, state: Any) -> Any: ...

    def player(self, state: Any) -> int: ...

    def actions(self, state: Any) -> Sequence[Hashable]: ...

    def outcomes(self, state: Any, action: Any) -> Sequence[tuple[Hashable, Probability]]: ...


_MEMBERS = ("name", "num_players", "initial_state", "is_terminal", "payoff", "player", "actions",
            "outcomes")


def check_game_object(game: Any) -> None:
    """GameDefinitionError naming what `game` lacks of :class:`FiniteGame`, or a bad
    num_players; the states themselves are checked as they are enumerated
    (:func:`dicejack.games.space.enumerate_game`)."""
    missing = [m for m in _MEMBERS if not hasattr(game, m)]
    if missing:
        raise GameDefinitionError(
            f"{type(game).__name__} is not a game: it has no {', '.join(missing)} "
            "(see dicejack.games.FiniteGame)"
        )
    players = game.num_players
    if isinstance(players, bool) or players not in (1, 2):
        raise GameDefinitionError(f"game {game.name}: num_players must be 1 or 2, got {players!r}")


def game_params(game: Any) -> dict[str, Any]:
    """The game's parameters: its ``params()``, else a dataclass's fields, else none."""
    params = getattr(game, "params", None)
    if callable(params):
        out = params()
        if isinstance(out, Mapping):
            return dict(out)
    fields = getattr(game, "__dataclass_fields__", None)
    if fields:
        return {k: getattr(game, k) for k in fields}
    return {}


def _attributes(game: Any) -> dict[str, Any]:
    """Everything a game object holds: a dataclass's fields, else its attributes and slots."""
    fields = getattr(game, "__dataclass_fields__", None)
    if fields:
        return {k: getattr(game, k) for k in fields}
    out = dict(getattr(game, "__dict__", {}))
    for cls in type(game).__mro__:
        for k in getattr(cls, "__slots__", ()):
            if isinstance(k, str) and hasattr(game, k):
                out[k] = getattr(game, k)
    return out


def same_game(a: Any, b: Any) -> bool:
    """True when `a` and `b` are one game: the same object, or objects of one class whose
    parameters (:func:`game_params`) and everything they hold (a dataclass's fields, else every
    attribute) are equal. What a cache of games keys by: never the name or label alone (a class
    without ``params()`` labels every instance alike); anything that cannot be compared is
    another game."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    try:
        return bool(game_params(a) == game_params(b)) and bool(_attributes(a) == _attributes(b))
    except Exception:  # the game's own values: arrays, objects that refuse ==
        return False


def game_label(game: Any) -> str:
    """E.g. ``pig goal=100 die=6``: the name and parameters, for messages and outputs."""
    words = [str(game.name), *(f"{k}={v}" for k, v in game_params(game).items())]
    return " ".join(words)


def finite_number(game: Any, what: str, value: Any) -> Any:
    """`value` (a payoff or reward the game gave) when it is a finite number, else a one-line
    GameDefinitionError naming `what` (the enumerations' one check of every such number)."""
    ok = isinstance(value, (Fraction, int, float)) and not isinstance(value, bool)
    if not ok or not math.isfinite(value):
        raise GameDefinitionError(f"game {game.name}: {what} is {value!r}, not a finite number")
    return value


def exact_probability(game: Any, state: Any, action: Any, p: Any) -> Fraction:
    """An outcome's probability `p` as a Fraction when it is exact (a Fraction or an int) and
    positive, else a one-line GameDefinitionError naming the state and action (the
    enumerations' one check of every chance outcome)."""
    if isinstance(p, bool) or not isinstance(p, (Fraction, int)):
        raise GameDefinitionError(
            f"game {game.name}: outcome probability {p!r} at {state!r}, action {action!r} is not "
            "exact: give a fractions.Fraction"
        )
    if p <= 0:
        raise GameDefinitionError(
            f"game {game.name}: outcome probability {p} at {state!r}, action {action!r} is not "
            "positive (leave impossible outcomes out)"
        )
    return Fraction(p)
