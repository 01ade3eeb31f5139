"""The Gymnasium environment: the API contract (check_env), seeding, every opponent kind, bad
input, and win rates of tables played through it against the exact values of solver.evaluate."""

from __future__ import annotations

import math
import re
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import dicejack.envs.gym_env as denv
from dicejack import compare, solver
from dicejack.compare import greedy_tables
from dicejack.envs.gym_env import ENV_ID, DiceJackEnv, EnvError, roll_total
from dicejack.games.handout_rules import Game
from dicejack.runtime.messages import DicejackError
from tests.games import HANDOUT

ROOT = Path(__file__).resolve().parents[2]
#: Small enough for fast statistics, large enough that play matters: the opening roll (at most
#: 8) can never end the game, optimal play is not trivial (p00 = 0.663).
SMALL = Game(n_sides=4, low=10, high=12, n_dice=2)
#: A game whose opening roll can end it (1 die of 6, target 3..20: a 3 or more wins at once).
SHORT = Game(n_sides=6, low=3, high=20, n_dice=1)


@pytest.fixture(scope="module")
def small_solution() -> solver.Solution:
    return solver.solve(SMALL)


def uniform_distribution(game: Game) -> np.ndarray:
    dist = np.zeros(game.table_shape)
    dist[:, :, 1:] = 1.0 / game.n_dice
    return dist


def play_episodes(env: DiceJackEnv, agent, episodes: int, seed: int) -> list[float]:
    """Returns of `episodes` episodes; `agent(obs, info)` -> J. Seeded once, then reset()."""
    returns = []
    obs, info = env.reset(seed=seed)
    for _ in range(episodes):
        total, done = 0.0, False
        while not done:
            obs, reward, done, truncated, info = env.step(agent(obs, info))
            assert not truncated
            total += reward
        returns.append(total)
        obs, info = env.reset()
    return returns


def within_4_se(rate: float, p: float, n: int) -> bool:
    return abs(rate - p) <= 4 * math.sqrt(p * (1 - p) / n)


