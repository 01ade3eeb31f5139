"""The handout's game for OpenSpiel, ``python_dicejack``, registered on import, and its decision
states built directly: :class:`DicejackGame`, :func:`load`, :func:`game_of`, :func:`state_at`,
:func:`decision_states`, :func:`decision_state` (the face: :mod:`dicejack.envs.openspiel`, whose
docstring describes the game, its observation and information state).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from dicejack.games.handout_rules import CONTINUES, HANDOUT_GAME, MOVER_WINS, Game
from dicejack.runtime.messages import DicejackError

__all__ = ["SHORT_NAME", "DicejackGame", "DicejackState", "load", "game_of", "state_at",
           "decision_states", "decision_state"]

SHORT_NAME = "python_dicejack"
_DEFAULTS = {"sides": HANDOUT_GAME.n_sides, "low": HANDOUT_GAME.low, "high": HANDOUT_GAME.high,
             "dice": HANDOUT_GAME.n_dice}

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="dicejack: the handout's dice game",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
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
    """The game for OpenSpiel; `params` as in :data:`_GAME_TYPE` (sides, low, high, dice)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        given = dict(params or {})
        self.game = _game_from_params(given)
        g = self.game
        info = pyspiel.GameInfo(
            num_distinct_actions=g.n_dice,
            max_chance_outcomes=g.n_dice * g.n_sides + 1,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            # every turn adds >= 1 to the mover's score: each player decides at most low times
            max_game_length=2 * g.low,
        )
        super().__init__(_GAME_TYPE, info, {**_DEFAULTS, **given})

    def new_initial_state(self) -> DicejackState:
        return DicejackState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> _Observer:
        return _Observer(self.game, params)


class DicejackState(pyspiel.State):
    """One position: both scores, the player to move, the dice chosen (0 before a choice)."""

    def __init__(self, game: DicejackGame) -> None:
        super().__init__(game)
        self._game = game.game
        self.scores = [0, 0]
        self.player = 0
        self.dice = 0
        self.winner: int | None = None

    # --------------------------------------------------------------------- the OpenSpiel API
    def current_player(self) -> int:
        if self.winner is not None:
            return pyspiel.PlayerId.TERMINAL
        return pyspiel.PlayerId.CHANCE if self.dice else self.player

    def _legal_actions(self, player: int) -> list[int]:
        return list(range(self._game.n_dice))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self._game.chance_outcomes(self.dice)

    def _apply_action(self, action: int) -> None:
        if not self.dice:
            self.dice = int(action) + 1
            return
        score = self.scores[self.player] + int(action)
        result = self._game.outcome(score)
        self.dice = 0
        if result == CONTINUES:
            self.scores[self.player] = score
            self.player = 1 - self.player
        else:
            self.winner = self.player if result == MOVER_WINS else 1 - self.player

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"rolled {action}"
        return f"roll {Game.dice_label(int(action) + 1)}"

    def is_terminal(self) -> bool:
        return self.winner is not None

    def returns(self) -> list[float]:
        if self.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.winner == 0 else [-1.0, 1.0]

    def __str__(self) -> str:
        s0, s1 = self.scores
        if self.winner is not None:
            return f"scores {s0},{s1}: player {self.winner} won"
        if self.dice:
            return f"scores {s0},{s1}: player {self.player} rolls {Game.dice_label(self.dice)}"
        return f"scores {s0},{s1}: player {self.player} to move"


class _Observer:
    """OpenSpiel's PyObserver: player p's view, see :mod:`dicejack.envs.openspiel`."""

    def __init__(self, game: Game, params: Any) -> None:
        if params:
            raise ValueError(f"python_dicejack's observer takes no parameters; got {params}")
        self.tensor = np.zeros(4, np.float32)
        self.dict = {"scores": self.tensor[:2], "to_move": self.tensor[2:3],
                     "dice": self.tensor[3:4]}

    def set_from(self, state: DicejackState, player: int) -> None:
        own, other = state.scores[player], state.scores[1 - player]
        mine = state.winner is None and state.player == player
        self.tensor[:] = (own, other, float(mine), state.dice if mine else 0)

    def string_from(self, state: DicejackState, player: int) -> str:
        return str(state)


pyspiel.register_game(_GAME_TYPE, DicejackGame)

def load(game: Game = HANDOUT_GAME) -> DicejackGame:
    """``pyspiel.load_game`` of `game` as python_dicejack."""
    return pyspiel.load_game(SHORT_NAME, {"sides": game.n_sides, "low": game.low,
                                          "high": game.high, "dice": game.n_dice})


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
    state.scores = [x, y] if player == 0 else [y, x]
    state.player = player
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
