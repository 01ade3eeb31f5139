"""Every game for OpenSpiel, one game class and one state class read through the game's
:mod:`~dicejack.envs.bridge`: :func:`load` (the handout's game, registered on import as
``python_dicejack`` with its parameters sides, low, high, dice; any protocol game registered
once per process as ``python_dicejack_<label>``), :class:`DicejackGame`, :class:`DicejackState`;
and the handout's decision states built directly: :func:`game_of`, :func:`state_at`,
:func:`decision_states`, :func:`decision_state` (the face: :mod:`dicejack.envs.openspiel`, whose
docstring describes the games).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from dicejack.envs.bridge import Bridge, HandoutBridge, bridge_of
from dicejack.games.bounds import MOVES_CAP
from dicejack.games.handout import HandoutGame
from dicejack.games.handout_rules import HANDOUT_GAME, Game
from dicejack.runtime.messages import DicejackError

__all__ = ["SHORT_NAME", "PROTOCOL_MAX_GAME_LENGTH", "DicejackGame", "DicejackState", "load",
           "protocol_game", "game_of", "state_at", "decision_states", "decision_state"]

SHORT_NAME = "python_dicejack"
#: A nominal max_game_length for games with cycles (Pig: two pigs return to the same scores, so
#: no length bounds every game; every game still ends with probability 1): the one cap of every
#: bridge, :data:`dicejack.games.bounds.MOVES_CAP`.
PROTOCOL_MAX_GAME_LENGTH = MOVES_CAP
_DEFAULTS = {"sides": HANDOUT_GAME.n_sides, "low": HANDOUT_GAME.low, "high": HANDOUT_GAME.high,
             "dice": HANDOUT_GAME.n_dice}
_PROTOCOL_GAMES: dict[str, Bridge] = {}  # short name -> the bridge of a registered protocol game


def _game_type(short: str, long: str, bridge: Bridge, params: dict[str, Any]) -> Any:
    two = bridge.num_players == 2
    return pyspiel.GameType(
        short_name=short,
        long_name=long,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=(pyspiel.GameType.Information.IMPERFECT_INFORMATION if bridge.hidden
                     else pyspiel.GameType.Information.PERFECT_INFORMATION),
        utility=(pyspiel.GameType.Utility.ZERO_SUM if two
                 else pyspiel.GameType.Utility.GENERAL_SUM),
        reward_model=(pyspiel.GameType.RewardModel.REWARDS if bridge.paid
                      else pyspiel.GameType.RewardModel.TERMINAL),
        max_num_players=bridge.num_players,
        min_num_players=bridge.num_players,
        provides_information_state_string=True,
        provides_information_state_tensor=bridge.hidden,
        provides_observation_string=True,
        provides_observation_tensor=bool(bridge.tensor_parts),
        parameter_specification=params,
    )


def _game_from_params(params: dict[str, Any]) -> Game:
    unknown = sorted(set(params) - set(_DEFAULTS))
    if unknown:
        raise DicejackError(f"python_dicejack has no parameter {', '.join(unknown)}; "
                            "its parameters are sides, low, high, dice")
    merged = {**_DEFAULTS, **params}
    return Game(n_sides=merged["sides"], low=merged["low"], high=merged["high"],
                n_dice=merged["dice"])


class DicejackGame(pyspiel.Game):
    """A game for OpenSpiel: python_dicejack (`params`: sides, low, high, dice) or, in the
    subclass :func:`load` registers for it, a protocol game (no parameters). Decision nodes are
    the bridge's states; a move with several outcomes is followed by a chance node (the
    handout's: the totals of the dice). Returns are player 0's return R (the moves' rewards so
    far and the payoff at the end; the handout's: +1 / -1): ``[R, -R]`` (zero-sum) for two
    players, ``[R]`` for one; ``rewards()`` is what the last move paid (kept through its chance
    node, the payoff added at the end: OpenSpiel's ``rl_environment`` reads it after chance).
    Utility range and max_game_length are the game's bounds."""

    #: The registered game's type (each protocol game registers a subclass naming its own).
    GAME_TYPE: Any = None

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        game_type = type(self).GAME_TYPE
        given = dict(params or {})
        if game_type.short_name == SHORT_NAME:
            bridge: Bridge = HandoutBridge(_game_from_params(given))
            given = {**_DEFAULTS, **given}
        elif given:
            raise DicejackError(f"{game_type.short_name} takes no parameters; build another "
                                "game with dicejack.envs.openspiel.load(game)")
        else:
            bridge = _PROTOCOL_GAMES[game_type.short_name]
        self.bridge = bridge
        ranges = [bridge.seat_range(q) for q in range(bridge.num_players)]
        info = pyspiel.GameInfo(
            num_distinct_actions=bridge.n_actions,
            max_chance_outcomes=bridge.max_chance_outcomes,
            num_players=bridge.num_players,
            min_utility=min(lo for lo, _ in ranges),
            max_utility=max(hi for _, hi in ranges),
            utility_sum=0.0 if bridge.num_players == 2 else None,
            max_game_length=bridge.max_length,
        )
        super().__init__(game_type, info, given)

    @property
    def game(self) -> Any:
        """The dicejack game (the handout's: its :class:`~dicejack.games.handout_rules.Game`)."""
        return self.bridge.game

    @property
    def space(self) -> Any:
        """A protocol game's enumeration (:class:`dicejack.games.StateSpace`; None for the
        handout's game, played from its rules)."""
        return self.bridge.space

    @property
    def action_labels(self) -> list[Any]:
        """The game's actions by OpenSpiel action id."""
        return self.bridge.action_labels

    def new_initial_state(self) -> DicejackState:
        return DicejackState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        return _Observer(self.bridge, params)


class DicejackState(pyspiel.State):
    """A position: the bridge's state `s`, the action whose chance node is pending (None
    otherwise), what player 0 has been paid so far (``paid``, exact when the game's rewards
    are) and by the last move (``last``)."""

    def __init__(self, game: DicejackGame) -> None:
        super().__init__(game)
        self._b = game.bridge
        self.s: Any = self._b.initial
        self.pending: int | None = self._b.opening
        self.paid: Any = 0
        self.last: Any = 0

    @property
    def scores(self) -> list[int]:
        """The handout's game: both scores (setting them moves the position, as tests do)."""
        return list(self.s[:2])

    @scores.setter
    def scores(self, value: list[int]) -> None:
        self.s = (int(value[0]), int(value[1]), *self.s[2:])

    @property
    def index(self) -> Any:
        """A protocol game's state index in the enumeration."""
        return self.s

    # --------------------------------------------------------------------- the OpenSpiel API
    def current_player(self) -> int:
        if self._b.terminal(self.s):
            return pyspiel.PlayerId.TERMINAL
        return pyspiel.PlayerId.CHANCE if self.pending is not None else self._b.player(self.s)

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(self._b.legal(self.s))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self._b.chance(self.s, self.pending)

    def _apply_action(self, action: int) -> None:
        b = self._b
        if self.pending is not None:
            self.s = b.after(self.s, self.pending, int(action))
            self.pending = None
            return
        self.last = b.reward(self.s, int(action))
        self.paid += self.last
        if b.sure(self.s, int(action)):  # one outcome: no chance node
            self.s = b.after(self.s, int(action), 0)
        else:
            self.pending = int(action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return self._b.outcome_text(self.s, self.pending, int(action))
        return self._b.action_text(int(action))

    def is_terminal(self) -> bool:
        return self._b.terminal(self.s)

    def returns(self) -> list[float]:
        """Player 0's return so far (rewards paid, and the payoff at the end), per player."""
        return self._b.seats(self.paid + self._b.end(self.s))

    def rewards(self) -> list[float]:
        """What the last move paid (kept through its chance node), and the payoff at the end."""
        return self._b.seats(self.last + self._b.end(self.s))

    def position(self) -> str:
        """The state's text without what has been paid."""
        return self._b.position(self.s, self.pending)

    def __str__(self) -> str:
        return self._b.state_text(self.s, self.pending, self.paid)


class _Observer:
    """OpenSpiel's PyObserver: player p's view (the handout's game: a tensor of p's score, the
    opponent's, whether p is to move and the dice p chose; a game with hidden information: a
    one-hot of p and of its key's index; another protocol game: none) and string (a game with
    hidden information: p's key; observation and information state alike)."""

    def __init__(self, bridge: Bridge, params: Any) -> None:
        if params:
            raise ValueError(f"dicejack games' observers take no parameters; got {params}")
        self._b = bridge
        parts = bridge.tensor_parts
        self.tensor = np.zeros(max((p.stop for p in parts.values()), default=0), np.float32)
        self.dict = {name: self.tensor[part] for name, part in parts.items()}

    def set_from(self, state: DicejackState, player: int) -> None:
        self._b.fill_tensor(self.tensor, state.s, state.pending, player)

    def string_from(self, state: DicejackState, player: int) -> str:
        return self._b.observation_string(state.s, state.pending, state.paid,
                                          state.current_player(), player)


DicejackGame.GAME_TYPE = _game_type(SHORT_NAME, "dicejack: the handout's dice game",
                                    HandoutBridge(HANDOUT_GAME), _DEFAULTS)
pyspiel.register_game(DicejackGame.GAME_TYPE, DicejackGame)


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in text).strip("_").lower()


def load(game: Any = HANDOUT_GAME) -> DicejackGame:
    """`game` as an OpenSpiel game, loaded: the handout's game (a
    :class:`~dicejack.games.handout_rules.Game` or ``HandoutGame``) as python_dicejack with its
    parameters; any protocol game (a :class:`dicejack.games.FiniteGame`: Pig, Piglet, the
    user's) registered once per process as ``python_dicejack_<game label>`` (e.g.
    ``python_dicejack_pig_goal_10_die_6``; then ``pyspiel.load_game`` of that name works too:
    what OpenSpiel's serialization and pickling use: a process that unpickles one calls load
    for the same game first). The registry keys by the game itself
    (:func:`dicejack.games.protocol.same_game`: the same object, or one of the same class with
    equal parameters and attributes), never by the label alone: another game under a label
    already taken (a class without ``params()``) is registered as ``..._2``, ``..._3``, in the
    order they come."""
    from dicejack.games.protocol import game_label, same_game

    if isinstance(game, (Game, HandoutGame)):
        g = bridge_of(game).game
        return pyspiel.load_game(SHORT_NAME, {"sides": g.n_sides, "low": g.low,
                                              "high": g.high, "dice": g.n_dice})
    base = SHORT_NAME + "_" + _slug(game_label(game))
    short, k = base, 1
    while short in _PROTOCOL_GAMES:
        if same_game(_PROTOCOL_GAMES[short].game, game):
            return pyspiel.load_game(short)
        k += 1
        short = f"{base}_{k}"
    bridge = bridge_of(game)
    _PROTOCOL_GAMES[short] = bridge
    game_type = _game_type(short, f"dicejack protocol game: {game_label(game)}", bridge, {})
    name = f"DicejackGame_{short}"
    cls = type(name, (DicejackGame,), {"GAME_TYPE": game_type, "__module__": __name__,
                                        "__qualname__": name})
    globals()[name] = cls  # pickle finds it here (in a process that registered the game)
    pyspiel.register_game(game_type, cls)
    return pyspiel.load_game(short)


#: Any protocol game as an OpenSpiel game: :func:`load` (the name it had when protocol games
#: had an OpenSpiel game of their own; users import it).
protocol_game = load


def game_of(os_game: Any) -> Game:
    """The dicejack :class:`Game` of a loaded python_dicejack game."""
    if os_game.get_type().short_name != SHORT_NAME:
        raise DicejackError(f"not a python_dicejack game: {os_game}")
    return _game_from_params(dict(os_game.get_parameters()))


def state_at(os_game: Any, x: int, y: int, player: int = 0) -> DicejackState:
    """The decision state where `player` (0 or 1) is to move at the handout's <x, y>: its own
    score x, the opponent's y (no history: every policy over this game's information states
    answers the same)."""
    game = game_of(os_game)
    if not (0 <= x < game.low and 0 <= y < game.low) or player not in (0, 1):
        raise DicejackError(f"no decision state <{x},{y}> for player {player} in {game}")
    state = os_game.new_initial_state()
    state.s = HandoutBridge.decision(x, y, player)
    return state


def decision_states(os_game: Any) -> dict[str, DicejackState]:
    """Every decision state of the game (both seats, every <X, Y>), keyed by its information
    state string, built directly (2 L^2 states; OpenSpiel's ``get_all_states`` walks every
    history instead). Includes the states no game reaches (player 0 never moves at <0, Y>,
    Y > 0): a policy over them answers everywhere."""
    game = game_of(os_game)
    states = {}
    for player in (0, 1):
        for x in range(game.low):
            for y in range(game.low):
                state = state_at(os_game, x, y, player)
                states[state.information_state_string(player)] = state
    return states


def decision_state(key: str) -> tuple[int, int, int] | None:
    """(player 0's score, player 1's, player to move) of a decision state's string (``str`` of
    the state, its information state string), e.g. the keys of OpenSpiel's value_iteration;
    None for chance and terminal states."""
    scores, _, rest = key.partition(": player ")
    if not rest.endswith(" to move"):
        return None
    s0, s1 = scores.removeprefix("scores ").split(",")
    return int(s0), int(s1), int(rest.split()[0])
