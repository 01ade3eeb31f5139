"""The handout's dice game as a Gymnasium environment, so that any agent can learn it.

:class:`DiceJackEnv` (id ``dicejack/DiceJack-v0``, registered on
``import dicejack.envs.gym_env``) plays one agent against a fixed opponent policy, or against
itself; its class docstring is the specification. :func:`dicejack.compare.greedy_tables` turns
what an agent learned into the handout's two output arrays. The rules come from
:mod:`dicejack.games.handout_rules` through the game's bridge
(:class:`~dicejack.envs.bridge.HandoutBridge`, the one the PettingZoo environment
:mod:`dicejack.envs.dicejack_v0` plays): :class:`DiceJackEnv` is the one single-agent
environment (:class:`dicejack.envs.aec_single.SingleAgentEnv`, which steps the bridge itself)
with the handout's conventions: the opponents below, seats drawn per episode, self-play, what
the agent sees and is paid; it records each move (``info["moves"]``) and keeps no stepping loop
of its own.

gymnasium is not a dependency of dicejack, nor pettingzoo (whose environment gives its settings):
``pip install '.[gym]'`` in a clone installs both. Without them, importing this module raises
:class:`GymMissingError` (a one-line :class:`dicejack.DicejackError`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numpy as np

from dicejack.runtime.messages import DicejackError


class GymMissingError(DicejackError, ImportError):
    """:mod:`dicejack.envs.gym_env` was imported but gymnasium (or pettingzoo, whose environment
    gives its settings) is not installed."""


try:
    import gymnasium
    from gymnasium import spaces
except ImportError:
    raise GymMissingError(
        "dicejack.envs.gym_env needs gymnasium, which dicejack does not install: "
        "pip install '.[gym]' in a clone of dicejack (or pip install gymnasium)"
    ) from None
try:
    import pettingzoo  # noqa: F401  (the one environment DiceJackEnv is one agent of)
except ImportError:
    raise GymMissingError(
        "dicejack.envs.gym_env needs pettingzoo (DiceJackEnv is one agent of dicejack's "
        "PettingZoo environment), which dicejack does not install: pip install '.[gym]' in a "
        "clone of dicejack (or pip install pettingzoo)"
    ) from None

from dicejack import solver  # noqa: E402  (after the gymnasium check, on purpose)
from dicejack.envs.aec_single import MAX_OPENING_RESTARTS, SingleAgentEnv  # noqa: E402
from dicejack.envs.dicejack_v0 import AGENTS, raw_env  # noqa: E402
from dicejack.games.handout_rules import HANDOUT_GAME, Game, roll_total  # noqa: E402
from dicejack.solver.solution import no_data_mask, policy_distribution  # noqa: E402

__all__ = [
    "ENV_ID",
    "HANDOUT_GAME",
    "OPPONENTS",
    "MAX_OPENING_RESTARTS",
    "GymMissingError",
    "EnvError",
    "Move",
    "DiceJackEnv",
    "roll_total",
    "check_dice",
    "opponent_policy",
    "register",
]

#: The id under which ``import dicejack.envs.gym_env`` registers :class:`DiceJackEnv`.
ENV_ID = "dicejack/DiceJack-v0"
#: The opponents named by a string.
OPPONENTS = ("optimal", "uniform", "self")

#: A policy callable: (x, y, rng) -> J, with <x, y> from the mover's view.
OpponentFn = Callable[[int, int, np.random.Generator], Any]


class EnvError(DicejackError, ValueError):
    """A bad argument to the environment, an invalid action, or a step out of turn."""


class Move(NamedTuple):
    """One move: who rolled, how many dice, the total they showed, the mover's score after it."""

    player: str
    dice: int
    total: int
    score: int


# ------------------------------------------------------------------------------ the rules

