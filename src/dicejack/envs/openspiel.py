"""The handout's game for OpenSpiel: ``import dicejack.envs.openspiel`` registers
``python_dicejack``.

``pyspiel.load_game("python_dicejack(sides=3,low=10,high=20,dice=2)")`` (default: the handout's
6, 15, 17, 2). Sequential, two players, perfect information, zero-sum, returns +1 / -1 at the end.
A turn is two moves: the player to move chooses action a = J - 1 (0-based, J dice), then a chance
node rolls: its outcomes are the totals t that J dice can show, each with its exact probability
(``Game.chance_outcomes``); the rules after the roll are ``Game.outcome``. Player 0 moves first.

Observation (tensor and string) from player p's view: p's score, the opponent's, whether it is
p's turn and the dice chosen (0 before the roll). The information state string is the same Markov
state (scores and the player to move): in this perfect-information game nothing earlier matters
to the future, so tabular algorithms see one entry per <X, Y> and seat, not one per history.

Also the bridges between OpenSpiel and dicejack's conventions, all keyed by information state
(the 2 L^2 decision states, built directly: never a walk of every history, which on the
handout's game is about 1.3e10 of them): :func:`decision_states` and :func:`tabular_policy` (a
``TabularPolicy`` over them, where ``TabularPolicy(os_game)`` would walk every history),
:func:`policy_table` reads any OpenSpiel policy as the handout's (L, L, K+1) action distribution
per <X, Y> (mover's view), :func:`openspiel_policy` turns a dicejack policy into an OpenSpiel
``TabularPolicy``, :func:`seat_values` / :func:`exploitability` measure any OpenSpiel policy
exactly as OpenSpiel's ``exploitability`` does (each seat read apart: NashConv / 2 of the pair),
:func:`game_of` reads the dicejack Game of a loaded game. On import this module teaches
``compare.learned_from_policy`` to read OpenSpiel policies.

OpenSpiel is not a dependency of dicejack: in a clone of dicejack, ``pip install
'.[openspiel]'`` (open-spiel and cvxpy, which OpenSpiel's ``value_iteration`` imports but
OpenSpiel does not install).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dicejack.games.handout_rules import CONTINUES, HANDOUT_GAME, MOVER_WINS, Game
from dicejack.runtime.messages import DicejackError


class OpenSpielMissingError(DicejackError, ImportError):
    """:mod:`dicejack.envs.openspiel` was imported but OpenSpiel is not installed."""


try:
    import pyspiel
except ImportError:
    raise OpenSpielMissingError(
        "dicejack.envs.openspiel needs OpenSpiel, which dicejack does not install: "
        "pip install '.[openspiel]' in a clone of dicejack (or pip install open-spiel cvxpy)"
    ) from None

from dicejack import compare, solver  # noqa: E402  (after the OpenSpiel check, on purpose)
from dicejack.compare.learned import register_policy_reader  # noqa: E402
from dicejack.games.bounds import MOVES_CAP, Bounds, game_bounds  # noqa: E402
from dicejack.solver.best_response import SeatValues  # noqa: E402
from dicejack.solver.solution import policy_distribution  # noqa: E402

#: The public face (docs/design/api.md; tests/test_public_faces.py holds it). The game and
#: state classes OpenSpiel instantiates (DicejackGame, DicejackState, ProtocolGame,
#: ProtocolState), decision_state and PROTOCOL_MAX_GAME_LENGTH stay importable by name.
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
]

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
    """OpenSpiel's PyObserver: player p's view, see the module docstring."""

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


# ------------------------------------------------------------------------------- bridges
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


def tabular_policy(os_game: Any) -> Any:
    """OpenSpiel's ``TabularPolicy`` (uniformly random) over :func:`decision_states`, keyed by
    information state: what ``TabularPolicy(os_game)`` gives on a tiny game, on any game
    dicejack solves (``TabularPolicy(os_game)`` walks every history and does not return on
    the handout's game)."""
    from open_spiel.python import policy as policy_lib

    return policy_lib.TabularPolicy(os_game, states=decision_states(os_game))


class SeatsDifferError(DicejackError):
    """An OpenSpiel policy plays differently as player 0 and as player 1 at <x, y>; read one
    seat (``policy_table(..., seat=)``) or measure the pair (:func:`seat_values`)."""

    def __init__(self, x: int, y: int) -> None:
        self.x, self.y = x, y
        super().__init__(
            f"the policy plays differently as player 0 and player 1 (first at <{x},{y}>): read "
            "one seat with policy_table(os_game, policy, seat=0) or seat=1, and measure the pair "
            "with dicejack.envs.openspiel.seat_values(os_game, policy)"
        )


def policy_table(os_game: Any, policy: Any, seat: int | None = None) -> np.ndarray:
    """An OpenSpiel policy (anything with ``action_probabilities(state)``) as the handout's
    (L, L, K+1) action distribution per <X, Y> from the mover's view (column 0 zero).

    seat: read the policy as player 0 or player 1 plays it; None (default) reads both and refuses
    a policy that plays differently in the two seats (:class:`SeatsDifferError`), rather than
    picking one. A state the policy cannot answer in the seats read (a ``TabularPolicy(os_game)``
    knows only the states reachable from the start: player 0 never moves at <0, Y> with Y > 0)
    is a row of NaN, which compare and the solver read as "no data" (a uniformly random J, or
    an error with fill='error'). Asks the policy 2 L^2 times (L^2 with `seat`).
    """
    game = game_of(os_game)
    if seat not in (None, 0, 1):
        raise DicejackError(f"seat must be 0, 1 or None (both), got {seat!r}")
    seats = (0, 1) if seat is None else (seat,)
    tables = [_seat_table(os_game, game, policy, player) for player in seats]
    dist = tables[0]
    if len(tables) == 2:
        a, b = tables
        known_a, known_b = ~np.isnan(a).all(axis=2), ~np.isnan(b).all(axis=2)
        differ = known_a & known_b & ~np.isclose(a, b, atol=1e-12).all(axis=2)
        if differ.any():
            x, y = np.argwhere(differ)[0]
            raise SeatsDifferError(int(x), int(y))
        dist = np.where(known_a[:, :, None], a, b)
    return dist


def _seat_table(os_game: Any, game: Game, policy: Any, player: int) -> np.ndarray:
    """One seat's (L, L, K+1) distribution; rows of NaN where the policy has no answer."""
    k = game.n_dice
    dist = np.full(game.table_shape, np.nan)
    for x in range(game.low):
        for y in range(game.low):
            try:
                probs = policy.action_probabilities(state_at(os_game, x, y, player))
            except (KeyError, IndexError):  # a tabular policy without this state
                continue
            row = np.zeros(k + 1)
            for action, p in probs.items():
                if not 0 <= int(action) < k:
                    raise DicejackError(f"the policy plays action {action} at <{x},{y}>; "
                                        f"legal actions are 0..{k - 1}")
                row[int(action) + 1] += float(p)
            dist[x, y] = row
    return dist


def openspiel_policy(
    os_game: Any, policy: Any, second: Any = None, *, zero_based: bool = False
) -> Any:
    """A dicejack policy (an (L, L) table of J, an (L, L, K+1) distribution, a callable
    (x, y) -> J or a Solution; `zero_based`: a table or callable of actions 0..K-1) as an
    OpenSpiel ``TabularPolicy`` over :func:`decision_states` (keyed by information state, every
    <X, Y> in both seats): `policy` in both seats, or in player 0's seat with `second` (any such
    form) in player 1's -- a seat pair, as two learners trained apart. No-data states (-1, NaN)
    play a uniformly random J."""
    game = game_of(os_game)
    dists = [policy_distribution(game, policy, zero_based=zero_based)]
    dists.append(dists[0] if second is None
                 else policy_distribution(game, second, zero_based=zero_based))
    table = tabular_policy(os_game)
    for key, index in table.state_lookup.items():
        state = decision_state(key)
        if state is None:
            continue
        s0, s1, player = state
        x, y = (s0, s1) if player == 0 else (s1, s0)
        table.action_probability_array[index] = dists[player][x, y, 1:]
    return table


def seat_values(os_game: Any, policy: Any) -> SeatValues:
    """What a best response wins against any OpenSpiel policy, each seat read as it plays
    (:func:`policy_table` with seat=0 and seat=1): a
    :class:`dicejack.solver.best_response.SeatValues`, whose
    ``exploitability`` is OpenSpiel's ``exploitability(os_game, policy)`` and ``nash_conv`` its
    ``nash_conv``, exactly and in milliseconds where OpenSpiel walks every history."""
    game = game_of(os_game)
    first, second = (policy_table(os_game, policy, seat=s) for s in (0, 1))
    return solver.seat_values(game, first, second)


def exploitability(os_game: Any, policy: Any) -> float:
    """OpenSpiel's ``exploitability(os_game, policy)`` (NashConv / 2), exactly, by
    :func:`seat_values`."""
    return seat_values(os_game, policy).exploitability


def decision_state(key: str) -> tuple[int, int, int] | None:
    """(player 0's score, player 1's, player to move) of a decision state's string (``str`` of
    the state, its information state string), e.g. the keys of OpenSpiel's value_iteration;
    None for chance and terminal states."""
    scores, _, rest = key.partition(": player ")
    if not rest.endswith(" to move"):
        return None
    s0, s1 = scores.removeprefix("scores ").split(",")
    return int(s0), int(s1), int(rest.split()[0])


def _is_openspiel_policy(obj: Any) -> bool:
    return hasattr(obj, "action_probabilities") and hasattr(obj, "game")


def _read_openspiel_policy(game: Game, policy: Any) -> np.ndarray:
    os_game = policy.game
    if game_of(os_game) != game:
        raise compare.CompareError(f"the OpenSpiel policy is for {game_of(os_game)}, not {game}")
    try:
        return policy_table(os_game, policy)
    except SeatsDifferError as exc:
        raise compare.CompareError(
            f"the OpenSpiel policy plays differently as player 0 and player 1 (first at "
            f"<{exc.x},{exc.y}>), so compare will not pick one: compare each seat's table, "
            "dicejack.envs.openspiel.policy_table(os_game, policy, seat=0) (and seat=1), and "
            "measure the pair with dicejack.envs.openspiel.seat_values(os_game, policy)"
        ) from None
    except DicejackError as exc:
        raise compare.CompareError(str(exc)) from None


register_policy_reader(_is_openspiel_policy, _read_openspiel_policy)


# ------------------------------------------------------------------------ protocol games
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
