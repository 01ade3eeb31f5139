"""Every game as a PettingZoo AEC environment, in the convention of PettingZoo's classic games:
``from dicejack.envs import dicejack_v0; env = dicejack_v0.env(game=...)``: the handout's game
by default (a :class:`dicejack.games.handout_rules.Game` or ``HandoutGame``), or any protocol game
of :mod:`dicejack.games` (Pig, Piglet, Peeking Blackjack, Kuhn poker, the user's own). One
environment; the game's encoding is its :class:`dicejack.envs.bridge.Bridge`.

Agents ``player_0`` and (in a two-player game) ``player_1``; the agent to move is the game's
(turns need not alternate: Pig's roll keeps the turn). ``action_mask`` marks the legal actions of
the agent to move (zeros for the other). Chance draws each move's outcome with one uniform from
the environment's generator, seeded by ``reset(seed=...)``. Rewards: when a move is played,
player 0 gets what the game pays for it (``reward(state, action)``: Peeking Blackjack's peek
cost), and at the end the payoff too; player 1 gets the negative (zero-sum), so each agent's
cumulative reward is its return (``last()`` reports an agent's rewards since its previous move,
as PettingZoo's AEC API says). ``env.unwrapped.bounds`` is the game's
:class:`~dicejack.games.bounds.Bounds`; a game still going after `max_moves` moves (by default
``bounds.move_limit``: the longest play, or the cap for a game with cycles) is truncated.

A protocol game: action i is the game's i-th action label (``env.unwrapped.action_labels``,
e.g. Pig's ``["roll", "hold"]``); ``observation`` = the state's index in the enumerated game
(``env.unwrapped.space.states[i]``); ``infos[agent]["last_move"]`` = the action and the state it
led to. The handout's game: action a rolls J = a + 1 dice (every J legal), drawn by the one roll
rule (:func:`dicejack.games.handout_rules.roll_total`); ``observation`` = [own score, opponent's
score] (the handout's <X, Y> from the observing agent's view, int64, 0..LTarget-1); reaching
[LTarget, UTarget] pays +1 to the mover and -1 to the other, passing UTarget -1 and +1;
``last_move`` = the dice, the total and the mover's score after it; ``env.unwrapped.scores`` and
``winner`` are the position. A game with hidden information (Kuhn poker): ``reset`` deals (the
forced opening move's chance outcome, drawn from the seeded generator); each agent observes its
own information state only: ``observation`` = [the index of its key in
``env.unwrapped.bridge.keys[seat]``] (Kuhn's player_0 holding Q after pass, bet: the index of
``"Qpb"``), with the action mask; ``last_move`` = the action alone (the state would show the
hidden cards); player 0's utility is paid at the end. ``render_mode="ansi"`` returns the
position as text (the whole state: a hidden game's cards too), ``"human"`` prints it (and
returns None, as PettingZoo's ``render_test`` asks).

``raw_env`` is the bare environment; ``env`` wraps it as PettingZoo's classic games are (bounds
assertion, order enforcement). An action outside the action space raises PettingZoo's error (an
``AssertionError``, "action is not in action space") in both, one not legal where the agent is
an :class:`IllegalActionError` (also an AssertionError); neither changes anything. One agent
against a fixed policy as a Gymnasium environment: :func:`dicejack.envs.single_agent`.
pettingzoo is not a dependency of dicejack: in a clone of dicejack, ``pip install
'.[pettingzoo]'``; without it, importing this module raises a one-line
:class:`PettingZooMissingError`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dicejack.envs.bridge import Bridge, bridge_of
from dicejack.games.handout import HandoutGame
from dicejack.games.handout_rules import HANDOUT_GAME, Game
from dicejack.runtime.messages import DicejackError


class PettingZooMissingError(DicejackError, ImportError):
    """:mod:`dicejack.envs.dicejack_v0` was imported but pettingzoo is not installed."""


try:
    from gymnasium import spaces
    from gymnasium.utils import EzPickle, seeding
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError:
    raise PettingZooMissingError(
        "dicejack.envs.dicejack_v0 needs pettingzoo, which dicejack does not install: "
        "pip install '.[pettingzoo]' in a clone of dicejack (or pip install pettingzoo)"
    ) from None

__all__ = ["env", "raw_env", "PettingZooMissingError", "IllegalActionError",
           "ActionOutOfSpaceError", "AGENTS"]

#: The agents of a two-player game (a one-player game has the first).
AGENTS = ("player_0", "player_1")


class IllegalActionError(DicejackError, AssertionError):
    """An action outside the action space or not legal where the agent is."""


class ActionOutOfSpaceError(IllegalActionError):
    """An action outside the action space: PettingZoo's error (its wrapper asserts the same)."""