def check_dice(j: Any, n_dice: int, what: str = "action", zero_based: bool = False) -> int:
    """`j` as a number of dice in 1..n_dice (an int, a numpy integer or a 0-d integer array);
    anything else, booleans included, is an :class:`EnvError` naming `what`. `zero_based`: `j`
    is an action a in 0..n_dice-1 meaning J = a + 1."""
    if type(j) is int and (0 if zero_based else 1) <= j <= (n_dice - 1 if zero_based else n_dice):
        return j + 1 if zero_based else j  # the common case, without the checks below
    if isinstance(j, np.ndarray) and j.shape == () and np.issubdtype(j.dtype, np.integer):
        j = j.item()
    if zero_based:
        if isinstance(j, (bool, np.bool_)) or not isinstance(j, (int, np.integer)):
            raise EnvError(f"{what} must be an integer in 0..{n_dice - 1} (J - 1 dice), got "
                           f"{j!r} ({type(j).__name__})")
        if not 0 <= j < n_dice:
            raise EnvError(f"{what} must be in 0..{n_dice - 1} (J - 1 dice), got {int(j)}")
        return int(j) + 1
    if isinstance(j, (bool, np.bool_)) or not isinstance(j, (int, np.integer)):
        raise EnvError(
            f"{what} must be a number of dice J, an integer in 1..{n_dice}, got {j!r} "
            f"({type(j).__name__})"
        )
    if not 1 <= j <= n_dice:
        raise EnvError(f"{what} must be a number of dice J in 1..{n_dice}, got {int(j)}")
    return int(j)


def _table_policy(table: np.ndarray) -> OpponentFn:
    def play(x: int, y: int, rng: np.random.Generator) -> int:
        return int(table[x, y])

    return play


def _distribution_policy(cumulative: np.ndarray, n_dice: int) -> OpponentFn:
    def play(x: int, y: int, rng: np.random.Generator) -> int:
        # The handout's sampler: the first J with u < p_1 + ... + p_J, else K.
        return min(int(np.searchsorted(cumulative[x, y], rng.random(), side="right")) + 1, n_dice)

    return play


def _uniform_policy(n_dice: int) -> OpponentFn:
    def play(x: int, y: int, rng: np.random.Generator) -> int:
        return int(rng.integers(1, n_dice + 1))

    return play


def opponent_policy(game: Game, opponent: Any) -> OpponentFn | None:
    """The opponent as a function (x, y, rng) -> J, or None for self-play ("self").

    "optimal": the lowest optimal J of :func:`dicejack.solver.solve_values`; "uniform": J
    uniform on 1..K from the environment's generator; an (L, L) table of J in 1..K; an
    (L, L, K+1) action distribution (as :func:`dicejack.solver.evaluate` takes, e.g.
    ``solver.optimal_distribution(sol)`` for optimal play with ties split evenly), sampled with
    one uniform; or any callable (x, y, rng) -> J, <x, y> from the opponent's view. Tables are
    checked here, a callable's answers at every move.
    """
    if isinstance(opponent, str):
        if opponent == "optimal":
            best = solver.solve_values(game)[1]
            return _table_policy(best.copy())
        if opponent == "uniform":
            return _uniform_policy(game.n_dice)
        if opponent == "self":
            return None
        raise EnvError(
            f"unknown opponent {opponent!r}; use one of {', '.join(OPPONENTS)}, an "
            f"{game.low}x{game.low} table of J, or a callable (x, y, rng) -> J"
        )
    if callable(opponent):
        return opponent
    try:
        arr = np.asarray(opponent)
    except (TypeError, ValueError) as e:
        raise EnvError(f"the opponent is not a table of dice: {e}") from None
    if arr.dtype.kind not in "iuf":
        raise EnvError(f"an opponent table must hold numbers (J per state, or probabilities "
                       f"per action), got {arr.dtype} values")
    if arr.shape not in (game.shape, game.table_shape):
        raise EnvError(
            f"an opponent table must be {game.low}x{game.low} (J per state) or "
            f"{game.low}x{game.low}x{game.n_dice + 1} (an action distribution) for LTarget="
            f"{game.low}, NDice={game.n_dice}; got shape {arr.shape} of {arr.dtype}"
        )
    empty = no_data_mask(game, arr)
    if empty.any():
        x, y = np.argwhere(empty)[0]
        raise EnvError(f"bad opponent table: no data (-1 or NaN) at <{x},{y}>; an opponent "
                       "plays a J in every state")
    try:
        dist = policy_distribution(game, arr, fill="error")  # the one check of a policy
    except solver.ZeroBasedError as e:  # this opponent table is of J: say how to make one
        raise EnvError(f"bad opponent table: {e.saying('add 1 to each entry')}") from None
    except (solver.SolverError, TypeError, ValueError) as e:
        raise EnvError(f"bad opponent table: {e}") from None
    if arr.shape == game.shape:
        return _table_policy(arr.astype(np.int64))
    cumulative = np.cumsum(dist[:, :, 1:], axis=2)
    return _distribution_policy(cumulative, game.n_dice)