# -------------------------------------------------------------------- import, registry
def test_import_without_gymnasium_is_a_one_line_dicejack_error():
    code = (
        "import sys; sys.modules['gymnasium'] = None\n"
        "from dicejack.runtime.messages import DicejackError\n"
        "try:\n    import dicejack.envs.gym_env\n"
        "except DicejackError as e:\n"
        "    print(type(e).__name__, isinstance(e, ImportError)); print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stderr == ""
    assert out.stdout.splitlines() == [
        "GymMissingError True",
        "dicejack.envs.gym_env needs gymnasium, which dicejack does not install: "
        "pip install '.[gym]' in a clone of dicejack (or pip install gymnasium)",
    ]


def test_import_without_pettingzoo_names_the_extra_that_brings_it():
    """DiceJackEnv plays through the one PettingZoo environment: the gym extra installs it."""
    code = (
        "import sys; sys.modules['pettingzoo'] = None\n"
        "try:\n    import dicejack.envs.gym_env\n"
        "except ImportError as e:\n    print(type(e).__name__); print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == [
        "GymMissingError",
        "dicejack.envs.gym_env needs pettingzoo (DiceJackEnv is one agent of dicejack's "
        "PettingZoo environment), which dicejack does not install: pip install '.[gym]' in a "
        "clone of dicejack (or pip install pettingzoo)",
    ]


def test_registered_with_the_handout_game_and_reimport_is_silent():
    spec = gym.spec(ENV_ID)
    assert spec.entry_point == "dicejack.envs.gym_env:DiceJackEnv"
    assert spec.kwargs["game"] == HANDOUT
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        denv.register()
    # A re-import (reload) in a fresh process, warnings as errors: silent, still one spec.
    code = (
        "import importlib, warnings; warnings.simplefilter('error')\n"
        "import gymnasium, dicejack.envs.gym_env as e; importlib.reload(e); e.register()\n"
        "print(sum(k.startswith('dicejack/') for k in gymnasium.registry))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (out.returncode, out.stdout, out.stderr) == (0, "1\n", "")
    env = gym.make(ENV_ID)
    assert env.unwrapped.game == HANDOUT
    assert env.unwrapped.opponent == "optimal"
    assert env.observation_space == gym.spaces.Tuple(
        (gym.spaces.Discrete(15), gym.spaces.Discrete(15))
    )
    assert env.action_space == gym.spaces.Discrete(2, start=1)
    obs, info = env.reset(seed=0)
    assert obs == (0, 0) and info["scores"] == (0, 0) and info["agent_first"] is True
    # The module:id form imports dicejack.envs.gym_env by itself.
    assert gym.make(f"dicejack.envs.gym_env:{ENV_ID}", game=SMALL).unwrapped.game == SMALL


# ---------------------------------------------------------------------------- check_env
def opponent_kinds(game: Game, sol: solver.Solution) -> dict[str, object]:
    return {
        "optimal": "optimal",
        "uniform": "uniform",
        "self": "self",
        "table": sol.best.copy(),
        "distribution": solver.optimal_distribution(sol),
        "callable": lambda x, y, rng: 1 + int(x + y >= 6),
    }


@pytest.mark.parametrize(
    "kind", ["optimal", "uniform", "self", "table", "distribution", "callable"]
)
def test_check_env_passes_for_every_opponent_with_warnings_as_errors(kind, small_solution):
    opponent = opponent_kinds(SMALL, small_solution)[kind]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for mode in (None, "ansi"):
            env = gym.make(ENV_ID, game=SMALL, opponent=opponent, render_mode=mode,
                           agent_first=0.5)
            check_env(env.unwrapped)
            env.close()


# --------------------------------------------------------------------------- the dice
def test_roll_total_maps_each_uniform_to_the_exact_distribution():
    cdf = SMALL.sum_cdf_table
    for j in range(1, SMALL.n_dice + 1):
        row = cdf[j].tolist()
        counts = SMALL.sum_counts(j)
        for t in range(len(row)):
            if t < len(counts) and counts[t]:
                # Exactly the uniforms in [P(total <= t-1), P(total <= t)) give total t.
                assert roll_total(row, row[t - 1]) == t
                assert roll_total(row, math.nextafter(row[t], 0.0)) == t
        assert roll_total(row, math.nextafter(1.0, 0.0)) == j * SMALL.n_sides
        assert roll_total(row, 0.0) == j


# ----------------------------------------------------------------------- determinism
def trajectory(env: DiceJackEnv, seed: int, actions: list[int]) -> list:
    obs, info = env.reset(seed=seed)
    out = [(obs, info)]
    for j in actions:
        if info.get("winner") is not None:
            obs, info = env.reset()
            out.append((obs, info))
        obs, reward, done, truncated, info = env.step(j)
        out.append((obs, reward, done, truncated, info))
    return out


@pytest.mark.parametrize(
    "kind", ["optimal", "uniform", "self", "table", "distribution", "callable"]
)
def test_same_seed_same_episodes(kind, small_solution):
    opponent = opponent_kinds(SMALL, small_solution)[kind]
    actions = [1, 2, 2, 1, 2, 1, 1, 2] * 10
    a = trajectory(DiceJackEnv(SMALL, opponent, agent_first=0.5), 7, actions)
    b = trajectory(DiceJackEnv(SMALL, opponent, agent_first=0.5), 7, actions)
    c = trajectory(DiceJackEnv(SMALL, opponent, agent_first=0.5), 8, actions)
    assert a == b
    assert a != c


def test_a_random_opponent_draws_from_the_env_generator():
    seen = []

    def spy(x, y, rng):
        seen.append(rng)
        return int(rng.integers(1, 3))

    env = DiceJackEnv(SMALL, spy)
    env.reset(seed=3)
    env.step(1)
    assert seen == [env.np_random]


# --------------------------------------------------------------- rewards and win rates
def test_optimal_table_through_the_env_wins_at_the_exact_rate(small_solution):
    sol = small_solution
    best = sol.best
    p = solver.evaluate(SMALL, best, best)
    assert p == pytest.approx(sol.p00, abs=1e-12)
    n = 20_000
    returns = play_episodes(DiceJackEnv(SMALL, "optimal"), lambda o, i: int(best[o]), n, 11)
    assert set(returns) <= {0.0, 1.0}
    assert within_4_se(sum(returns) / n, p, n)


def test_uniform_agent_seated_second_against_a_table_wins_at_the_exact_rate(small_solution):
    rng = np.random.default_rng(5)
    table = small_solution.best
    env = DiceJackEnv(SMALL, table, agent_first=0.0)
    n = 8_000

    def agent(obs, info):
        assert info["agent_first"] is False
        return int(rng.integers(1, 3))

    returns = play_episodes(env, agent, n, 12)
    p = 1.0 - solver.evaluate(SMALL, table, uniform_distribution(SMALL))
    assert within_4_se(sum(returns) / n, p, n)


def test_self_play_rewards_belong_to_the_mover(small_solution):
    best = small_solution.best
    env = DiceJackEnv(SMALL, "self")
    n = 8_000
    first_wins = 0
    obs, info = env.reset(seed=13)
    for _ in range(n):
        assert info["to_move"] == "first" and obs == (0, 0)
        done = False
        while not done:
            mover = info["to_move"]
            obs, reward, done, _, info = env.step(int(best[obs]))
            assert info["mover"] == mover
            if not done:
                assert reward == 0.0 and info["to_move"] != mover
                first, second = info["scores"]
                assert obs == ((first, second) if info["to_move"] == "first" else (second, first))
        winner = info["winner"]
        assert info["to_move"] is None
        assert (reward == 1.0) == (winner == mover)
        first_wins += winner == "first"
        obs, info = env.reset()
    assert within_4_se(first_wins / n, solver.evaluate(SMALL, best, best), n)


def test_agent_first_probability_and_option():
    env = DiceJackEnv(SMALL, "uniform", agent_first=0.5)
    seats = [env.reset(seed=s)[1]["agent_first"] for s in range(200)]
    assert 60 < sum(seats) < 140
    obs, info = env.reset(seed=1, options={"agent_first": False})
    assert info["agent_first"] is False and obs[0] == 0 and obs[1] > 0
    assert info["moves"][0].player == "opponent" and info["moves"][0].score == obs[1]
    obs, info = env.reset(options={"agent_first": True})
    assert obs == (0, 0) and info["moves"] == ()


def test_opening_rolls_that_end_the_game_are_replayed_and_counted():
    env = DiceJackEnv(SHORT, "uniform", agent_first=0.0)
    restarts = []
    for seed in range(300):
        obs, info = env.reset(seed=seed)
        assert info["winner"] is None and obs[0] == 0 and obs[1] in (1, 2)
        restarts.append(info["restarts"])
    # P(the opening 1-die roll ends the game) = 4/6: restarts are geometric with mean 2.
    assert 1.5 < np.mean(restarts) < 2.5
    # Every opening roll ends a game with LTarget = 1: a clear error, not a hang.
    never = DiceJackEnv(Game(n_sides=6, low=1, high=6, n_dice=1), "uniform", agent_first=0.0)
    with pytest.raises(EnvError, match="opening roll ended 1000 games in a row"):
        never.reset(seed=0)


# ------------------------------------------------------------------- render and info
def test_ansi_render_shows_scores_moves_and_result():
    env = DiceJackEnv(SMALL, "optimal", render_mode="ansi")
    obs, info = env.reset(seed=2)
    text = env.render()
    assert "NSides=4, LTarget=10, UTarget=12, NDice=2" in text
    assert "agent to move at <0,0>" in text
    history = list(info["moves"])
    done = False
    while not done:
        obs, reward, done, _, info = env.step(2)
        history.extend(info["moves"])
    text = env.render()
    agent, opponent = info["scores"]
    assert re.search(rf"agent\s+{agent}\s+opponent\s+{opponent}\n", text)
    assert f"{info['winner']} wins" in text
    shown = text.split("moves: ")[1].splitlines()[0]
    assert shown == "; ".join(
        f"{m.player} {m.dice} {'die' if m.dice == 1 else 'dice'} -> {m.total} ({m.score})"
        for m in history
    )
    assert history[0].player == "agent" and history[0].dice == 2
    assert history[-1].score == (agent if history[-1].player == "agent" else opponent)
    assert obs == (min(agent, 9), min(opponent, 9))
    assert (reward == 1.0) == (info["winner"] == "agent")


def test_render_without_mode_warns_and_returns_none():
    env = DiceJackEnv(SMALL)
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None


# ------------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"opponent": "greedy"}, "unknown opponent 'greedy'"),
        ({"opponent": np.ones((3, 3), dtype=int)}, "must be 10x10"),
        ({"opponent": np.zeros((10, 10), dtype=int)},
         "the policy plays 0 dice at <0,0> (100 states in all), but J counts from 1 (1..2): "
         "for a 0-based policy (actions 0..1, J = action + 1) add 1 to each entry"),
        ({"opponent": np.full((10, 10), -1)},
         "bad opponent table: no data (-1 or NaN) at <0,0>; an opponent plays a J in every "
         "state"),
        ({"opponent": np.full((10, 10), 3)}, "policy has 3 dice at <0,0>; must be 1..2"),
        ({"opponent": np.full((10, 10), 1.5)}, "whole numbers of dice"),
        ({"opponent": np.full((10, 10, 3), 0.5)}, "action distribution"),
        ({"opponent": [["a"]]}, "must hold numbers"),
        ({"game": (4, 10, 12, 2)}, "game must be a dicejack.games.handout_rules.Game"),
        ({"render_mode": "human"}, "render_mode must be None or 'ansi'"),
        ({"agent_first": 1.5}, "agent_first must be a probability"),
        ({"agent_first": "yes"}, "agent_first must be a probability"),
    ],
)
def test_bad_arguments_are_one_line_errors(kwargs, message):
    args = {"game": SMALL, **kwargs}
    with pytest.raises(EnvError) as err:
        DiceJackEnv(**args)
    assert message in str(err.value)
    assert "\n" not in str(err.value)
    assert isinstance(err.value, DicejackError)


