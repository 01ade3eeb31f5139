"""One agent of the PettingZoo environment (:mod:`dicejack.envs.dicejack_v0`, any game) against a
fixed policy, as a Gymnasium environment with action masks: what sb3-contrib's ``MaskablePPO``
(with ``ActionMasker`` or this class's ``action_masks``) learns on, as PettingZoo's action-mask
tutorial does. Build it with :func:`dicejack.envs.single_agent`.

``SingleAgentEnv(aec_env, agent, opponent)``: `aec_env` is a dicejack_v0 environment (wrapped or
raw); `agent` ("player_0" moves first, "player_1" second) is the learner; `opponent` plays every
other seat, a fixed policy as the game's bridge reads one
(:meth:`dicejack.envs.bridge.Bridge.opponent_draw`): for a protocol game weights per (state,
action) row of the enumerated game (``GameSolution.policy()`` for optimal play,
``solver.generic.uniform_policy(space)``...); for the handout's game any policy the solver takes
(a Solution: optimal play, ties split evenly; an (L, L) table of J, -1 = no data played
uniformly; an (L, L, K+1) action distribution; a callable (x, y) -> J), from the mover's view.

The game is played on its bridge (:mod:`dicejack.envs.bridge`, what the AEC environment plays),
stepped here directly: the AEC environment gives the settings (the bridge, agents, spaces, move
cap, render mode) and is never stepped, so its own state stays where it was. A move is the AEC
environment's (chance drawn with one uniform, the same reward, truncation after its
``max_moves``); ``state`` is the bridge's state of the game being played, ``agent_to_move`` the
agent the game selects. One path for every game: the handout's Gymnasium environment is this
class with its conventions, not a second stepping loop.

Spaces: the AEC environment's, for `agent` (its observation vector; ``Discrete`` actions).
A step is the agent's move and the opponent's moves until the agent is to move again or the game
ends (in Pig the opponent may roll many times); the reward is the agent's (the AEC environment's,
summed: what the moves paid on the way and the payoff at the end; the handout's: +1 win, -1
loss); truncated where the AEC environment would truncate. ``return_range`` is the agent's least and
greatest return (the game's bounds from its seat). ``action_masks()`` marks the agent's legal
actions (the handout's: every J); an action in the space but not legal (an agent that ignores
the masks) is played as the first legal one, ``info["illegal_action"]`` saying so.

When the opponent's opening moves end the game, ``reset`` plays another game
(``info["restarts"]`` counts them), so the agent always has a move; after
:data:`MAX_OPENING_RESTARTS` in a row it gives up with an error. Seeding: ``reset(seed=s)``
reseeds ``np_random`` (the opponent's draws) and the chance generator with `s` (chance as the AEC
environment seeded with `s` draws it; before any seed, the AEC environment's generator); the same
seed and actions replay the same games. ``step`` before ``reset`` is an error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import seeding

from dicejack.envs.bridge import OpponentDraw
from dicejack.envs.dicejack_v0 import ActionOutOfSpaceError
from dicejack.runtime.messages import DicejackError

__all__ = ["SingleAgentEnv", "MAX_OPENING_RESTARTS"]

#: How many games reset replays when the opponent's opening moves end them before the agent could
#: move, before it gives up with an error (a game whose openings always end it would never start).
MAX_OPENING_RESTARTS = 1000

#: A fixed policy's move: (the bridge's state, the generator) -> an action id.
Play = Callable[[Any, np.random.Generator], int]


class SingleAgentEnv(gymnasium.Env):
    """`agent` of a dicejack_v0 game against `opponent` (see the module docstring).

    The one single-agent environment: the handout's Gymnasium environment
    (:class:`dicejack.envs.gym_env.DiceJackEnv`) is this class with the handout's conventions
    (its opponents, seats drawn per episode, self-play, one generator for the dice and the
    opponent: :attr:`shared_generator`)."""

    metadata = {"render_modes": ["ansi", "human"]}
    #: True: chance draws from this environment's ``np_random`` (one stream for the dice and the
    #: opponent); False: from its own generator, seeded by the same seed (as the AEC
    #: environment's chance is).
    shared_generator = False

    def __init__(self, aec_env: Any, agent: str, opponent: Any) -> None:
        raw = getattr(aec_env, "unwrapped", aec_env)
        if getattr(raw, "metadata", {}).get("name") != "dicejack_v0" or not hasattr(raw,
                                                                                    "bridge"):
            raise DicejackError("single_agent needs a dicejack_v0 environment "
                                f"(dicejack.envs.dicejack_v0.env()), got {type(aec_env).__name__}")
        if agent not in raw.possible_agents:
            raise DicejackError(f"agent must be one of {', '.join(raw.possible_agents)}, got "
                                f"{agent!r}")
        self._bind(aec_env, agent)
        self._play: Play | None = _sampler(raw.bridge.opponent_draw(opponent))
        self.render_mode = raw.render_mode
        self.return_range = raw.bounds.seat(self.seat)
        self.observation_space = aec_env.observation_space(agent)["observation"]
        self.action_space = aec_env.action_space(agent)

    def _bind(self, aec_env: Any, agent: str) -> None:
        """The game's settings from the AEC environment (its bridge, agents, move cap); the
        position is this environment's own (the AEC environment is not stepped)."""
        self.env, self.raw = aec_env, getattr(aec_env, "unwrapped", aec_env)
        self.game, self.bridge, self.max_moves = self.raw.game, self.raw.bridge, self.raw.max_moves
        self._agents = list(self.raw.possible_agents)
        self._bind_seat(agent)
        self._chance: np.random.Generator = self.raw.np_random
        self.state: Any = self.bridge.initial
        self.to_move, self.moves, self.paid = 0, 0, 0.0
        self.terminated = self.truncated = False
        self._over, self._started = True, False

    def _bind_seat(self, agent: str) -> None:
        self.agent, self.seat = agent, self._agents.index(agent)

    @property
    def agent_to_move(self) -> str:
        """The agent the game selects (after the game's last move: as the AEC environment's)."""
        return self._agents[self.to_move]

    def action_masks(self) -> np.ndarray:
        """The agent's legal actions where the game is (sb3-contrib's MaskablePPO asks for
        them); all of them once the game is over."""
        mask = np.zeros(self.action_space.n, dtype=bool)
        mask[slice(None) if self._over else list(self.bridge.legal(self.state))] = True
        return mask

    def _observation(self) -> np.ndarray:
        return np.asarray(self.bridge.observation(self.state, self.seat), dtype=np.int64)

    def _move(self, action: int) -> Any:
        """One move of the player to move, `action` a legal action id, on the game's bridge:
        chance drawn with one uniform, the state advanced, the agent's reward for the move in
        :attr:`paid` (what the AEC environment pays it); the outcome drawn (a subclass records
        moves from it)."""
        bridge, s = self.bridge, self.state
        outcome = bridge.draw(s, action, float(self._chance.random()))
        nxt = self.state = bridge.after(s, action, outcome)
        self.moves += 1
        p = bridge.step_reward(s, action, nxt)
        self.paid = float(p if self.seat == 0 else -p)
        self.to_move = bridge.to_move(nxt, self.to_move)
        if bridge.terminal(nxt):
            self.terminated = self._over = True
        elif self.moves >= self.max_moves:
            self.truncated = self._over = True
        return outcome

    def _opponent_moves(self) -> float:
        """The opponent's moves until the agent is to move or the game ends; the agent's reward."""
        reward = 0.0
        play = self._play
        while play is not None and not self._over and self.to_move != self.seat:
            self._move(play(self.state, self.np_random))
            reward += self.paid
        return reward

    def _start(self) -> None:
        """After the game's start: where it starts (a subclass's hook)."""

    def _new_game(self, seed: int | None) -> int:
        """A game up to the agent's first move; the games replayed because the opponent's
        opening moves ended them."""
        if self.shared_generator:
            self._chance = self.np_random
        elif seed is not None:
            self._chance = seeding.np_random(seed)[0]
        restarts = 0
        while True:
            self.state = self.bridge.start(self._chance)
            self.to_move, self.moves = self.bridge.player(self.state), 0
            self.terminated = self.truncated = self._over = False
            self._started = True
            self._start()
            self._opponent_moves()  # the opponent's opening moves when the agent is not first
            if not self._over:
                return restarts
            restarts += 1  # they ended the game (the handout's: LTarget <= NDice x NSides)
            if restarts >= MAX_OPENING_RESTARTS:
                raise self._restarts_error(restarts)

    def _restarts_error(self, restarts: int) -> Exception:
        return DicejackError(f"the opponent's opening moves ended {restarts} games in a row "
                             f"before the agent could move ({self.bridge.label})")

    def reset(self, *, seed: int | None = None, options: dict | None = None
              ) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        restarts = self._new_game(seed)
        return self._observation(), {"restarts": restarts}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self._over:
            raise DicejackError("the game is over: call reset()" if self._started
                                else "call reset() before step()")
        info: dict[str, Any] = {}
        a = self._action(action)
        legal = self.bridge.legal(self.state)
        if a not in legal:
            info["illegal_action"] = action  # played as the first legal action (no masks)
            a = min(legal)
        self._move(a)
        reward = self.paid + self._opponent_moves()
        return self._observation(), reward, self.terminated, self.truncated, info

    def _action(self, action: Any) -> int:
        """`action` as an action id, or the AEC environment's error for one outside the space."""
        if type(action) is int and 0 <= action < self.action_space.n:
            return action
        if isinstance(action, (bool, np.bool_)) or not self.action_space.contains(action):
            raise ActionOutOfSpaceError(f"action is not in action space: {action!r} "
                                        f"({self.bridge.action_hint()})")
        return int(action)

    def render(self) -> str | None:
        """The position as text ("ansi"), printed ("human", returns None), or None (as the AEC
        environment renders it)."""
        if self.render_mode is None:
            return None
        text = self.bridge.render(self.state, self.agent_to_move)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self.env.close()


def _sampler(draw: OpponentDraw) -> Play:
    """A fixed policy's draws: the first legal action whose cumulative weight exceeds a uniform
    from the generator."""

    def play(s: Any, rng: np.random.Generator) -> int:
        cum, ids = draw(s)
        k = int(np.searchsorted(cum, float(rng.random()), side="right"))
        return int(ids[min(k, len(ids) - 1)])

    return play
