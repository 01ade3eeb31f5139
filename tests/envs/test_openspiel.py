"""dicejack.envs.openspiel: the game passes OpenSpiel's own checks, OpenSpiel's value iteration and
exploitability agree with dicejack's solver, and OpenSpiel policies go through compare."""

from __future__ import annotations

import contextlib
import io
import pickle
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python import policy as policy_lib  # noqa: E402
from open_spiel.python import rl_agent_policy, rl_environment  # noqa: E402
from open_spiel.python.algorithms import (  # noqa: E402
    exploitability,
    tabular_qlearner,
    value_iteration,
)

import dicejack.envs.openspiel as dos  # noqa: E402
from dicejack import compare, solver  # noqa: E402
from dicejack.games.handout_rules import HANDOUT_GAME, Game  # noqa: E402
from dicejack.runtime.messages import DicejackError  # noqa: E402

#: Games for value iteration: one with 3 dice; the handout's own.
VI_GAMES = (Game(3, 10, 20, 2), HANDOUT_GAME, Game(4, 12, 14, 3))
#: OpenSpiel's best response walks every history: tiny games only.
BR_GAMES = (Game(2, 4, 5, 2), Game(3, 4, 5, 2), Game(2, 4, 4, 3))


def test_load_game_by_name_with_parameters_and_defaults():
    g = pyspiel.load_game("python_dicejack(sides=3,low=10,high=20,dice=2)")
    assert dos.game_of(g) == Game(3, 10, 20, 2)
    assert g.num_players() == 2 and g.num_distinct_actions() == 2
    assert g.max_chance_outcomes() == 7 and g.max_game_length() == 20
    assert dos.game_of(pyspiel.load_game("python_dicejack")) == HANDOUT_GAME
    t = g.get_type()
    assert t.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert t.utility == pyspiel.GameType.Utility.ZERO_SUM
    with pytest.raises(Exception, match="low"):
        pyspiel.load_game("python_dicejack(sides=3,low=10,high=5,dice=2)")


def test_chance_nodes_carry_each_totals_exact_probability():
    game = Game(6, 15, 17, 3)
    state = dos.load(game).new_initial_state()
    state.apply_action(2)  # three dice
    assert state.is_chance_node()
    outcomes = dict(state.chance_outcomes())
    exact = game.sum_fractions(3)
    assert sorted(outcomes) == list(range(3, 19))
    for total, p in outcomes.items():
        assert p == float(exact[total])
    assert sum(Fraction(p) for p in outcomes.values()) == pytest.approx(1, abs=1e-15)


def test_a_turn_follows_the_rules_of_game_py():
    state = dos.load(Game(6, 15, 17, 2)).new_initial_state()
    for action in (1, 12, 0, 5, 1, 2):  # p0: 2 dice, 12; p1: 1 die, 5; p0: 2 dice, 2 -> 14
        state.apply_action(action)
    assert state.scores == [14, 5] and state.current_player() == 1
    state.apply_action(0)
    state.apply_action(6)  # p1 reaches 11
    state.apply_action(0)
    state.apply_action(1)  # p0 reaches 15: wins at once
    assert state.is_terminal() and state.returns() == [1.0, -1.0]
    over = dos.load(Game(6, 15, 17, 2)).new_initial_state()
    over.scores = [14, 0]
    over.apply_action(1)
    over.apply_action(4)  # 18 > UTarget: the mover loses at once
    assert over.returns() == [-1.0, 1.0]


def test_openspiels_own_consistency_checks_pass():
    """The checks OpenSpiel runs on its bundled Python games: random_sim_test with serialization,
    and games_sim_test's sim_game (pickling of game, type and states, cloning, returns)."""
    from open_spiel.python.tests import games_sim_test

    case = games_sim_test.GamesSimTest("test_pig")
    for name in ("python_dicejack(sides=3,low=10,high=20,dice=2)", "python_dicejack",
                 "python_dicejack(sides=2,low=6,high=6,dice=3)"):
        game = pyspiel.load_game(name)
        pyspiel.random_sim_test(game, num_sims=10, serialize=True, verbose=False)
        with contextlib.redirect_stdout(io.StringIO()):
            for _ in range(5):
                case.sim_game(game)


