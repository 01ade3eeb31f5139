"""The handout's game as a PettingZoo AEC environment, in the convention of PettingZoo's classic
games: ``from dicejack.envs import dicejack_v0; env = dicejack_v0.env(game=...)``.

Agents ``player_0`` (moves first) and ``player_1`` take turns. Action a in 0..NDice-1 rolls
J = a + 1 dice (0-based, as PettingZoo and OpenSpiel number actions). The roll is drawn from the
environment's generator, seeded by ``reset(seed=...)``, by the one roll rule of
:func:`dicejack.games.handout_rules.roll_total`; what it means is
:meth:`dicejack.games.handout_rules.Game.outcome`. Reaching
[LTarget, UTarget] wins at once (+1 to the mover, -1 to the other), passing UTarget loses at once
(-1, +1); nothing is paid before the end.

Observation (a dict, as in the classic games): ``observation`` = [own score, opponent's score],
the handout's <X, Y> from the observing agent's view (int64, 0..LTarget-1), and ``action_mask``
(int8, length NDice): all ones for the agent to move (every number of dice is legal), zeros for
the other. ``infos[agent]["last_move"]`` is the last move (dice, total, mover's score after it)
once there is one. ``render_mode="ansi"`` returns the position as text, ``"human"`` prints
that text (and returns None, as PettingZoo's ``render_test`` asks).

``raw_env`` is the bare environment; ``env`` wraps it as PettingZoo's classic games are
(bounds assertion, order enforcement). An action outside the action space raises PettingZoo's
error (an ``AssertionError``, "action is not in action space") in both, and changes nothing.
For one agent against a fixed policy as a Gymnasium environment (sb3-contrib's MaskablePPO):
:func:`dicejack.envs.single_agent`. pettingzoo is not a dependency of dicejack: in a clone of
dicejack, ``pip install '.[pettingzoo]'``; without it, importing this module raises a one-line
:class:`PettingZooMissingError`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dicejack.games.handout_rules import CONTINUES, HANDOUT_GAME, MOVER_WINS, Game, roll_total
from dicejack.runtime.messages import DicejackError


class PettingZooMissingError(DicejackError, ImportError):
    """:mod:`dicejack.envs.dicejack_v0` was imported but pettingzoo is not installed."""


try:
    from gymnasium import spaces
    from gymnasium.utils import EzPickle, seeding
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
    from pettingzoo.utils.agent_selector import AgentSelector
except ImportError:
    raise PettingZooMissingError(
        "dicejack.envs.dicejack_v0 needs pettingzoo, which dicejack does not install: "
        "pip install '.[pettingzoo]' in a clone of dicejack (or pip install pettingzoo)"
    ) from None

__all__ = ["env", "raw_env", "PettingZooMissingError", "ActionOutOfSpaceError", "AGENTS"]

AGENTS = ("player_0", "player_1")


class ActionOutOfSpaceError(DicejackError, AssertionError):
    """An action outside the action space: PettingZoo's error (its wrapper asserts the same),
    also a DicejackError."""


def env(**kwargs: Any) -> AECEnv:
    """The environment wrapped as PettingZoo's classic games are; see :class:`raw_env`."""
    wrapped: AECEnv = raw_env(**kwargs)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv, EzPickle):  # noqa: N801  (PettingZoo's name for the bare environment)
    """The bare AEC environment of `game` (default: the handout's); see the module docstring."""

    metadata = {"render_modes": ["ansi", "human"], "name": "dicejack_v0",
                "is_parallelizable": False}

    def __init__(self, game: Game = HANDOUT_GAME, render_mode: str | None = None) -> None:
        if not isinstance(game, Game):
            raise DicejackError(f"dicejack_v0 needs a dicejack Game, got {type(game).__name__}")
        if render_mode not in (None, "ansi", "human"):
            raise DicejackError(f"render_mode must be None, 'ansi' or 'human', got "
                                f"{render_mode!r}")
        EzPickle.__init__(self, game=game, render_mode=render_mode)
        super().__init__()
        self.game = game
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        k = game.n_dice
        self.action_spaces = {a: spaces.Discrete(k) for a in AGENTS}
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(0, game.low - 1, shape=(2,), dtype=np.int64),
                "action_mask": spaces.Box(0, 1, shape=(k,), dtype=np.int8),
            })
            for a in AGENTS
        }
        self._cdf = np.asarray(game.sum_cdf_table)
        self.scores = {a: 0 for a in AGENTS}
        self.winner = None
        self.np_random, _ = seeding.np_random(None)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        other = AGENTS[1 - AGENTS.index(agent)]
        to_move = agent == self.agent_selection and not self.terminations[agent]
        return {
            "observation": np.array([self.scores[agent], self.scores[other]], dtype=np.int64),
            "action_mask": np.full(self.game.n_dice, int(to_move), dtype=np.int8),
        }

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game from <0, 0>, player_0 to move; `seed` reseeds the dice. `options` is
        accepted and ignored (PettingZoo's tests pass one)."""
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self.agents = list(AGENTS)
        self.scores = {a: 0 for a in AGENTS}
        self.winner: str | None = None
        self.rewards = {a: 0 for a in AGENTS}
        self._cumulative_rewards = {a: 0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: {} for a in AGENTS}
        self._agent_selector = AgentSelector(self.agents)
        self.agent_selection = self._agent_selector.reset()

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        space = self.action_spaces[agent]
        if isinstance(action, (bool, np.bool_)) or not space.contains(action):
            raise ActionOutOfSpaceError(
                f"action is not in action space: {action!r} (actions 0..{space.n - 1} roll "
                f"J = action + 1 dice)"
            )
        j = int(action) + 1
        total = roll_total(self._cdf[j], float(self.np_random.random()))
        score = self.scores[agent] + total
        result = self.game.outcome(score)
        other = AGENTS[1 - AGENTS.index(agent)]
        self._clear_rewards()
        move = {"dice": j, "total": total, "score": score}
        self.infos = {a: {"last_move": {"agent": agent, **move}} for a in AGENTS}
        if result == CONTINUES:
            self.scores[agent] = score
            self.agent_selection = self._agent_selector.next()
        else:
            winner, loser = (agent, other) if result == MOVER_WINS else (other, agent)
            self.rewards[winner], self.rewards[loser] = 1, -1
            self.winner = winner
            self.terminations = {a: True for a in AGENTS}
            self.agent_selection = self._agent_selector.next()
        self._accumulate_rewards()

    def render(self) -> str | None:
        """The position as text ("ansi"), printed ("human", returns None), or None."""
        if self.render_mode is None:
            return None
        s0, s1 = (self.scores[a] for a in AGENTS)
        if self.winner is not None:
            text = f"player_0 {s0}, player_1 {s1}: {self.winner} won"
        else:
            text = f"player_0 {s0}, player_1 {s1}: {self.agent_selection} to move"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
