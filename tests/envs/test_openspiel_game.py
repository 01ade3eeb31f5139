"""The one OpenSpiel game of every game (`dicejack.envs.openspiel.load`, `openspiel_game.py`):
OpenSpiel's own simulation tests pass on a small Pig, Piglet, Peeking Blackjack and the handout's
game (which is python_dicejack, in its own encoding, whichever way it comes), every node is the
enumerated game's, OpenSpiel's exact policy value and value iteration equal dicejack's (rewards
on the way included), games are registered by what they are (never an earlier game under the
same label), and the utility range and length are the game's bounds. (The handout's game's own
checks: test_openspiel.py; plays equal to the earlier code's: test_one_path.py.)"""

from __future__ import annotations

import contextlib
import io
from fractions import Fraction

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import dicejack.envs.openspiel as dos  # noqa: E402
from dicejack.games import HandoutGame, PeekingBlackjack, Pig, Piglet, enumerate_game  # noqa: E402
from dicejack.solver.generic import evaluate_policy, uniform_policy  # noqa: E402


@pytest.mark.parametrize("game", [Pig(goal=10), Piglet(goal=4), HandoutGame(sides=2, low=3,
                                                                            high=4, dice=2),
                                  PeekingBlackjack()])
def test_openspiels_own_simulation_tests_pass(game):
    from open_spiel.python.tests import games_sim_test

    os_game = dos.load(game)
    pyspiel.random_sim_test(os_game, num_sims=10, serialize=True, verbose=False)
    case = games_sim_test.GamesSimTest("test_pig")
    with contextlib.redirect_stdout(io.StringIO()):
        for _ in range(3):
            case.sim_game(os_game)
    if isinstance(game, HandoutGame):  # the handout's game is python_dicejack, its parameters
        assert os_game.get_type().short_name == "python_dicejack"
        assert dos.game_of(os_game) == game.rules and os_game.space is None
        return
    again = pyspiel.load_game(os_game.get_type().short_name)
    assert again.space.n_states == enumerate_game(game).n_states


def test_nodes_are_the_protocols_moves_and_outcomes():
    game = Pig(goal=10)
    os_game = dos.load(game)
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
    policy equal dicejack's exact evaluation (the handout's returns are +1 / -1: 2P - 1)."""
    from open_spiel.python import policy as policy_lib
    from open_spiel.python.algorithms import expected_game_score

    game = HandoutGame(sides=2, low=3, high=4, dice=2)
    os_game = dos.load(game)
    space = enumerate_game(game)
    ours = evaluate_policy(space, uniform_policy(space))[0]
    theirs = expected_game_score.policy_value(os_game.new_initial_state(),
                                              [policy_lib.UniformRandomPolicy(os_game)] * 2)
    assert theirs[0] == pytest.approx(2 * ours - 1, abs=1e-12)
    assert np.isclose(theirs[0], -theirs[1])
    assert dos.load(game.rules).get_type().short_name == os_game.get_type().short_name


# ------------------------------------------------------------------ rewards on the way (issue 45)
def test_openspiels_value_iteration_on_peeking_blackjack_is_the_solvers_exact_value():
    """The peek cost reaches OpenSpiel: its own value_iteration (and expected_game_score) on the
    bridged game equal dicejack's exact value, 41/6 (the free-peek game is worth 43/6)."""
    from open_spiel.python import policy as policy_lib
    from open_spiel.python.algorithms import expected_game_score, value_iteration

    from dicejack.solver.generic import solve_game

    game = PeekingBlackjack()
    exact = solve_game(game, exact=True).value_exact
    assert exact == Fraction(41, 6)
    os_game = dos.load(game)
    values = value_iteration.value_iteration(os_game, depth_limit=-1, threshold=1e-13)
    start = os_game.new_initial_state()
    assert values[str(start)] == pytest.approx(float(exact), abs=1e-9)
    # OpenSpiel's exact expected return of a policy equals dicejack's evaluation of it
    space = enumerate_game(game)
    ours = evaluate_policy(space, uniform_policy(space))[0]
    theirs = expected_game_score.policy_value(start, [policy_lib.UniformRandomPolicy(os_game)])
    assert theirs[0] == pytest.approx(ours, abs=1e-12)


