"""dicejack.envs.dicejack_v0: PettingZoo's own api_test and seed_test pass, and the environment
plays the rules of game.py with the roll distribution of game.py."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

from dicejack.envs import dicejack_v0  # noqa: E402
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
    with pytest.raises(DicejackError, match="needs a dicejack Game"):
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
