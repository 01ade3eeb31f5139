"""One agent of a protocol game's PettingZoo environment (:mod:`dicejack.envs.protocol_v0`)
against a fixed policy, as a Gymnasium environment with action masks (what sb3-contrib's
``MaskablePPO`` learns on): :func:`dicejack.envs.protocol_single_agent`.

``ProtocolSingleAgentEnv(aec_env, agent, opponent)``: `opponent` plays every other seat, a policy
of the enumerated game as weights per (state, action) row (``GameSolution.policy()`` for optimal
play, ``solver.generic.uniform_policy(space)``, ``policy_from_actions``...). A step is the
agent's move and the opponent's moves until the agent is to move again or the game ends (in Pig
the opponent may roll many times); the reward is the agent's (the AEC environment's, summed:
what the moves paid on the way and the payoff at the end); truncated when the AEC environment
truncates. ``return_range`` is the agent's least and greatest return (the game's bounds,
:mod:`dicejack.games.bounds`, from its seat). ``action_masks()`` marks the agent's legal
actions; an illegal action (an agent that ignores the masks) is played as the first legal one,
``info["illegal_action"]`` saying so. When the opponent's opening moves end the game,
``reset`` plays another (``info["restarts"]``). Seeding: ``reset(seed=s)`` reseeds the
opponent's draws and chance.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from dicejack.runtime.messages import DicejackError

__all__ = ["ProtocolSingleAgentEnv"]


class ProtocolSingleAgentEnv(gymnasium.Env):
    """`agent` of a protocol_v0 environment against `opponent` (module docstring)."""

    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(self, aec_env: Any, agent: str, opponent: Any) -> None:
        raw = getattr(aec_env, "unwrapped", aec_env)
        if getattr(raw, "metadata", {}).get("name") != "protocol_v0":
            raise DicejackError("protocol_single_agent needs a protocol_v0 environment "
                                f"(dicejack.envs.protocol_env(game)), got "
                                f"{type(aec_env).__name__}")
        if agent not in raw.possible_agents:
            raise DicejackError(f"agent must be one of {', '.join(raw.possible_agents)}, got "
                                f"{agent!r}")
        weights = np.asarray(opponent, dtype=np.float64)
        if weights.shape != (raw.space.n_rows,) or not np.isfinite(weights).all() or (
                weights < 0).any():
            raise DicejackError(f"opponent must be weights >= 0 per (state, action) row "
                                f"({raw.space.n_rows} rows)")
        self.env, self.raw, self.agent = aec_env, raw, agent
        self.weights = weights
        self.render_mode = raw.render_mode
        self.return_range = raw.bounds.seat(raw.possible_agents.index(agent))
        self.observation_space = aec_env.observation_space(agent)["observation"]
        self.action_space = aec_env.action_space(agent)

    def action_masks(self) -> np.ndarray:
        """The agent's legal actions (sb3-contrib's MaskablePPO asks for them)."""
        return np.asarray(self.env.observe(self.agent)["action_mask"], dtype=bool)

    def _observation(self) -> np.ndarray:
        return np.asarray(self.env.observe(self.agent)["observation"], dtype=np.int64)

    def _over(self) -> bool:
        return bool(self.env.terminations[self.agent] or self.env.truncations[self.agent])

    def _opponent_moves(self) -> float:
        """The opponent's moves until the agent is to move or the game ends; the agent's reward."""
        reward = 0.0
        raw = self.raw
        while not self._over() and self.env.agent_selection != self.agent:
            lo, hi = int(raw.space.row_start[raw.index]), int(raw.space.row_start[raw.index + 1])
            w = self.weights[lo:hi]
            w = w / w.sum() if w.sum() > 0 else np.full(hi - lo, 1.0 / (hi - lo))
            k = int(np.searchsorted(np.cumsum(w), float(self.np_random.random()), side="right"))
            row = lo + min(k, hi - lo - 1)
            self.env.step(raw.action_labels.index(raw.space.actions[row]))
            reward += float(self.env.rewards[self.agent])
        return reward

    def reset(self, *, seed: int | None = None, options: dict | None = None
              ) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        self.env.reset(seed=seed)
        self._opponent_moves()
        restarts = 0
        while self._over():
            restarts += 1
            self.env.reset()
            self._opponent_moves()
        return self._observation(), {"restarts": restarts}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self._over():
            raise DicejackError("the game is over: call reset()")
        mask = self.action_masks()
        info: dict[str, Any] = {}
        if not self.action_space.contains(action) or not mask[int(action)]:
            info["illegal_action"] = action  # played as the first legal action (no masks)
            action = int(np.flatnonzero(mask)[0])
        self.env.step(int(action))
        reward = float(self.env.rewards[self.agent]) + self._opponent_moves()
        return (self._observation(), reward, bool(self.env.terminations[self.agent]),
                bool(self.env.truncations[self.agent]), info)

    def render(self) -> str | None:
        return self.env.render()

    def close(self) -> None:
        self.env.close()
