"""Protocol games as PettingZoo AEC environments (`dicejack.envs.protocol_v0`): PettingZoo's own
api_test passes on a small Pig and Piglet, moves follow the protocol, chance is seeded, and the
rewards are the payoffs."""

from __future__ import annotations

import pytest

pytest.importorskip("pettingzoo")

import numpy as np  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

from dicejack.envs import protocol_env, protocol_v0  # noqa: E402
from dicejack.games import Pig, Piglet  # noqa: E402


@pytest.mark.parametrize("game", [Pig(goal=10), Piglet(goal=4)])
def test_pettingzoos_api_test_passes(game):
    api_test(protocol_env(game), num_cycles=200)


def test_pettingzoos_seed_test_passes():
    seed_test(lambda: protocol_env(Pig(goal=10)), num_cycles=100)


def test_moves_follow_the_protocol_and_rewards_are_the_payoffs():
    env = protocol_env(Pig(goal=6))
    raw = env.unwrapped
    assert raw.action_labels == ["roll", "hold"]
    env.reset(seed=3)
    obs = env.observe("player_0")
    assert raw.space.states[int(obs["observation"][0])] == (0, 0, 0, 0)
    assert obs["action_mask"].tolist() == [1, 0]  # no points to hold yet
    assert env.observe("player_1")["action_mask"].tolist() == [0, 0]
    with pytest.raises(protocol_v0.IllegalActionError):
        env.step(1)
    ends = []
    for seed in range(40):
        env.reset(seed=seed)
        while not any(env.terminations.values()):
            agent = env.agent_selection
            state = raw.space.states[raw.index]
            assert agent == f"player_{state[3]}"
            mask = env.observe(agent)["action_mask"]
            env.step(1 if mask[1] and state[2] >= 2 else 0)  # hold at 2
        winner = raw.space.states[raw.index][1]
        ends.append((winner, env.rewards["player_0"], env.rewards["player_1"]))
    assert {(w, r0, r1) for w, r0, r1 in ends} <= {(0, 1.0, -1.0), (1, 0.0, -0.0)}
    assert len({w for w, _, _ in ends}) == 2


def test_the_same_seed_plays_the_same_game():
    def game_of(seed):
        env = protocol_env(Piglet(goal=5))
        env.reset(seed=seed)
        states = []
        while not any(env.terminations.values()):
            env.step(0)  # always roll
            states.append(env.unwrapped.index)
        return states

    assert game_of(7) == game_of(7)
    assert any(game_of(7) != game_of(s) for s in range(8, 12))


def test_one_agent_against_optimal_play_is_a_checked_gymnasium_env():
    from gymnasium.utils.env_checker import check_env

    from dicejack.envs import protocol_single_agent
    from dicejack.solver.generic import solve_game

    game = Pig(goal=8)
    sol = solve_game(game)
    for agent in ("player_0", "player_1"):
        single = protocol_single_agent(protocol_env(game), agent, sol.policy())
        check_env(single, skip_render_check=True)
    # always rolling against optimal play: the mean reward is its exact value, within noise
    single = protocol_single_agent(protocol_env(game), "player_0", sol.policy())
    from dicejack.solver.generic import evaluate_policy, policy_from_actions

    roll = policy_from_actions(sol.space, lambda s: "roll")
    p0 = sol.space.player[sol.space.row_state] == 0
    exact = evaluate_policy(sol.space, np.where(p0, roll, sol.policy()))[0]
    rewards = []
    for seed in range(400):
        single.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            _, r, done, cut, _ = single.step(0)
            total += r
            done = done or cut
        rewards.append(total)
    assert abs(np.mean(rewards) - exact) < 4 * np.std(rewards) / np.sqrt(len(rewards))