def test_states_serialize_and_pickle():
    game = pyspiel.load_game("python_dicejack(sides=3,low=10,high=20,dice=2)")
    state = game.new_initial_state()
    for action in (1, 4, 0, 2, 1):
        state.apply_action(action)
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(state2) == str(state) and state2.history() == state.history()
    assert str(pickle.loads(pickle.dumps(state))) == str(state)


@pytest.mark.parametrize("game", VI_GAMES, ids=Game.label)
def test_value_iteration_equals_the_solver(game):
    values = value_iteration.value_iteration(dos.load(game), depth_limit=-1, threshold=1e-12,
                                             cyclic_game=True)
    sol = solver.solve(game)
    checked = 0
    for key, value in values.items():
        state = dos.decision_state(key)
        if state is None:
            continue
        s0, s1, player = state
        x, y = compare.mover_view((s0, s1), player)
        mover_value = compare.probability_to_value(float(sol.p[x, y]))
        assert value == pytest.approx(mover_value if player == 0 else -mover_value, abs=1e-9)
        checked += 1
    assert checked > 100  # every decision state OpenSpiel reached, both seats


@pytest.mark.parametrize("game", BR_GAMES, ids=Game.label)
def test_exploitability_equals_openspiels_for_random_and_table_policies(game):
    os_game = dos.load(game)
    uniform = policy_lib.UniformRandomPolicy(os_game)
    ours = solver.exploitability(game, dos.policy_table(os_game, uniform))
    assert ours == pytest.approx(exploitability.exploitability(os_game, uniform), abs=1e-9)
    rng = np.random.default_rng(7)
    for _ in range(3):
        table = rng.integers(1, game.n_dice + 1, size=game.shape)
        theirs = exploitability.exploitability(os_game, dos.openspiel_policy(os_game, table))
        assert solver.exploitability(game, table) == pytest.approx(theirs, abs=1e-9)
    sol = solver.solve(game)
    assert exploitability.exploitability(os_game, dos.openspiel_policy(os_game, sol)) == (
        pytest.approx(0.0, abs=1e-9))


def _trained_qlearner(game: Game, episodes: int, seed: int):
    os_game = dos.load(game)
    # the chance sampler draws the dice (Environment's own seed= is not used for them)
    env = rl_environment.Environment(
        os_game, chance_event_sampler=rl_environment.ChanceEventSampler(seed=seed))
    k = env.action_spec()["num_actions"]
    agents = [tabular_qlearner.QLearner(player_id=p, num_actions=k) for p in range(2)]
    np.random.seed(seed)  # QLearner explores with numpy's global generator
    for _ in range(episodes):
        step = env.reset()
        moved = set()
        while not step.last():
            player = step.observations["current_player"]
            moved.add(player)
            step = env.step([agents[player].step(step).action])
        for player in moved:  # a QLearner that never moved must not see the end (it asserts)
            agents[player].step(step)
    return os_game, rl_agent_policy.JointRLAgentPolicy(
        os_game, {0: agents[0], 1: agents[1]}, use_observation=True)


def test_a_seeded_qlearner_run_replays_exactly():
    """Finding 4: Environment(os_game, seed=) does not seed the dice; the chance sampler does, so
    two runs with the same seed learn the same tables (the docs' quoted numbers rely on it)."""
    game = Game(3, 6, 7, 2)
    runs = [_trained_qlearner(game, 300, seed=5) for _ in range(2)]
    tables = [[dos.policy_table(os_game, joint, seat=s) for s in (0, 1)] for os_game, joint in runs]
    for a, b in zip(*tables, strict=True):
        np.testing.assert_array_equal(a, b)
    other = _trained_qlearner(game, 300, seed=6)
    assert not all(np.array_equal(a, dos.policy_table(other[0], other[1], seat=s))
                   for s, a in enumerate(tables[0]))


