"""Protocol games as OpenSpiel games (`dicejack.openspiel.protocol_game`): OpenSpiel's own
simulation tests pass on a small Pig and Piglet, every node is the enumerated game's, and
OpenSpiel's exact policy value equals dicejack's evaluation."""

from __future__ import annotations

import contextlib
import io
from fractions import Fraction

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import dicejack.openspiel as dos  # noqa: E402
from dicejack.games import HandoutGame, Pig, Piglet, enumerate_game  # noqa: E402
from dicejack.solver.generic import evaluate_policy, uniform_policy  # noqa: E402


@pytest.mark.parametrize("game", [Pig(goal=10), Piglet(goal=4), HandoutGame(sides=2, low=3,
                                                                            high=4, dice=2)])
def test_openspiels_own_simulation_tests_pass(game):
    from open_spiel.python.tests import games_sim_test

    os_game = dos.protocol_game(game)
    pyspiel.random_sim_test(os_game, num_sims=10, serialize=True, verbose=False)
    case = games_sim_test.GamesSimTest("test_pig")
    with contextlib.redirect_stdout(io.StringIO()):
        for _ in range(3):
            case.sim_game(os_game)
    again = pyspiel.load_game(os_game.get_type().short_name)
    assert again.space.n_states == enumerate_game(game).n_states


def test_nodes_are_the_protocols_moves_and_outcomes():
    game = Pig(goal=10)
    os_game = dos.protocol_game(game)
    assert os_game.action_labels == ["roll", "hold"]
    state = os_game.new_initial_state()
    assert state.current_player() == 0 and state.legal_actions() == [0]  # hold needs points
    state.apply_action(0)  # roll: a chance node
    assert state.is_chance_node()
    outcomes = dict(state.chance_outcomes())
    want = game.outcomes((0, 0, 0, 0), "roll")
    assert sorted(outcomes.values()) == sorted(float(p) for _, p in want)
    assert sum(outcomes.values()) == pytest.approx(1.0)
    state.apply_action(1)  # the second outcome: a 2 (turn total 2)
    assert str(state) == "(0, 0, 2, 0)" and state.legal_actions() == [0, 1]
    state.apply_action(1)  # hold: a sure outcome, no chance node
    assert str(state) == "(2, 0, 0, 1)" and state.current_player() == 1
    assert Fraction(1, 6) in [p for _, p in want]


def test_openspiels_policy_value_equals_dicejacks_evaluation():
    """An acyclic game (the handout's, small): OpenSpiel's exact expected returns of the uniform
    policy equal dicejack's exact evaluation."""
    from open_spiel.python import policy as policy_lib
    from open_spiel.python.algorithms import expected_game_score

    game = HandoutGame(sides=2, low=3, high=4, dice=2)
    os_game = dos.protocol_game(game)
    space = enumerate_game(game)
    ours = evaluate_policy(space, uniform_policy(space))[0]
    theirs = expected_game_score.policy_value(os_game.new_initial_state(),
                                              [policy_lib.UniformRandomPolicy(os_game)] * 2)
    assert theirs[0] == pytest.approx(ours, abs=1e-12)
    assert np.isclose(theirs[0], -theirs[1])