@pytest.mark.parametrize("action", [0, 3, -1, 1.0, 1.5, True, "2", None, np.array([1])])
def test_invalid_actions_are_refused_and_change_nothing(action):
    env = DiceJackEnv(SMALL, "uniform")
    ref = DiceJackEnv(SMALL, "uniform")
    env.reset(seed=4)
    ref.reset(seed=4)
    with pytest.raises(EnvError, match=r"number of dice J.*1\.\.2") as err:
        env.step(action)
    assert "\n" not in str(err.value)
    assert env.step(np.int64(2)) == ref.step(2)
    assert env.step(np.array(1)) == ref.step(1)


def test_steps_out_of_turn_and_bad_options():
    env = DiceJackEnv(SMALL, "uniform")
    with pytest.raises(EnvError, match="call reset"):
        env.step(1)
    env.reset(seed=0)
    done = False
    while not done:
        done = env.step(2)[2]
    with pytest.raises(EnvError, match="the game is over; call reset"):
        env.step(1)
    with pytest.warns(UserWarning, match="ignores the option"):  # wrappers pass their own
        env.reset(options={"render": True})
    for start in ((1, 10), (1,), "ab", (1.5, 2), (True, 2)):
        with pytest.raises(EnvError, match="reset option start must be a state"):
            env.reset(options={"start": start})
    with pytest.raises(EnvError, match="agent_first must be True or False"):
        env.reset(options={"agent_first": 0.5})


