"""Seeded random plays through the environments and the OpenSpiel games, as canonical text and
its digest: what tests/envs/test_one_path.py holds the one implementation to
(tests/envs/recorded_plays.json: recorded with these functions from the two copies before they
became one, at commit f3e4d4c: dicejack_v0 and protocol_v0 through env(), single_agent and
protocol_single_agent, DiceJackEnv, dos.load and dos.protocol_game)."""

from __future__ import annotations

import hashlib
import json

import numpy as np

from dicejack.games.handout_rules import Game

#: The handout's game and two small ones (one whose opening roll can end it).
HANDOUT_GAMES = (Game(6, 15, 17, 2), Game(4, 10, 12, 2), Game(2, 6, 6, 3))
SEEDS = range(40)


def digest(rows: list) -> dict:
    text = json.dumps(rows, sort_keys=True, default=repr)
    return {"sha256": hashlib.sha256(text.encode()).hexdigest(), "rows": len(rows)}


def _plain(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        return float(value)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def aec_plays(make_env, seeds=SEEDS) -> list:
    """Every (agent, observation, mask, reward, termination, truncation, info) of seeded games
    with seeded random legal actions."""
    rows = []
    env = make_env()
    for seed in seeds:
        rng = np.random.default_rng(10_000 + seed)
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            rows.append(_plain([agent, obs["observation"], obs["action_mask"], float(reward),
                                term, trunc, info]))
            if term or trunc:
                env.step(None)
            else:
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(rng.choice(legal)))
    return rows


def single_plays(make_single, seeds=SEEDS) -> list:
    """(observation, reward, terminated, truncated) of seeded games of a single-agent env with
    seeded random legal actions."""
    rows = []
    for seed in seeds:
        env = make_single()
        rng = np.random.default_rng(20_000 + seed)
        obs, info = env.reset(seed=seed)
        rows.append(_plain(["reset", obs, info]))
        for _ in range(3):
            done = False
            while not done:
                action = int(rng.choice(np.flatnonzero(env.action_masks())))
                obs, reward, term, trunc, _ = env.step(action)
                done = term or trunc
                rows.append(_plain([obs, float(reward), term, trunc]))
            obs, info = env.reset()
            rows.append(_plain(["reset", obs, info]))
    return rows


def openspiel_plays(os_game, seeds=SEEDS) -> list:
    """Seeded random games through an OpenSpiel game: every node's player, string, legal actions
    or chance outcomes, observation, rewards and returns."""
    rows = []
    for seed in seeds:
        rng = np.random.default_rng(30_000 + seed)
        state = os_game.new_initial_state()
        while True:
            player = state.current_player()
            row = [player, str(state), state.rewards(), state.returns(), state.history()]
            if state.is_terminal():
                rows.append(_plain(row))
                break
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                row.append(outcomes)
                k = rng.choice(len(outcomes), p=[p for _, p in outcomes])
                action = outcomes[k][0]
                row.append(state.action_to_string(player, action))
            else:
                row += [state.legal_actions(), state.information_state_string(player),
                        state.observation_string(player)]
                if os_game.get_type().provides_observation_tensor:
                    row.append(state.observation_tensor(player))
                action = int(rng.choice(state.legal_actions()))
                row.append(state.action_to_string(player, action))
            rows.append(_plain(row))
            state.apply_action(action)
    return rows


def gym_plays(make_env, seeds=SEEDS) -> list:
    """(observation, reward, terminated, truncated, info) of seeded games of the handout's
    Gymnasium environment with seeded random actions (three games a seed)."""
    rows = []
    for seed in seeds:
        env = make_env()
        rng = np.random.default_rng(40_000 + seed)
        obs, info = env.reset(seed=seed)
        rows.append(_plain(["reset", obs, info]))
        for _ in range(3):
            done = False
            while not done:
                action = int(env.action_space.start + rng.integers(env.action_space.n))
                obs, reward, term, trunc, info = env.step(action)
                done = term or trunc
                rows.append(_plain([obs, float(reward), term, trunc, info]))
            obs, info = env.reset()
            rows.append(_plain(["reset", obs, info]))
    return rows


def gym_variants(game: Game, sol) -> dict:
    """The handout Gymnasium environment's variants the equality test replays: name -> kwargs."""
    return {
        "optimal": {"opponent": "optimal", "agent_first": 0.5},
        "uniform": {"opponent": "uniform", "agent_first": 0.5},
        "self": {"opponent": "self"},
        "table": {"opponent": sol.best.copy(), "agent_first": 0.0},
        "distribution": {"opponent": "distribution", "agent_first": 0.5},
        "callable": {"opponent": "callable", "agent_first": 1.0},
        "flat": {"opponent": "optimal", "zero_based": True, "flat": True, "zero_sum": True,
                 "agent_first": 0.5},
        "self zero_sum": {"opponent": "self", "zero_sum": True, "flat": True},
    }