def test_a_learned_openspiel_policy_is_measured_exactly():
    game = Game(2, 4, 5, 2)
    os_game, joint = _trained_qlearner(game, 2_000, seed=3)
    for seat in (0, 1):
        dist = dos.policy_table(os_game, joint, seat=seat)
        ours = solver.exploitability(game, dist)
        seat_policy = dos.openspiel_policy(os_game, dist)
        assert ours == pytest.approx(exploitability.exploitability(os_game, seat_policy),
                                     abs=1e-9)
        c = compare.compare(game, None, dist)
        assert c.metrics["exploitability"] == pytest.approx(ours)
        assert np.isnan(c.metrics["rmse_onpath"])  # no estimates come with a policy
        assert 0.0 <= c.metrics["agreement_all"] <= 1.0


def test_a_trained_pairs_exploitability_is_openspiels_and_not_each_seats_alone():
    """Finding 3: the pair's exploitability (NashConv / 2 of the joint policy), exactly as
    OpenSpiel computes it, with its per-player improvements; each seat's table measured as if
    it played both seats is another number."""
    game = Game(2, 4, 5, 2)
    os_game, joint = _trained_qlearner(game, 2_000, seed=3)
    first, second = (dos.policy_table(os_game, joint, seat=s) for s in (0, 1))
    theirs = exploitability.nash_conv(os_game, joint, return_only_nash_conv=False)
    values = dos.seat_values(os_game, joint)
    assert values.nash_conv == pytest.approx(theirs.nash_conv, abs=1e-12)
    assert dos.exploitability(os_game, joint) == pytest.approx(
        exploitability.exploitability(os_game, joint), abs=1e-12)
    pair = solver.exploitability(game, first=first, second=second)
    assert pair == pytest.approx(theirs.nash_conv / 2, abs=1e-12)
    p_first = solver.evaluate(game, first, second)
    assert values.improvements_over(p_first) == pytest.approx(
        tuple(theirs.player_improvements), abs=1e-12)
    # the seat pair as one OpenSpiel policy: the same numbers again
    rebuilt = dos.openspiel_policy(os_game, first, second)
    assert exploitability.exploitability(os_game, rebuilt) == pytest.approx(pair, abs=1e-12)
    alone = [solver.exploitability(game, t) for t in (first, second)]
    assert all(abs(a - pair) > 1e-3 for a in alone)


def test_compare_refuses_a_pair_naming_only_functions_and_arguments_that_exist():
    import inspect

    game = Game(2, 4, 5, 2)
    os_game, joint = _trained_qlearner(game, 2_000, seed=3)
    with pytest.raises(compare.CompareError) as err:
        compare.compare(game, None, joint)
    text = str(err.value)
    assert "differently as player 0 and player 1" in text and "pass seat" not in text
    assert "dicejack.envs.openspiel.policy_table(os_game, policy, seat=0)" in text
    assert "dicejack.envs.openspiel.seat_values(os_game, policy)" in text
    assert "seat" in inspect.signature(dos.policy_table).parameters
    assert "seat" not in inspect.signature(compare.compare).parameters
    assert list(inspect.signature(dos.seat_values).parameters) == ["os_game", "policy"]
    with pytest.raises(dos.SeatsDifferError, match=r"policy_table\(os_game, policy, seat=0\)"):
        dos.policy_table(os_game, joint)


@pytest.mark.parametrize("game", BR_GAMES, ids=Game.label)
def test_random_seat_pairs_exploitability_equals_openspiels(game):
    os_game = dos.load(game)
    rng = np.random.default_rng(11)
    for _ in range(3):
        a, b = (rng.integers(1, game.n_dice + 1, size=game.shape) for _ in range(2))
        theirs = exploitability.exploitability(os_game, dos.openspiel_policy(os_game, a, b))
        assert solver.exploitability(game, first=a, second=b) == pytest.approx(theirs, abs=1e-12)
        values = solver.seat_values(game, a, b)
        assert values.first == solver.best_response(game, b).first
        assert values.second == solver.best_response(game, a).second