def test_a_chosen_start_zero_based_actions_flat_observations_and_zero_sum_rewards():
    env = DiceJackEnv(SMALL, "optimal", zero_based=True, flat=True, zero_sum=True,
                      agent_first=0.0)
    assert env.action_space == gym.spaces.Discrete(2)
    assert env.observation_space == gym.spaces.MultiDiscrete([10, 10])
    obs, info = env.reset(seed=1, options={"start": (9, 3)})
    assert obs.tolist() == [9, 3] and obs in env.observation_space and info["agent_first"]
    obs, reward, done, _, info = env.step(0)  # one die from 9: 10..12 wins, 13 busts
    assert done and reward == (1.0 if info["winner"] == "agent" else -1.0)
    assert info["moves"][0].dice == 1
    with pytest.raises(EnvError, match=r"in 0\.\.1 \(J - 1 dice\)"):
        env.reset(seed=1)
        env.step(2)
    losses = 0
    selfplay = DiceJackEnv(SMALL, "self", zero_sum=True)
    for seed in range(40):
        selfplay.reset(seed=seed, options={"start": (9, 9)})
        _, reward, done, _, info = selfplay.step(1)  # two dice from 9: 2, 3 win; 4..8 bust
        assert done and reward == (1.0 if info["winner"] == info["mover"] else -1.0)
        losses += reward == -1.0
    assert 0 < losses < 40
    with pytest.raises(EnvError, match="zero_sum must be True or False"):
        DiceJackEnv(SMALL, zero_sum=1)


def test_gymnasiums_env_checker_passes_without_warnings_on_every_option():
    from gymnasium.utils.env_checker import check_env

    for kwargs in ({}, {"zero_based": True, "flat": True}, {"opponent": "self", "flat": True}):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_env(DiceJackEnv(SMALL, **kwargs), skip_render_check=True)


