"""dicejack.envs.dicejack_v0, the one PettingZoo environment of every game: PettingZoo's own
api_test and seed_test pass on the handout's game (its own encoding: the rules of handout_rules.py
with its roll distribution) and on a small Pig, Piglet and Peeking Blackjack; moves follow the
protocol, chance is seeded, and the rewards are the payoffs and, on the way, what the moves pay
(Peeking Blackjack's peek cost): the expected return is the game's exact value. (The handout's
plays equal the earlier environment's exactly: test_one_path.py.)"""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

from dicejack.envs import dicejack_v0, single_agent  # noqa: E402
from dicejack.games import PeekingBlackjack, Pig, Piglet  # noqa: E402
from dicejack.games.handout_rules import HANDOUT_GAME, Game  # noqa: E402
from dicejack.runtime.messages import DicejackError  # noqa: E402
from tests.games import SMALL  # noqa: E402


@pytest.mark.parametrize("game", [HANDOUT_GAME, SMALL, Game(2, 6, 6, 3)], ids=Game.label)
def test_pettingzoo_api_test_passes(game):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # dict observations, as the classic games
        api_test(dicejack_v0.env(game=game, render_mode="ansi"), num_cycles=1000,
                 verbose_progress=False)


def test_pettingzoo_seed_test_passes():
    seed_test(lambda: dicejack_v0.env(game=SMALL), num_cycles=500)


def _play(env, seed, policy):
    """Every (agent, observation, reward) of one game from reset(seed)."""
    env.reset(seed=seed)
    seen = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        seen.append((agent, tuple(obs["observation"]), tuple(obs["action_mask"]), reward))
        env.step(None if term or trunc else policy(agent, obs))
    return seen


def test_a_game_pays_plus_one_minus_one_and_observes_from_the_agents_view():
    env = dicejack_v0.env(game=SMALL)
    for seed in range(50):
        seen = _play(env, seed, lambda agent, obs: 1)
        final = {agent: reward for agent, *_, reward in seen[-2:]}
        assert sorted(final.values()) == [-1, 1]
        assert all(r == 0 for *_, r in seen[:-2])
        # observation: [own score, opponent's]; only the mover's mask is set
        movers = seen[:-2]
        for (a1, o1, m1, _), (a2, o2, _, _) in zip(movers, movers[1:], strict=False):
            assert a1 != a2 and m1 == (1, 1)
            assert o2[1] >= o1[0] and o2[0] == o1[1]  # the mover's score grew; views swap
        assert all(m == (0, 0) for _, _, m, _ in seen[-2:])


def test_the_first_roll_follows_the_dice_sum_distribution():
    game = Game(6, 15, 17, 2)
    raw = dicejack_v0.raw_env(game=game)
    raw.reset(seed=5)
    totals = []
    for _ in range(40_000):
        raw.reset()
        raw.step(1)  # two dice
        totals.append(raw.infos["player_0"]["last_move"]["total"])
    freq = np.bincount(totals, minlength=13) / len(totals)
    expected = game.sum_probabilities(2)
    assert np.abs(freq - expected).max() < 0.01  # 40,000 draws: sd <= 0.0025


def test_same_seed_same_game_and_reset_takes_options():
    env = dicejack_v0.env(game=SMALL)
    rng = np.random.default_rng(0)
    choice = rng.integers(0, 2, size=1000)
    policy = iter(choice.tolist() * 10)
    a = _play(env, 11, lambda agent, obs: next(policy))
    policy = iter(choice.tolist() * 10)
    b = _play(env, 11, lambda agent, obs: next(policy))
    assert a == b
    env.reset(seed=1, options={"anything": True})  # PettingZoo's tests pass options


def test_ansi_render_and_bad_arguments():
    env = dicejack_v0.raw_env(game=SMALL, render_mode="ansi")
    env.reset(seed=0)
    assert env.render() == "player_0 0, player_1 0: player_0 to move"
    while env.winner is None:
        env.step(0)
    assert env.render().endswith(f"{env.winner} won")
    assert dicejack_v0.raw_env(game=SMALL).render() is None
    with pytest.raises(DicejackError, match="needs a dicejack Game or a protocol game"):
        dicejack_v0.raw_env(game=(6, 15, 17, 2))
    with pytest.raises(DicejackError, match="render_mode"):
        dicejack_v0.raw_env(render_mode="rgb_array")


def test_pettingzoo_render_test_passes_and_human_prints_the_ansi_text(capsys):
    render_test(lambda render_mode=None: dicejack_v0.env(game=SMALL, render_mode=render_mode))
    capsys.readouterr()
    human = dicejack_v0.raw_env(game=SMALL, render_mode="human")
    human.reset(seed=0)
    assert human.render() is None
    assert capsys.readouterr().out == "player_0 0, player_1 0: player_0 to move\n"


@pytest.mark.parametrize("action", [-1, 2, 7, 1.0, True, "1", None])
def test_out_of_range_actions_raise_pettingzoos_error_in_raw_env_too(action):
    for make in (dicejack_v0.raw_env, dicejack_v0.env):
        env = make(game=SMALL)
        env.reset(seed=0)
        with pytest.raises(AssertionError, match="action is not in action space"):
            env.step(action)
        # nothing changed: player_0 is still to move at <0, 0>
        assert env.agent_selection == "player_0"
        assert list(env.observe("player_0")["observation"]) == [0, 0]
    raw = dicejack_v0.raw_env(game=SMALL)
    raw.reset(seed=0)
    with pytest.raises(dicejack_v0.ActionOutOfSpaceError, match=r"actions 0\.\.1 roll"):
        raw.step(-1)


def test_without_pettingzoo_the_import_is_one_line_naming_the_extra():
    code = ("import sys; sys.modules['pettingzoo'] = None\n"
            "try:\n    from dicejack.envs import dicejack_v0\n"
            "except ImportError as e:\n    print(e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == ("dicejack.envs.dicejack_v0 needs pettingzoo, which dicejack does not "
                           "install: pip install '.[pettingzoo]' in a clone of dicejack (or pip "
                           "install pettingzoo)")


# ------------------------------------------------------------------ protocol games (one env)
def protocol_env(game, **kwargs):
    """A protocol game through the one environment."""
    return dicejack_v0.env(game=game, **kwargs)

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
    with pytest.raises(dicejack_v0.IllegalActionError):
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

    from dicejack.solver.generic import solve_game

    game = Pig(goal=8)
    sol = solve_game(game)
    for agent in ("player_0", "player_1"):
        single = single_agent(protocol_env(game), agent, sol.policy())
        check_env(single, skip_render_check=True)
    # always rolling against optimal play: the mean reward is its exact value, within noise
    single = single_agent(protocol_env(game), "player_0", sol.policy())
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
    from dicejack.solver.generic import evaluate_policy, policy_from_actions

    game = PeekingBlackjack()
    single = single_agent(protocol_env(game), "player_0",
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
            state = raw.space.states[single.state]
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
