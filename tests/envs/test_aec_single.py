"""dicejack.envs.single_agent: one agent of the PettingZoo environment against a fixed policy, as
a Gymnasium environment with action masks (what sb3-contrib's MaskablePPO learns on). sb3-contrib
needs torch, which the test environment does not install: Gymnasium's check_env and a seeded
masked-random rollout, set against the exact win probability, stand in for it."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from dicejack import solver  # noqa: E402
from dicejack.envs import dicejack_v0, single_agent  # noqa: E402
from dicejack.games.handout_rules import Game  # noqa: E402
from dicejack.runtime.messages import DicejackError  # noqa: E402
from tests.games import SMALL, TINY  # noqa: E402

#: LTarget above NDice x NSides: no opening roll ends a game (reset never replays one).
NO_OPENING_WIN = Game(3, 8, 9, 2)


@pytest.mark.parametrize("agent", ["player_0", "player_1"])
@pytest.mark.parametrize("game", [SMALL, TINY], ids=Game.label)
def test_gymnasiums_check_env_passes_without_warnings(game, agent):
    sol = solver.solve(game)
    for opponent in (sol, sol.best, np.full(game.shape, -1), lambda x, y: 1):
        env = single_agent(dicejack_v0.env(game=game), agent, opponent)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_env(env, skip_render_check=True)
        assert env.action_masks().tolist() == [True] * game.n_dice


def _rollout(env, games: int, seed: int) -> tuple[float, list]:
    """Mean reward of `games` masked-random games from reset(seed), and the first game's trace."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    total, trace = 0.0, []
    for i in range(games):
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            new, reward, done, truncated, _ = env.step(action)
            assert not truncated and reward in ((-1.0, 1.0) if done else (0.0,))
            if i == 0:
                trace.append((tuple(obs), action, tuple(new), reward))
            obs = new
        total += reward
        obs, _ = env.reset()
    return total / games, trace


@pytest.mark.parametrize("agent", ["player_0", "player_1"])
def test_a_seeded_masked_random_rollout_replays_and_wins_at_the_exact_rate(agent):
    game = NO_OPENING_WIN
    sol = solver.solve(game)
    env = single_agent(dicejack_v0.env(game=game), agent, sol)
    mean, trace = _rollout(env, 6_000, seed=3)
    again, trace2 = _rollout(single_agent(dicejack_v0.env(game=game), agent, sol), 6_000, seed=3)
    assert (mean, trace) == (again, trace2)  # same seed, same games
    uniform = np.full(game.shape, -1)
    p_win = (solver.evaluate(game, uniform, sol) if agent == "player_0"
             else 1.0 - solver.evaluate(game, sol, uniform))
    assert mean == pytest.approx(2 * p_win - 1, abs=4 / np.sqrt(6_000))  # 4 standard errors
    # the agent sees its own view: its score first, and <0, 0> only when it moves first
    assert (trace[0][0] == (0, 0)) == (agent == "player_0")


def test_the_agents_move_then_the_opponents_replies_are_one_step():
    game = NO_OPENING_WIN
    env = single_agent(dicejack_v0.env(game=game), "player_0", np.ones(game.shape, dtype=int))
    obs, info = env.reset(seed=0)
    assert obs.tolist() == [0, 0] and info == {"restarts": 0}
    obs, reward, done, _, _ = env.step(1)  # two dice, then the opponent rolls one die
    assert obs.tolist() == list(env.state[:2])  # the agent's own position, not the AEC env's
    assert 2 <= obs[0] <= 6 and 1 <= obs[1] <= 3 and not done and reward == 0.0


def test_bad_arguments_are_one_line_errors():
    env = dicejack_v0.env(game=SMALL)
    with pytest.raises(DicejackError, match="agent must be one of player_0, player_1"):
        single_agent(env, "player_2", solver.solve(SMALL))
    with pytest.raises(DicejackError, match="bad opponent: the policy plays 0 dice .* add 1 to "
                       "each J"):
        single_agent(env, "player_0", np.zeros(SMALL.shape, dtype=int))
    with pytest.raises(DicejackError, match="needs a dicejack_v0 environment"):
        single_agent(object(), "player_0", solver.solve(SMALL))
    played = single_agent(env, "player_0", solver.solve(SMALL))
    played.reset(seed=1)
    while not played.step(0)[2]:
        pass
    with pytest.raises(DicejackError, match="call reset"):
        played.step(0)


def test_the_single_agent_env_steps_the_bridge_not_the_aec_environment():
    """One path: the game's bridge is stepped directly; the AEC environment only gives the
    settings (its position stays where it was), and a bad action is its error, nothing changed."""
    from dicejack.envs.dicejack_v0 import ActionOutOfSpaceError

    game = NO_OPENING_WIN
    aec = dicejack_v0.env(game=game)
    aec.reset(seed=0)
    env = single_agent(aec, "player_1", np.ones(game.shape, dtype=int))
    with pytest.raises(DicejackError, match=r"call reset\(\) before step\(\)"):
        env.step(0)
    obs, _ = env.reset(seed=4)
    assert env.state[2] == 1 and 1 <= env.state[0] <= 3 and env.agent_to_move == "player_1"
    assert obs.tolist() == [0, env.state[0]]  # the opponent opened with one die
    state = env.state
    for bad in (game.n_dice, -1, True, 0.5):
        with pytest.raises(ActionOutOfSpaceError, match="not in action space"):
            env.step(bad)
        assert env.state == state
    env.step(np.int64(1))
    assert env.moves >= 2 and env.state != state
    raw = aec.unwrapped
    assert raw.state == (0, 0, 0, None) and raw.moves == 0 and aec.agent_selection == "player_0"