def test_stable_baselines3s_checker_passes_without_warnings_on_the_flat_option():
    """Run where Stable-Baselines3 is installed (it needs torch, which CI does not install)."""
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb3_checker.check_env(DiceJackEnv(SMALL, zero_based=True, flat=True), warn=True)


@pytest.mark.parametrize("answer", [0, 3, 1.0, None])
def test_a_callable_opponent_answering_badly_is_a_clear_error(answer):
    env = DiceJackEnv(SMALL, lambda x, y, rng: answer)
    env.reset(seed=0)
    with pytest.raises(EnvError, match=r"the opponent's J at <0,\d+> must be") as err:
        env.step(1)
    assert "\n" not in str(err.value)
    with pytest.raises(EnvError, match="call reset"):  # the game cannot go on
        env.step(1)


# --------------------------------------------------------- learned tables to compare
def test_a_tabular_agent_against_uniform_gives_tables_compare_and_evaluate_accept():
    """Monte Carlo control, 3,000 episodes against the uniform player on a small game."""
    game = Game(n_sides=4, low=8, high=9, n_dice=2)
    k = game.n_dice
    env = gym.make(ENV_ID, game=game, opponent="uniform", agent_first=0.5)
    rng = np.random.default_rng(3)
    wins, plays = np.zeros(game.table_shape), np.zeros(game.table_shape)
    obs, info = env.reset(seed=3)
    for _ in range(3_000):
        moves, done = [], False
        while not done:
            rate = wins[obs] / np.maximum(plays[obs], 1)
            j = int(rng.integers(1, k + 1)) if rng.random() < 0.2 else 1 + int(np.argmax(rate[1:]))
            moves.append((*obs, j))
            obs, reward, done, _, info = env.step(j)
        for x, y, j in moves:
            plays[x, y, j] += 1
            wins[x, y, j] += reward
        obs, info = env.reset()
    q = wins / np.maximum(plays, 1)
    sol = solver.solve(game)
    best, prob = greedy_tables(game, q, visits=plays)
    assert 0 < (best > 0).sum() < game.states  # some states never seen
    c = compare.compare(game, sol, (best, prob))
    assert c.states_with_data == (best > 0).sum()
    assert 0.0 <= c.score_vs_optimal <= 0.5 + 1e-12
    full, _ = greedy_tables(game, q)
    uniform = uniform_distribution(game)
    learned_vs_uniform = solver.evaluate(game, full, uniform)
    # It learned something: it beats the uniform player more often than uniform play does.
    assert learned_vs_uniform > solver.evaluate(game, uniform, uniform) + 0.05
    # With data everywhere compare's greedy policy is `full`, and its score is evaluate's.
    c_full = compare.compare(game, sol, (full, q.max(axis=2)))
    want = 0.5 * (solver.evaluate(game, full, sol) + 1 - solver.evaluate(game, sol, full))
    assert c_full.score_vs_optimal == pytest.approx(want, abs=1e-12)
    # And the learned table can be the next opponent.
    DiceJackEnv(game, opponent=full).reset(seed=0)


# ------------------------------------------------------------------------------- docs
def test_the_docs_examples_run(capsys):
    """Every Python block of docs/environment.md, in order, in one namespace; the agent's on a
    smaller game and fewer episodes so that it takes a fraction of a second."""
    text = (ROOT / "docs" / "environment.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    agent = next(i for i, b in enumerate(blocks) if "for episode in range(episodes)" in b)
    game_line = "game = Game(n_sides=6, low=15, high=17, n_dice=2)"
    size_line = "episodes, epsilon = 20_000, 0.1"
    assert game_line in blocks[agent] and size_line in blocks[agent]
    blocks[agent] = blocks[agent].replace(
        game_line, "game = Game(n_sides=4, low=8, high=9, n_dice=2)"
    ).replace(size_line, "episodes, epsilon = 3_000, 0.1")
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "docs/environment.md", "exec"), namespace)
    out = capsys.readouterr().out
    agreement, score = map(float, re.findall(r"agreement ([\d.]+), score against optimal ([\d.]+)",
                                             out)[0])
    assert 0.5 < agreement <= 1.0 and 0.4 < score <= 0.5
    sol = namespace["sol"]
    assert re.search(rf"optimal: {sol.p00:.4f}\)", out)