def test_rewards_are_paid_per_move_and_sum_to_the_returns():

    os_game = dos.load(PeekingBlackjack())
    peek, take, quit_ = (os_game.action_labels.index(a) for a in ("Peek", "Take", "Quit"))
    state = os_game.new_initial_state()
    assert state.rewards() == [0.0] and state.returns() == [0.0]
    state.apply_action(peek)  # a chance node: which card is on top
    assert state.is_chance_node() and state.rewards() == [-1.0]
    state.apply_action(0)  # the top card is a 1
    assert state.rewards() == [-1.0] and state.returns() == [-1.0]  # the move's reward
    state.apply_action(take)  # a sure outcome
    assert state.rewards() == [0.0] and state.returns() == [-1.0]
    state.apply_action(quit_)  # the hand (1) is paid
    assert state.is_terminal()
    assert state.rewards() == [1.0] and state.returns() == [0.0]
    again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(os_game,
                                                                                state))[1]
    assert again.returns() == [0.0] and str(again) == str(state)


# ------------------------------------------------ games keyed by identity and parameters
class Countdown:
    """A user's game with no params() and no dataclass: n sure ticks, then n is paid."""

    name = "countdown"
    num_players = 1

    def __init__(self, n):
        self.n = n

    def initial_state(self):
        return self.n

    def is_terminal(self, state):
        return state == 0

    def payoff(self, state):
        return self.n

    def player(self, state):
        return 0

    def actions(self, state):
        return ["tick"]

    def outcomes(self, state, action):
        return [(state - 1, 1)]


def test_a_game_without_params_is_never_an_earlier_game():
    from open_spiel.python.algorithms import value_iteration

    small, large = Countdown(3), Countdown(50)
    first, second = dos.load(small), dos.load(large)
    assert first.space.game is small and second.space.game is large
    assert first.get_type().short_name != second.get_type().short_name
    assert second.space.n_states == 51 and second.max_game_length() == 50
    assert second.max_utility() == 50.0
    values = value_iteration.value_iteration(second, depth_limit=-1, threshold=1e-12)
    assert values[str(second.new_initial_state())] == 50.0
    # the same object again, or an equal one, is the game already registered
    assert dos.load(large).get_type().short_name == second.get_type().short_name
    twin = Countdown(50)
    assert dos.load(twin).get_type().short_name == second.get_type().short_name
    assert dos.load(Pig(goal=10)).get_type().short_name == \
        dos.load(Pig(goal=10)).get_type().short_name == \
        "python_dicejack_pig_goal_10_die_6"


def test_a_game_whose_params_leave_something_out_is_never_an_earlier_game():
    class Partial(Countdown):
        name = "partial"

        def params(self):  # n left out: the label alone cannot tell two apart
            return {}

    a, b = dos.load(Partial(4)), dos.load(Partial(7))
    assert (a.space.game.n, b.space.game.n) == (4, 7)
    assert pyspiel.load_game(b.get_type().short_name).space.game.n == 7


# ---------------------------------------------------------------------- bounds, declared once
def test_openspiels_bounds_are_the_games_bounds():
    from dicejack.games.bounds import MOVES_CAP, game_bounds

    os_game = dos.load(PeekingBlackjack())
    bounds = game_bounds(os_game.space)
    assert (bounds.low, bounds.high, bounds.longest) == (-4.0, 10.0, 8)
    assert (os_game.min_utility(), os_game.max_utility()) == (-4.0, 10.0)
    assert os_game.max_game_length() == 8
    pig = dos.load(Pig(goal=10))  # cycles: no longest play, the nominal cap
    assert game_bounds(pig.space).longest is None and pig.max_game_length() == MOVES_CAP
    assert (pig.min_utility(), pig.max_utility()) == (-1.0, 1.0)
    assert dos.PROTOCOL_MAX_GAME_LENGTH == MOVES_CAP


def test_one_game_class_and_one_state_class_play_every_game():
    """python_dicejack and every protocol game are the one DicejackGame (a registered subclass
    names each protocol game's type) with the one DicejackState; protocol_game is load."""
    from dicejack.envs.openspiel_game import DicejackGame, DicejackState

    assert dos.protocol_game is dos.load
    for game in (HandoutGame(), Pig(goal=10), PeekingBlackjack()):
        os_game = dos.load(game)
        assert isinstance(os_game, DicejackGame)
        assert isinstance(os_game.new_initial_state(), DicejackState)