def env(**kwargs: Any) -> AECEnv:
    """The environment wrapped as PettingZoo's classic games are; see :class:`raw_env`."""
    wrapped: AECEnv = raw_env(**kwargs)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv, EzPickle):  # noqa: N801  (PettingZoo's name for the bare environment)
    """The bare AEC environment of `game` (default: the handout's); see the module docstring."""

    metadata = {"render_modes": ["ansi", "human"], "name": "dicejack_v0",
                "is_parallelizable": False}

    def __init__(self, game: Any = HANDOUT_GAME, render_mode: str | None = None,
                 max_moves: int | None = None) -> None:
        if render_mode not in (None, "ansi", "human"):
            raise DicejackError(f"render_mode must be None, 'ansi' or 'human', got "
                                f"{render_mode!r}")
        bridge = _bridge(game)
        EzPickle.__init__(self, game=game, render_mode=render_mode, max_moves=max_moves)
        super().__init__()
        self.bridge: Bridge = bridge
        self.game = bridge.game
        self.space = bridge.space
        self.bounds = bridge.bounds
        self.action_labels = bridge.action_labels
        self.render_mode = render_mode
        self.max_moves = bridge.max_length if max_moves is None else int(max_moves)
        agents = list(AGENTS[:bridge.num_players])
        self.possible_agents = list(agents)
        self.agents = list(agents)
        k = bridge.n_actions
        low, high, length = bridge.observation_box()
        self.action_spaces = {a: spaces.Discrete(k) for a in agents}
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(low, high, shape=(length,), dtype=np.int64),
                "action_mask": spaces.Box(0, 1, shape=(k,), dtype=np.int8),
            })
            for a in agents
        }
        self.state = bridge.initial
        self.moves = 0
        self.np_random, _ = seeding.np_random(None)

    # ------------------------------------------------------------------ the position
    @property
    def index(self) -> Any:
        """The state (a protocol game's: its index in ``space``)."""
        return self.state

    @property
    def scores(self) -> dict[str, int] | None:
        """The handout's game: each agent's score (None for a protocol game)."""
        return dict(zip(AGENTS, self.state[:2], strict=True)) if self.bridge.handout else None

    @property
    def winner(self) -> str | None:
        """The handout's game: the agent who won, None while playing (or for a protocol game)."""
        if not self.bridge.handout or self.state[3] is None:
            return None
        return AGENTS[self.state[3]]

    # -------------------------------------------------------------------- the AEC API
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        mask = np.zeros(self.bridge.n_actions, dtype=np.int8)
        if agent == self.agent_selection and not (self.terminations[agent]
                                                  or self.truncations[agent]):
            mask[list(self.bridge.legal(self.state))] = 1
        seat = self.possible_agents.index(agent)
        return {"observation": self.bridge.observation(self.state, seat), "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game from the initial state; `seed` reseeds chance. `options` is accepted and
        ignored (PettingZoo's tests pass one)."""
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self.agents = list(self.possible_agents)
        self.state, self.moves = self.bridge.start(self.np_random), 0
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[self.bridge.player(self.state)]

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = self._checked(agent, action)
        bridge, s = self.bridge, self.state
        outcome = bridge.draw(s, a, float(self.np_random.random()))
        nxt = bridge.after(s, a, outcome)
        mover = self.possible_agents.index(agent)
        self.state = nxt
        self.moves += 1
        self._cumulative_rewards[agent] = 0  # last() reports what came since the agent's move
        move = {"agent": agent, **bridge.move_info(s, a, outcome, nxt)}
        self.infos = {x: {"last_move": move} for x in self.agents}
        p = bridge.step_reward(s, a, nxt)
        self.rewards = dict(zip(self.agents, (p, -p), strict=False))
        if bridge.terminal(nxt):
            self.terminations = {x: True for x in self.agents}
        elif self.moves >= self.max_moves:
            self.truncations = {x: True for x in self.agents}
        self.agent_selection = self.agents[bridge.to_move(nxt, mover)]
        self._accumulate_rewards()

    def _checked(self, agent: str, action: Any) -> int:
        """`action` as an action id, or the error (nothing changed)."""
        space = self.action_spaces[agent]
        if type(action) is int:  # the common case, checked without gymnasium's numpy calls
            inside = 0 <= action < space.n
        else:
            inside = not isinstance(action, (bool, np.bool_)) and space.contains(action)
        if not inside:
            raise ActionOutOfSpaceError(
                f"action is not in action space: {action!r} ({self.bridge.action_hint()})")
        legal = self.bridge.legal(self.state)
        if int(action) not in legal:
            raise IllegalActionError(f"action {action!r} is not legal here (legal: "
                                     f"{sorted(legal)}, {self.action_labels})")
        return int(action)

    def render(self) -> str | None:
        """The position as text ("ansi"), printed ("human", returns None), or None."""
        if self.render_mode is None:
            return None
        text = self.bridge.render(self.state, self.agent_selection)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def _bridge(game: Any) -> Bridge:
    from dicejack.games.protocol import FiniteGame

    if not isinstance(game, (Bridge, Game, HandoutGame, FiniteGame)):
        raise DicejackError(f"dicejack_v0 needs a dicejack Game or a protocol game "
                            f"(dicejack.games), got {type(game).__name__}")
    return bridge_of(game)