# ------------------------------------------------------------------------ the environment
class DiceJackEnv(SingleAgentEnv):
    """The handout's two-player dice game, seen by one player (or by both in turn, "self").

    ## Description
    Two players alternately roll 1..NDice dice with NSides sides and add the total to their
    score. A player whose score lands in [LTarget, UTarget] wins at once; one who passes UTarget
    loses at once (``dicejack.games.handout_rules.Game.outcome``). The agent plays against a
    fixed opponent policy, or plays both sides (self-play).

    ## Action Space
    ``Discrete(NDice, start=1)``: J, the number of dice to roll, 1..NDice. Anything else (a
    float, a bool, 0, NDice + 1) is refused with an :class:`EnvError` and changes nothing.
    With ``zero_based=True``: ``Discrete(NDice)``, action a rolls J = a + 1 dice (the
    numbering of Stable-Baselines3, PettingZoo and OpenSpiel).

    ## Observation Space
    ``Tuple((Discrete(LTarget), Discrete(LTarget)))``: the state <X, Y> from the view of the
    player about to move, X its own score and Y the other's (as the handout's tables are
    indexed, so ``q[x, y]`` works). With ``flat=True``: ``MultiDiscrete([LTarget, LTarget])``,
    the same <X, Y> as an int64 array (Stable-Baselines3's checker and algorithms take it).
    Against an opponent that player is always the agent. The final observation of an episode is
    from the agent's view (self-play: from the view of the player who made the last move, the
    one the reward is for), with the scores capped at LTarget - 1 to stay in the space; the true
    scores are in ``info["scores"]``.

    ## Starting State
    <0, 0>, or the state of ``reset(options={"start": (x, y)})``: the agent (self-play: the
    first player) to move with score x against y (exploring starts, planners). Against an
    opponent the agent moves first unless `agent_first` (a probability, 1 by
    default) or ``reset(options={"agent_first": False})`` says otherwise; when the opponent
    opens, reset plays its first move and the episode starts at <0, Y>. If that opening roll
    ends the game (only possible when LTarget <= NDice * NSides) the agent never had a move:
    reset plays a fresh game instead and counts it in ``info["restarts"]``, giving up with an
    EnvError after MAX_OPENING_RESTARTS. (Win rates of the second seat are therefore
    conditioned on the opponent's opening roll not ending the game.) In self-play the first
    player moves first.

    ## Rewards
    Against an opponent: 1 when the agent wins (its roll lands in the target, or the
    opponent's passes UTarget), 0 for every other step (a loss included), so the return of an
    episode is 1 for a win and 0 for a loss, and its mean is the agent's win probability.
    Self-play: each step is one move of the player to move, and its reward is from that
    mover's view: 1 if this move wins the game for the mover, else 0 (a bust is 0: the other
    player wins). The other player's result at the end of a game is 1 - reward; an agent
    learning from both sides credits its moves by ``info["mover"]``. With ``zero_sum=True`` a
    loss pays -1 instead of 0 (against an opponent: the agent's loss; in self-play: a move that
    loses the game for the mover), so returns are +1 / -1 as in two-player game libraries.

    ## Episode End
    Terminated when the game ends (a win or a bust, by either side). Every roll adds at least
    1, so a game has at most 2 * LTarget - 1 moves; no truncation.

    ## Information
    ``reset`` and ``step`` return info with:
    - "moves": the moves made during the call, each a :class:`Move` (player, dice, total,
      score after the move); against an opponent the players are "agent" and "opponent", in
      self-play "first" and "second";
    - "scores": the true scores, (agent, opponent) or in self-play (first, second);
    - "winner": "agent"/"opponent" (self-play: "first"/"second"), or None while playing;
    - "roll" (step only): the total the agent's (the mover's) J dice showed;
    - against an opponent: "agent_first" (bool); from reset also "restarts" (see above);
    - in self-play: "mover" (step only: who moved, whose view the reward is) and "to_move"
      (whose view the observation is; None once the game is over).

    ## Arguments
    ```python
    import gymnasium as gym
    import dicejack.envs.gym_env
    gym.make("dicejack/DiceJack-v0", game=Game(6, 15, 17, 2), opponent="optimal",
             agent_first=1.0, render_mode=None)
    ```
    - `game`: a :class:`dicejack.games.handout_rules.Game` (None: the handout's Game(6, 15, 17, 2)).
    - `opponent`: "optimal" (lowest optimal J), "uniform", "self" (self-play), an (L, L)
      table of J in 1..NDice, an (L, L, NDice+1) action distribution, or a callable
      (x, y, rng) -> J with <x, y> from the opponent's view and `rng` the environment's
      generator (see :func:`opponent_policy`).
    - `agent_first`: probability that the agent moves first in an episode (ignored in
      self-play); drawn from the environment's generator only when strictly between 0 and 1.
    - `render_mode`: None or "ansi" (``render()`` returns the board as text).
    - `zero_based`, `flat`, `zero_sum`: see Action Space, Observation Space and Rewards.

    ``reset(options=...)``: "agent_first" (bool) and "start" ((x, y)); other keys are ignored
    (wrappers and test suites pass their own), with a warning naming them.

    ## Randomness
    Every random number comes from ``self.np_random``, seeded by ``reset(seed=...)``; the
    same seed and the same actions give the same episodes. Each roll draws one uniform and
    takes the smallest total t with u < P(J dice total <= t) (``Game.sum_cdf_table``).

    ## Version History
    * v0: Initial version.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}
    shared_generator = True  # every roll and every random opponent move: self.np_random

    def __init__(
        self,
        game: Game | None = None,
        opponent: Any = "optimal",
        render_mode: str | None = None,
        agent_first: float = 1.0,
        zero_based: bool = False,
        flat: bool = False,
        zero_sum: bool = False,
    ) -> None:
        if game is None:
            game = HANDOUT_GAME
        if not isinstance(game, Game):
            raise EnvError(f"game must be a dicejack.games.handout_rules.Game or None, got "
                           f"{type(game).__name__}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise EnvError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.game = game
        self.render_mode = render_mode
        self.agent_first = _check_probability("agent_first", agent_first)
        self._running = ""  # "reset" or "step" while one runs (re-entry is refused)
        self._opponent = opponent_policy(game, opponent)
        self.self_play = self._opponent is None
        self.opponent = opponent if isinstance(opponent, str) else type(opponent).__name__
        for name, flag in (("zero_based", zero_based), ("flat", flat), ("zero_sum", zero_sum)):
            if not isinstance(flag, (bool, np.bool_)):
                raise EnvError(f"{name} must be True or False, got {flag!r}")
        self.zero_based, self.flat, self.zero_sum = bool(zero_based), bool(flat), bool(zero_sum)
        self.action_space = spaces.Discrete(game.n_dice, start=0 if zero_based else 1)
        self.observation_space: spaces.Space = (
            spaces.MultiDiscrete([game.low, game.low], dtype=np.int64) if flat
            else spaces.Tuple((spaces.Discrete(game.low), spaces.Discrete(game.low)))
        )
        self._bind(raw_env(game=game), AGENTS[0])  # the one environment plays the rules
        self._play = None if self.self_play else self._opponent_play
        self.return_range = (-1.0 if self.zero_sum else 0.0, 1.0)
        self._seat_names = ("first", "second")  # self-play: players named by seat
        self._names = self._seat_names if self.self_play else ("agent", "opponent")  # by seat
        self._scores = [0, 0]  # the true scores by seat (seat 0 moves first), past LTarget too
        self._agent_seat = 0
        self._start_at: tuple[int, int] | None = None
        self._moves: list[Move] = []
        self._history: list[Move] = []
        self._started = False

    # ------------------------------------------------------------------------- API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[tuple[int, int], dict[str, Any]]:
        """Start a game at <0, 0> (see the class docstring); `options` may hold
        "agent_first" (bool) for this episode."""
        if self._running:  # inline as in step (a reset every few steps)
            raise self._reentered("reset")
        self._running = "reset"
        try:
            return self._reset(seed, options)
        finally:
            self._running = ""

    def _reset(self, seed: int | None, options: Any) -> tuple[tuple[int, int], dict[str, Any]]:
        gymnasium.Env.reset(self, seed=seed)
        agent_first, start = self._reset_options(options)
        if start is not None:
            agent_first = True
        if agent_first is None:
            p = self.agent_first
            agent_first = p == 1.0 or (0.0 < p and self.np_random.random() < p)
        self._agent_seat = 0 if (agent_first or self.self_play) else 1
        self._names = self._seat_names if self.self_play else (
            ("agent", "opponent") if self._agent_seat == 0 else ("opponent", "agent"))
        self.agent, self.seat = AGENTS[self._agent_seat], self._agent_seat
        self._start_at = start
        restarts = self._new_game(None)  # one generator: seeded above
        self._history = list(self._moves)
        self._started = True
        info = self._info()
        if not self.self_play:
            info["restarts"] = restarts
        return self._observation(), info

    def _start(self) -> None:
        """The game's start: <0, 0>, or the start option's <x, y> (the first player to move)."""
        self._moves = []
        if self._start_at is None:
            self._scores = [0, 0]
        else:
            self._scores = list(self._start_at)
            self.state = self.bridge.decision(*self._start_at, 0)

    def _restarts_error(self, restarts: int) -> Exception:
        return EnvError(f"the opponent's opening roll ended {restarts} games in a row before the "
                        f"agent could move ({self.game}); let the agent move first")

    def step(self, action: Any) -> tuple[tuple[int, int], float, bool, bool, dict[str, Any]]:
        """The mover (the agent, or in self-play the player to move) rolls `action` dice; against
        an opponent, the opponent then replies unless the game is over."""
        if self._running:  # no context manager: step is the hot path
            raise self._reentered("step")
        self._running = "step"
        try:
            return self._step(action)
        finally:
            self._running = ""

    def _reentered(self, call: str) -> EnvError:
        """reset() or step() called while one is running (an opponent callable that plays the
        environment itself): the episode would be corrupted."""
        return EnvError(f"{call}() called while {self._running}() is running (from the "
                        "opponent's callable?); the environment is not re-entrant")

    def _step(self, action: Any) -> tuple[tuple[int, int], float, bool, bool, dict[str, Any]]:
        if not self._started:
            raise EnvError("call reset() before step()")
        if self.state[3] is not None:
            raise EnvError("the game is over; call reset() to start another")
        j = check_dice(action, self.game.n_dice, zero_based=self.zero_based)
        self._moves = []
        mover = self.state[2]
        total = self._move(j - 1)
        if self._play is not None:
            self._opponent_moves()  # its reply unless the game is over
        self._history.extend(self._moves)
        winner = self.state[3]
        reward = 1.0 if winner == mover else 0.0
        if self.zero_sum and winner is not None and winner != mover:
            reward = -1.0
        info = self._info()
        info["roll"] = total
        if self.self_play:
            info["mover"] = self._names[mover]
        return self._observation(), reward, winner is not None, False, info

    def render(self) -> str | None:
        """The board as text ("ansi"): the game, both scores, this game's moves, the result."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render mode; make the environment with "
                'render_mode="ansi"'
            )
            return None
        return self._board_text()

    # ------------------------------------------------------------------- internals
    def _board_text(self) -> str:
        """The "ansi" board: the game, the scores, this game's moves, who is to move or won."""
        g = self.game
        info = self._info()
        scores = info["scores"]
        first, second = ("first", "second") if self.self_play else ("agent", "opponent")
        lines = [
            f"DiceJack {g}: land in {g.low}..{g.high} to win, pass {g.high} to lose",
            f"  {first:<8} {scores[0]:>4}    {second:<8} {scores[1]:>4}",
        ]
        if self._history:
            lines.append("  moves: " + "; ".join(
                f"{m.player} {Game.dice_label(m.dice)} -> {m.total} ({m.score})"
                for m in self._history
            ))
        if info["winner"] is not None:
            lines.append(f"  {info['winner']} wins")
        else:
            x, y = self._observation()
            lines.append(f"  {self._name(self._to_move())} to move at <{x},{y}>")
        return "\n".join(lines) + "\n"

    def _reset_options(
        self, options: dict[str, Any] | None
    ) -> tuple[bool | None, tuple[int, int] | None]:
        """(agent_first or None, start <x, y> or None) from reset's options; unknown keys are
        ignored with a warning (wrappers and test suites pass their own)."""
        if options is None:
            return None, None
        if not isinstance(options, Mapping):
            raise EnvError(f"reset options must be a dict, got {type(options).__name__}")
        unknown = sorted(map(str, set(options) - {"agent_first", "start"}))
        if unknown:
            gymnasium.logger.warn(f"DiceJackEnv.reset ignores the option(s) {', '.join(unknown)}"
                                  "; it knows agent_first and start")
        value = options.get("agent_first")
        if value is not None and not isinstance(value, (bool, np.bool_)):
            raise EnvError(f"reset option agent_first must be True or False, got {value!r}")
        return (None if value is None else bool(value)), self._start_option(options.get("start"))

    def _start_option(self, start: Any) -> tuple[int, int] | None:
        if start is None:
            return None
        low = self.game.low
        try:
            x, y = (int(v) for v in start)
            ok = all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
                     for v in start)
        except (TypeError, ValueError):
            ok = False
        if not ok or not (0 <= x < low and 0 <= y < low):
            raise EnvError(f"reset option start must be a state (x, y) with 0 <= x, y < {low}, "
                           f"got {start!r}")
        return x, y

    def _name(self, seat: int) -> str:
        """Who sits in `seat` (0 moves first): "first"/"second", or "agent"/"opponent"."""
        return self._names[seat]

    def _to_move(self) -> int:
        """The seat to move (once the game is over: the seat that moved last)."""
        return self.state[2]

    def _winner(self) -> int | None:
        return self.state[3]

    def _move(self, action: int) -> int:
        """The player to move rolls action + 1 dice on the game's bridge (the one single-agent
        core); its move recorded; the total rolled."""
        seat = self.state[2]
        total = SingleAgentEnv._move(self, action)  # not super(): one object less a move
        score = self._scores[seat] = self._scores[seat] + total
        self._moves.append(Move(self._names[seat], action + 1, total, score))
        return total

    def _opponent_play(self, state: Any, rng: np.random.Generator) -> int:
        """The opponent's action at the bridge's `state`, from its view <x, y>."""
        seat = state[2]
        x, y = state[seat], state[1 - seat]
        play: OpponentFn = self._opponent  # type: ignore[assignment]  # never None here
        n = self.game.n_dice
        try:
            j = play(x, y, rng)
            if not (type(j) is int and 1 <= j <= n):  # the common case without check_dice
                j = check_dice(j, n, f"the opponent's J at <{x},{y}>")
        except BaseException:
            self._started = False  # the game cannot go on: the next step asks for a reset
            raise
        return j - 1

    def _observation(self) -> Any:
        cap = self.game.low - 1
        seat = self.state[2] if self.self_play else self._agent_seat
        xy = (min(self._scores[seat], cap), min(self._scores[1 - seat], cap))
        return np.array(xy, dtype=np.int64) if self.flat else xy

    def _info(self) -> dict[str, Any]:
        if self.self_play:
            scores = (self._scores[0], self._scores[1])
        else:
            a = self._agent_seat
            scores = (self._scores[a], self._scores[1 - a])
        w = self.state[3]
        winner = None if w is None else self._names[w]
        info: dict[str, Any] = {"moves": tuple(self._moves), "scores": scores, "winner": winner}
        if self.self_play:
            info["to_move"] = self._names[self.state[2]] if winner is None else None
        else:
            info["agent_first"] = self._agent_seat == 0
        return info


def _check_probability(name: str, value: Any) -> float:
    if isinstance(value, (bool, np.bool_)):
        return 1.0 if value else 0.0
    if not isinstance(value, (int, float, np.integer, np.floating)) or not 0 <= value <= 1:
        raise EnvError(f"{name} must be a probability in [0, 1] (or a bool), got {value!r}")
    return float(value)


# -------------------------------------------------------------------------- registry
def register() -> None:
    """Register :class:`DiceJackEnv` as :data:`ENV_ID` (with the handout's game), once: a second
    call, or a re-import of this module, changes nothing and warns nothing."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(
            id=ENV_ID,
            entry_point="dicejack.envs.gym_env:DiceJackEnv",
            kwargs={"game": HANDOUT_GAME, "opponent": "optimal"},
        )


register()
