"""Any protocol game (:mod:`dicejack.games`: Pig, Piglet, the user's own) as a PettingZoo AEC
environment: ``from dicejack.envs import protocol_v0; env = protocol_v0.env(game=Pig(goal=20))``.

Agents ``player_0`` and (in a two-player game) ``player_1``; the agent to move is the protocol
state's player (turns need not alternate: Pig's roll keeps the turn). Action i is the game's
i-th action label in the order the enumeration first meets them (``env.unwrapped.action_labels``,
e.g. Pig's ``["roll", "hold"]``); ``action_mask`` marks the legal ones of the agent to move
(zeros for the other agent). Chance draws each move's outcome from its exact probabilities with
the environment's generator, seeded by ``reset(seed=...)``. Observation: ``observation`` = the
state's index in the enumerated game (``env.unwrapped.space.states[i]`` is the state itself),
``action_mask`` as above. Rewards: when a move is played, player 0 gets what the game pays for
it (``reward(state, action)``: Peeking Blackjack's peek cost), and at the end the payoff too;
player 1 gets the negative of player 0's (zero-sum; win = 1, lose = 0 pays 1 and -1), so each
agent's cumulative reward is its return, whose expectation is the game's value under the
policies played (``last()`` reports an agent's rewards since its previous move, as PettingZoo's
AEC API says). ``env.unwrapped.bounds`` is the game's :class:`~dicejack.games.bounds.Bounds`
(player 0's return range, the longest play). A game still going after `max_moves` moves (a
cyclic game whose policies never end it) is truncated; by default `max_moves` is the game's
longest play, or :data:`~dicejack.games.bounds.MOVES_CAP` for a game with cycles
(``Bounds.move_limit``: the same cut as OpenSpiel's ``max_game_length``).

``raw_env`` is the bare environment; ``env`` wraps it as PettingZoo's classic games are. Needs
pettingzoo (``pip install '.[pettingzoo]'``); without it, importing this module raises
:class:`dicejack.envs.dicejack_v0.PettingZooMissingError`'s twin, one line.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dicejack.runtime.messages import DicejackError


class PettingZooMissingError(DicejackError, ImportError):
    """:mod:`dicejack.envs.protocol_v0` was imported but pettingzoo is not installed."""


try:
    from gymnasium import spaces
    from gymnasium.utils import EzPickle, seeding
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError:
    raise PettingZooMissingError(
        "dicejack.envs.protocol_v0 needs pettingzoo, which dicejack does not install: "
        "pip install '.[pettingzoo]' in a clone of dicejack (or pip install pettingzoo)"
    ) from None

__all__ = ["env", "raw_env", "IllegalActionError", "PettingZooMissingError"]


class IllegalActionError(DicejackError, AssertionError):
    """An action outside the action space or not legal where the agent is."""


def env(**kwargs: Any) -> AECEnv:
    """The environment wrapped as PettingZoo's classic games are; see :class:`raw_env`."""
    wrapped: AECEnv = raw_env(**kwargs)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv, EzPickle):  # noqa: N801  (PettingZoo's name for the bare environment)
    """The bare AEC environment of protocol game `game`; see the module docstring."""

    metadata = {"render_modes": ["ansi", "human"], "name": "protocol_v0",
                "is_parallelizable": False}

    def __init__(self, game: Any, render_mode: str | None = None,
                 max_moves: int | None = None) -> None:
        from dicejack.games import enumerate_game
        from dicejack.games.bounds import game_bounds
        from dicejack.games.protocol import game_label

        if render_mode not in (None, "ansi", "human"):
            raise DicejackError(f"render_mode must be None, 'ansi' or 'human', got "
                                f"{render_mode!r}")
        EzPickle.__init__(self, game=game, render_mode=render_mode, max_moves=max_moves)
        super().__init__()
        self.game = game
        self.label = game_label(game)
        self.space = enumerate_game(game)
        space = self.space
        if space.terminal[0]:
            raise DicejackError(f"{self.label}: the initial state is terminal")
        self.render_mode = render_mode
        self.bounds = game_bounds(space)
        self.max_moves = self.bounds.move_limit if max_moves is None else int(max_moves)
        self._reward = space.reward if space.reward is not None and space.reward.any() else None
        self.action_labels = list(dict.fromkeys(space.actions))
        ids = {a: i for i, a in enumerate(self.action_labels)}
        self._row_action = np.array([ids[a] for a in space.actions], dtype=np.int64)
        t = space.transitions
        self._indptr, self._succ, self._prob = t.indptr, t.indices, t.data
        agents = [f"player_{p}" for p in range(space.num_players)]
        self.possible_agents = list(agents)
        self.agents = list(agents)
        k = len(self.action_labels)
        self.action_spaces = {a: spaces.Discrete(k) for a in agents}
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(0, space.n_states - 1, shape=(1,), dtype=np.int64),
                "action_mask": spaces.Box(0, 1, shape=(k,), dtype=np.int8),
            })
            for a in agents
        }
        self.index = 0
        self.moves = 0
        self.np_random, _ = seeding.np_random(None)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _legal(self) -> dict[int, int]:
        """Action id -> row, where the game is now."""
        lo, hi = int(self.space.row_start[self.index]), int(self.space.row_start[self.index + 1])
        return {int(self._row_action[r]): r for r in range(lo, hi)}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        mask = np.zeros(len(self.action_labels), dtype=np.int8)
        if agent == self.agent_selection and not (self.terminations[agent]
                                                  or self.truncations[agent]):
            mask[list(self._legal())] = 1
        return {"observation": np.array([self.index], dtype=np.int64), "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game from the initial state; `seed` reseeds chance. `options` is ignored."""
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self.agents = list(self.possible_agents)
        self.index, self.moves = 0, 0
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[int(self.space.player[0])]

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        legal = self._legal()
        if isinstance(action, (bool, np.bool_)) or not self.action_spaces[agent].contains(
                action) or int(action) not in legal:
            raise IllegalActionError(f"action {action!r} is not legal here (legal: "
                                     f"{sorted(legal)}, {self.action_labels})")
        row = legal[int(action)]
        lo, hi = int(self._indptr[row]), int(self._indptr[row + 1])
        cum = np.cumsum(self._prob[lo:hi])  # the first outcome with u < its running sum
        k = int(np.searchsorted(cum, float(self.np_random.random()) * cum[-1], side="right"))
        self.index = int(self._succ[lo + min(k, hi - lo - 1)])
        self.moves += 1
        self._cumulative_rewards[agent] = 0  # last() reports what came since the agent's move
        self._clear_rewards()
        self.infos = {a: {"last_move": {"agent": agent, "action": self.action_labels[int(action)],
                                        "state": repr(self.space.states[self.index])}}
                      for a in self.agents}
        space = self.space
        over = bool(space.terminal[self.index])
        p = (0.0 if self._reward is None else float(self._reward[row])) + (
            float(space.payoff[self.index]) if over else 0.0)
        self.rewards = ({self.agents[0]: p, self.agents[1]: -p} if len(self.agents) == 2
                        else {self.agents[0]: p})
        if over:
            self.terminations = {a: True for a in self.agents}
        else:
            if self.moves >= self.max_moves:
                self.truncations = {a: True for a in self.agents}
            self.agent_selection = self.agents[int(space.player[self.index])]
        self._accumulate_rewards()

    def render(self) -> str | None:
        """The position as text ("ansi"), printed ("human", returns None), or None."""
        if self.render_mode is None:
            return None
        state = self.space.states[self.index]
        text = f"{self.label}: {state!r}" + ("" if self.space.terminal[self.index]
                                             else f", {self.agent_selection} to move")
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
