"""Any protocol game (:mod:`dicejack.games`: Pig, Piglet, the user's) as an OpenSpiel game:
:func:`protocol_game` registers one per game, :class:`ProtocolGame` and :class:`ProtocolState`
play it from the enumerated game's arrays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyspiel

from dicejack.games.bounds import MOVES_CAP, Bounds, game_bounds
from dicejack.runtime.messages import DicejackError

__all__ = ["PROTOCOL_MAX_GAME_LENGTH", "ProtocolGame", "ProtocolState", "protocol_game"]


#: A nominal max_game_length for protocol games with cycles (Pig: two pigs return to the same
#: scores, so no length bounds every game; every game still ends with probability 1): the one
#: cap of every bridge, :data:`dicejack.games.bounds.MOVES_CAP`.
PROTOCOL_MAX_GAME_LENGTH = MOVES_CAP
_PROTOCOL_GAMES: dict[str, Any] = {}  # short name -> _Protocol


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in text).strip("_").lower()


@dataclass(frozen=True, eq=False)
class _Protocol:
    """What a registered protocol game's nodes read: the game, its enumeration and arrays, its
    rewards per row as the game gave them (None when it pays none) and its bounds."""

    game: Any
    space: Any
    action_labels: list[Any]
    row_action: np.ndarray
    indptr: np.ndarray
    succ: np.ndarray
    prob: np.ndarray
    reward: list[Any] | None
    bounds: Bounds


class ProtocolGame(pyspiel.Game):
    """A protocol game (:mod:`dicejack.games`) for OpenSpiel, built by :func:`protocol_game`.

    Its decision nodes are the enumerated game's non-terminal states; action ids number the
    game's actions in the order the enumeration first meets them (``action_labels``); a move
    with several outcomes is followed by a chance node whose outcome k is the move's k-th
    successor, with its exact probability. Returns are player 0's return R (the rewards of
    the moves so far, ``reward(state, action)``, plus the payoff at the end): ``[R, -R]``
    (zero-sum) for two players, ``[R]`` for one; ``rewards()`` is what the last move paid
    (kept through its chance node, the payoff added at the end: OpenSpiel's
    ``rl_environment`` reads it after chance), so the rewards seen at decisions and at the end
    sum to the returns. A game that pays rewards on the way has reward model REWARDS (else
    TERMINAL), and its state's text (``str``, what OpenSpiel's ``value_iteration`` keys by)
    adds what has been paid so far when it is not 0 (so a game whose cycles pay has endlessly
    many texts: OpenSpiel's value_iteration cannot list them; dicejack's solver solves it).
    Utility range and max_game_length are the game's bounds
    (:func:`dicejack.games.bounds.game_bounds`). Perfect information: the
    information state and observation strings are the protocol state's repr and the player to
    move. The arrays live in the per-process registry under the game's short name (OpenSpiel
    rebuilds game objects when it clones or deserializes states)."""

    #: The registered game's type (each protocol game registers a subclass naming its own).
    GAME_TYPE: Any = None

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        game_type = type(self).GAME_TYPE
        if params:
            raise DicejackError(f"{game_type.short_name} takes no parameters; build another "
                                "game with dicejack.envs.openspiel.protocol_game(game)")
        p = _PROTOCOL_GAMES[game_type.short_name]
        players = p.space.num_players
        ranges = [p.bounds.seat(q) for q in range(players)]
        info = pyspiel.GameInfo(
            num_distinct_actions=len(p.action_labels),
            max_chance_outcomes=int(np.diff(p.indptr).max(initial=1)),
            num_players=players,
            min_utility=min(lo for lo, _ in ranges),
            max_utility=max(hi for _, hi in ranges),
            utility_sum=0.0 if players == 2 else None,
            max_game_length=p.bounds.move_limit,
        )
        super().__init__(game_type, info, {})

    @property
    def protocol(self) -> _Protocol:
        return _PROTOCOL_GAMES[self.get_type().short_name]

    @property
    def space(self) -> Any:
        """The enumerated game (:class:`dicejack.games.StateSpace`)."""
        return self.protocol.space

    @property
    def action_labels(self) -> list[Any]:
        """The game's actions by OpenSpiel action id."""
        return self.protocol.action_labels

    def new_initial_state(self) -> ProtocolState:
        return ProtocolState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _ProtocolObserver:
        return _ProtocolObserver(params)


