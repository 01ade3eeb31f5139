"""One agent of the PettingZoo environment against a fixed policy, as a Gymnasium environment:
what sb3-contrib's ``MaskablePPO`` (with ``ActionMasker`` or this class's ``action_masks``)
learns on, as PettingZoo's action-mask tutorial does. Build it with
:func:`dicejack.envs.single_agent`.

``SingleAgentEnv(aec_env, agent, opponent)``: `aec_env` is a :mod:`dicejack.envs.dicejack_v0`
environment (wrapped or raw); `agent` ("player_0" moves first, "player_1" second) is the learner;
`opponent` plays the other seat, any policy the solver takes (a Solution: optimal play, ties
split evenly; an (L, L) table of J, -1 = no data played uniformly; an (L, L, K+1) action
distribution; a callable (x, y) -> J), from its own view <its score, the agent's>.

Spaces: the AEC environment's, for `agent`: observation ``Box(0, L-1, (2,), int64)``, the
agent's <X, Y> (own score first), action ``Discrete(NDice)`` (action a rolls J = a + 1 dice);
``action_masks()`` is all ones (every J is legal; sb3-contrib asks for it). A step is the
agent's move and the opponent's replies until the agent is to move again or the game ends;
the reward is the agent's (+1 win, -1 loss, 0 before the end); never truncated.

When the agent moves second and the opponent's opening roll ends the game, ``reset`` plays
another game (``info["restarts"]`` counts them), so the agent always has a move.

Seeding: ``reset(seed=s)`` reseeds ``np_random`` (the opponent's draws) and the AEC
environment's dice with `s`; the same seed and actions replay the same games.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from dicejack import solver
from dicejack.envs.dicejack_v0 import AGENTS
from dicejack.runtime.messages import DicejackError
from dicejack.solver.solution import policy_distribution

__all__ = ["SingleAgentEnv"]


class SingleAgentEnv(gymnasium.Env):
    """`agent` of a dicejack_v0 AEC environment against `opponent` (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(self, aec_env: Any, agent: str, opponent: Any) -> None:
        raw = getattr(aec_env, "unwrapped", aec_env)
        game = getattr(raw, "game", None)
        if game is None or getattr(raw, "metadata", {}).get("name") != "dicejack_v0":
            raise DicejackError("single_agent needs a dicejack_v0 environment "
                                f"(dicejack.envs.dicejack_v0.env()), got {type(aec_env).__name__}")
        if agent not in AGENTS:
            raise DicejackError(f"agent must be one of {', '.join(AGENTS)}, got {agent!r}")
        try:
            dist = policy_distribution(game, opponent)
        except solver.ZeroBasedError as exc:
            raise DicejackError(f"bad opponent: {exc.saying('add 1 to each J')}") from None
        except solver.SolverError as exc:
            raise DicejackError(f"bad opponent: {exc}") from None
        self.env = aec_env
        self.game = game
        self.agent = agent
        self.opponent_agent = AGENTS[1 - AGENTS.index(agent)]
        self.render_mode = raw.render_mode
        self._cumulative = np.cumsum(dist[:, :, 1:], axis=2)
        self.observation_space = aec_env.observation_space(agent)["observation"]
        self.action_space = aec_env.action_space(agent)

    def action_masks(self) -> np.ndarray:
        """The legal actions of the agent (all of them), as sb3-contrib's MaskablePPO asks."""
        return np.ones(self.game.n_dice, dtype=bool)

    def _observation(self) -> np.ndarray:
        return np.asarray(self.env.observe(self.agent)["observation"], dtype=np.int64)

    def _done(self) -> bool:
        return bool(self.env.terminations[self.agent] or self.env.truncations[self.agent])

    def _opponent_moves(self) -> float:
        """The opponent's moves until the agent is to move or the game ends; the agent's reward."""
        reward = 0.0
        while not self._done() and self.env.agent_selection == self.opponent_agent:
            x, y = self.env.observe(self.opponent_agent)["observation"]
            u = float(self.np_random.random())
            action = int(np.searchsorted(self._cumulative[x, y], u, side="right"))
            self.env.step(min(action, self.game.n_dice - 1))
            reward += float(self.env.rewards[self.agent])
        return reward

    def reset(
        self, *, seed: int | None = None, options: dict | None = None
    ) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        self.env.reset(seed=seed)
        self._opponent_moves()  # the opponent's opening move when the agent is player_1
        restarts = 0
        while self._done():  # that move ended the game (LTarget <= NDice x NSides): play again
            restarts += 1
            self.env.reset()
            self._opponent_moves()
        return self._observation(), {"restarts": restarts}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self._done():
            raise DicejackError("the game is over: call reset()")
        self.env.step(action)
        reward = float(self.env.rewards[self.agent]) + self._opponent_moves()
        return self._observation(), reward, self._done(), False, {}

    def render(self) -> str | None:
        return self.env.render()

    def close(self) -> None:
        self.env.close()