@pytest.mark.parametrize("game", [HANDOUT_GAME, Game(6, 30, 35, 4)], ids=Game.label)
def test_bridges_on_real_games_are_keyed_by_information_state(game):
    """Finding 1: every bridge builds the 2 L^2 decision states directly, keyed by information
    state; OpenSpiel's TabularPolicy(os_game) walks every history (about 1.3e10 on the
    handout's game) and never returns. Times: benchmarks/bench_openspiel_bridges.py."""
    os_game = dos.load(game)
    sol = solver.solve(game)
    policy = dos.openspiel_policy(os_game, sol)
    states = dos.decision_states(os_game)
    assert len(policy.state_lookup) == len(states) == 2 * game.low ** 2
    for key, state in states.items():
        assert key == state.information_state_string(state.current_player())
    np.testing.assert_allclose(dos.policy_table(os_game, policy), solver.optimal_distribution(sol),
                               atol=1e-15)
    assert dos.exploitability(os_game, policy) == pytest.approx(0.0, abs=1e-12)
    uniform = dos.tabular_policy(os_game)
    assert dos.exploitability(os_game, uniform) == pytest.approx(
        solver.exploitability(game, np.full(game.shape, -1)), abs=1e-12)
    c = compare.compare(game, sol, policy)
    assert c.metrics["agreement_all"] == 1.0 and c.best_response.first == pytest.approx(sol.p00)


def test_an_openspiel_policy_with_missing_states_plays_them_uniformly():
    game = Game(3, 6, 7, 2)
    os_game = dos.load(game)
    theirs = policy_lib.TabularPolicy(os_game, to_string=str)  # reachable states only
    dist = dos.policy_table(os_game, theirs, seat=0)
    assert np.isnan(dist[0, 1]).all()  # player 0 never moves at <0, 1>: no data
    assert solver.exploitability(game, dist) == pytest.approx(
        solver.exploitability(game, np.full(game.shape, -1)), abs=1e-12)


def test_a_symmetric_openspiel_policy_goes_straight_into_compare():
    game = Game(3, 6, 7, 2)
    sol = solver.solve(game)
    c = compare.compare(game, sol, dos.openspiel_policy(dos.load(game), sol.best))
    # openspiel_policy answers in every decision state, both seats: a lossless round trip
    assert c.states_with_data == game.states
    assert c.metrics["agreement_all"] == 1.0
    assert c.metrics["exploitability"] == pytest.approx(0, abs=1e-12)
    # OpenSpiel's own TabularPolicy (keyed by history walk) knows only the reachable states
    theirs = policy_lib.TabularPolicy(dos.load(game), to_string=str)
    partial = compare.compare(game, sol, theirs)
    assert partial.states_with_data == game.reachable().sum() < game.states
    with pytest.raises(compare.CompareError, match="is for"):
        compare.compare(Game(3, 6, 8, 2), None, dos.openspiel_policy(dos.load(game), sol.best))


def test_state_at_and_bad_arguments():
    os_game = dos.load(Game(3, 6, 7, 2))
    state = dos.state_at(os_game, 4, 1, player=1)
    assert state.scores == [1, 4] and state.current_player() == 1
    with pytest.raises(DicejackError, match="no decision state"):
        dos.state_at(os_game, 6, 0)
    with pytest.raises(DicejackError, match="not a python_dicejack game"):
        dos.game_of(pyspiel.load_game("tic_tac_toe"))


def test_without_openspiel_the_import_is_one_line_naming_the_extra():
    code = ("import sys; sys.modules['pyspiel'] = None\n"
            "try:\n    import dicejack.envs.openspiel\n"
            "except ImportError as e:\n    print(e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == ("dicejack.envs.openspiel needs OpenSpiel, which dicejack does not "
                           "install: "
                           "pip install '.[openspiel]' in a clone of dicejack (or pip install "
                           "open-spiel cvxpy)")