class ProtocolState(pyspiel.State):
    """A position of a :class:`ProtocolGame`: the protocol state's index, the row (state,
    action) chosen when a chance node is pending (-1 otherwise), what player 0 has been paid so
    far (``paid``, as the game gave the rewards: exact when they are) and by the last move
    (``last``)."""

    def __init__(self, game: ProtocolGame) -> None:
        super().__init__(game)
        self._g = game.protocol
        self.index = 0
        self.row = -1
        self.paid: Any = 0
        self.last: Any = 0

    def current_player(self) -> int:
        space = self._g.space
        if space.terminal[self.index]:
            return pyspiel.PlayerId.TERMINAL
        return pyspiel.PlayerId.CHANCE if self.row >= 0 else int(space.player[self.index])

    def _rows(self) -> dict[int, int]:
        space = self._g.space
        lo, hi = int(space.row_start[self.index]), int(space.row_start[self.index + 1])
        return {int(self._g.row_action[r]): r for r in range(lo, hi)}

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(self._rows())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        lo, hi = int(self._g.indptr[self.row]), int(self._g.indptr[self.row + 1])
        return [(k, float(self._g.prob[lo + k])) for k in range(hi - lo)]

    def _apply_action(self, action: int) -> None:
        g = self._g
        if self.row >= 0:
            self.index = int(g.succ[int(g.indptr[self.row]) + int(action)])
            self.row = -1
            return
        row = self._rows()[int(action)]
        self.last = 0 if g.reward is None else g.reward[row]
        self.paid += self.last
        lo, hi = int(g.indptr[row]), int(g.indptr[row + 1])
        if hi - lo == 1:  # a sure outcome: no chance node
            self.index = int(g.succ[lo])
        else:
            self.row = row

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            g = self._g
            nxt = int(g.succ[int(g.indptr[self.row]) + int(action)])
            return f"outcome {action}: {g.space.states[nxt]!r}"
        return str(self._g.action_labels[int(action)])

    def is_terminal(self) -> bool:
        return bool(self._g.space.terminal[self.index])

    def _seats(self, value: Any) -> list[float]:
        """Player 0's `value` and player 1's (its negative) as OpenSpiel's per-player list."""
        v = float(value)
        return [v, -v] if self._g.space.num_players == 2 else [v]

    def _end(self) -> Any:
        """The payoff if the game is over here, else 0."""
        space = self._g.space
        return space.payoff_exact[self.index] if space.terminal[self.index] else 0

    def returns(self) -> list[float]:
        """Player 0's return so far (rewards paid, and the payoff at the end), per player."""
        return self._seats(self.paid + self._end())

    def rewards(self) -> list[float]:
        """What the last move paid (kept through its chance node), and the payoff at the end."""
        return self._seats(self.last + self._end())

    def position(self) -> str:
        """The protocol state's repr, and the move whose chance node is pending."""
        space = self._g.space
        text = repr(space.states[self.index])
        if self.row >= 0:
            text += f" after {space.actions[self.row]!r}"
        return text

    def __str__(self) -> str:
        return self.position() + (f" (paid so far: {self.paid})" if self.paid else "")


class _ProtocolObserver:
    """Perfect information: the state's text for every player; no tensor."""

    def __init__(self, params: Any) -> None:
        if params:
            raise ValueError(f"protocol games' observers take no parameters; got {params}")
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict[str, Any] = {}

    def set_from(self, state: ProtocolState, player: int) -> None:
        pass

    def string_from(self, state: ProtocolState, player: int) -> str:
        mover = state.current_player()
        return f"{state.position()} (to move: {mover})"


def protocol_game(game: Any) -> ProtocolGame:
    """Protocol game `game` (a :class:`dicejack.games.FiniteGame`: Pig, Piglet, the user's) as
    an OpenSpiel game, registered once per process as ``python_dicejack_<game label>`` (e.g.
    ``python_dicejack_pig_goal_10_die_6``, then ``pyspiel.load_game`` of that name works too:
    what OpenSpiel's serialization and pickling use: a process that unpickles one calls
    protocol_game for the same game first). The registry keys by the game itself
    (:func:`dicejack.games.protocol.same_game`: the same object, or one of the same class with
    equal parameters and attributes), never by the label alone: another game under a label
    already taken (a class without ``params()``) is registered as ``..._2``, ``..._3``, in the
    order they come."""
    from dicejack.games import enumerate_game
    from dicejack.games.protocol import game_label, same_game

    base = "python_dicejack_" + _slug(game_label(game))
    short, k = base, 1
    while short in _PROTOCOL_GAMES:
        if same_game(_PROTOCOL_GAMES[short].game, game):
            return pyspiel.load_game(short)
        k += 1
        short = f"{base}_{k}"
    space = enumerate_game(game)
    two = space.num_players == 2
    paid = space.reward is not None and bool(np.any(space.reward))
    game_type = pyspiel.GameType(
        short_name=short,
        long_name=f"dicejack protocol game: {game_label(game)}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=(pyspiel.GameType.Utility.ZERO_SUM if two
                 else pyspiel.GameType.Utility.GENERAL_SUM),
        reward_model=(pyspiel.GameType.RewardModel.REWARDS if paid
                      else pyspiel.GameType.RewardModel.TERMINAL),
        max_num_players=space.num_players,
        min_num_players=space.num_players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=False,
        parameter_specification={},
    )

    labels = list(dict.fromkeys(space.actions))
    ids = {a: i for i, a in enumerate(labels)}
    t = space.transitions
    _PROTOCOL_GAMES[short] = _Protocol(game, space, labels,
                                       np.array([ids[a] for a in space.actions]),
                                       t.indptr, t.indices, t.data,
                                       space.reward_exact if paid else None,
                                       game_bounds(space))

    name = f"ProtocolGame_{short}"
    cls = type(name, (ProtocolGame,), {"GAME_TYPE": game_type, "__module__": __name__,
                                        "__qualname__": name})
    globals()[name] = cls  # pickle finds it here (in a process that registered the game)
    pyspiel.register_game(game_type, cls)
    return pyspiel.load_game(short)
