"""Protocol games as PettingZoo AEC environments (`dicejack.envs.protocol_v0`): PettingZoo's own
api_test passes on a small Pig, Piglet and Peeking Blackjack, moves follow the protocol, chance
is seeded, and the rewards are the payoffs and, on the way, what the moves pay (Peeking
Blackjack's peek cost): the expected return is the game's exact value."""

from __future__ import annotations

import pytest

pytest.importorskip("pettingzoo")

import numpy as np  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

from dicejack.envs import protocol_env, protocol_v0  # noqa: E402
from dicejack.games import PeekingBlackjack, Pig, Piglet  # noqa: E402


@pytest.mark.parametrize("game", [Pig(goal=10), Piglet(goal=4), PeekingBlackjack()])
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


# ------------------------------------------------------------------ rewards on the way (issue 45)
class _Drawn:
    """A generator whose next draw is u: picks the chance outcome whose interval holds u."""

    def __init__(self, u):
        self.u = u

    def random(self):
        return self.u


def _expected_return(env, policy, agent="player_0"):
    """The exact expected cumulative reward of `agent` when every seat plays `policy` (weights
    per row), through the bare environment's own steps: every chance outcome of every move
    played (the game replayed from the start, each draw set inside its outcome's interval),
    weighted by its probability."""
    raw = env.unwrapped
    space = raw.space
    t = space.transitions

    def walk(path):
        raw.reset(seed=0)
        paid = 0.0  # the agent's rewards, step by step (last() reports them since its move)
        for action, u in path:
            raw.np_random = _Drawn(u)
            raw.step(action)
            paid += raw.rewards[agent]
        if any(raw.terminations.values()) or any(raw.truncations.values()):
            return paid
        rows = list(space.rows(raw.index))
        w = np.asarray([policy[row] for row in rows], dtype=float)
        total = 0.0
        for row, weight in zip(rows, w / w.sum(), strict=True):
            if weight == 0:
                continue
            probs = t.data[t.indptr[row]:t.indptr[row + 1]]
            edges = np.concatenate(([0.0], np.cumsum(probs)))
            action = raw.action_labels.index(space.actions[row])
            for k, p in enumerate(probs):
                u = (edges[k] + edges[k + 1]) / 2
                total += weight * p * walk([*path, (action, u)])
        return total

    return walk([])


def test_per_action_rewards_reach_the_agents_and_returns_are_the_exact_value():
    """Peeking Blackjack through the AEC environment: the peek cost is paid when a peek is
    played; the expected cumulative reward is dicejack's exact value (41/6 for optimal play,
    the evaluation of a policy that always peeks first), exactly (to 1e-9), through the
    environment's own steps."""
    from fractions import Fraction

    from dicejack.solver.generic import evaluate_policy, policy_from_actions, solve_game

    game = PeekingBlackjack()
    sol = solve_game(game, exact=True)
    assert sol.value_exact == Fraction(41, 6)
    env = protocol_env(game)
    assert _expected_return(env, sol.policy()) == pytest.approx(41 / 6, abs=1e-9)
    peeky = policy_from_actions(sol.space, lambda s: "Peek" if s[1] is None else
                                ("Take" if s[0] + game.card_values[s[1]] <= 10 else "Quit"))
    want = evaluate_policy(sol.space, peeky)[0]
    assert _expected_return(env, peeky) == pytest.approx(want, abs=1e-9)
    # one peek: its cost is the step's reward; last() gives what came since the agent's move
    labels = env.unwrapped.action_labels
    env.reset(seed=1)
    env.step(labels.index("Peek"))
    assert env.rewards["player_0"] == -1.0 and env.last()[1] == -1.0
    env.step(labels.index("Take"))
    assert env.rewards["player_0"] == 0.0 and env.last()[1] == 0.0
    total = env.unwrapped.space.states[env.unwrapped.index][0]
    env.step(labels.index("Quit"))
    assert env.terminations["player_0"] and env.last()[1] == float(total) > 0


def test_one_agent_of_peeking_blackjack_pays_its_peeks():
    """Seeded Monte Carlo through the Gymnasium environment: always peeking first, 2,000 games;
    the mean return is within 5 standard errors of the exact value (the free-peek game's mean
    is more than 1 above it: every game peeks at least once)."""
    from dicejack.envs import protocol_single_agent
    from dicejack.solver.generic import evaluate_policy, policy_from_actions

    game = PeekingBlackjack()
    single = protocol_single_agent(protocol_env(game), "player_0",
                                   np.ones(protocol_env(game).unwrapped.space.n_rows))
    raw = single.raw
    labels = raw.action_labels

    def choose(state):
        if state[1] is None:
            return "Peek"
        return "Take" if state[0] + game.card_values[state[1]] <= game.threshold else "Quit"

    exact = evaluate_policy(raw.space, policy_from_actions(raw.space, choose))[0]
    totals = []
    for seed in range(2000):
        single.reset(seed=seed)
        total, over = 0.0, False
        while not over:
            state = raw.space.states[raw.index]
            _, r, done, cut, _ = single.step(labels.index(choose(state)))
            total += r
            over = done or cut
        totals.append(total)
    assert abs(np.mean(totals) - exact) < 5 * np.std(totals) / np.sqrt(len(totals))
    assert single.return_range == (-4.0, 10.0)


def test_truncation_is_the_games_longest_play_or_the_cap():
    from dicejack.games.bounds import MOVES_CAP, game_bounds

    raw = protocol_env(PeekingBlackjack()).unwrapped
    assert raw.bounds == game_bounds(raw.space) and raw.max_moves == 8
    assert protocol_env(Pig(goal=10)).unwrapped.max_moves == MOVES_CAP
    assert protocol_env(Pig(goal=10), max_moves=5).unwrapped.max_moves == 5
