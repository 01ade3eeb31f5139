"""Q-learning with features (dicejack.learners.feature_q): the contract, the assignment's tie
rule and step counter, its blackjack features, the rewards it sums, and what it refuses."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from dicejack.games import PeekingBlackjack, Piglet
from dicejack.learners import LearnerError, Session, check_learner, learn
from dicejack.learners.feature_q import FeatureQLearning, blackjack_features


@dataclass(frozen=True)
class Choice:
    """One decision: "a" pays 1, "b" pays 0."""

    name = "choice"
    num_players = 1

    def initial_state(self):
        return "start"

    def is_terminal(self, state):
        return state != "start"

    def payoff(self, state):
        return 1 if state == "got-a" else 0

    def player(self, state):
        return 0

    def actions(self, state):
        return ("a", "b")

    def outcomes(self, state, action):
        return [("got-" + action, 1)]


@pytest.mark.parametrize("features", ["identity", "blackjack"])
def test_contract_on_the_small_mdp(features):
    check_learner(FeatureQLearning(PeekingBlackjack(), 7, features=features), games=150)


def test_ties_go_to_the_largest_action_and_the_end_state_counts_a_step():
    learner = FeatureQLearning(Choice(), 1, exploration=0.0)
    learner.play(3)
    # Q(a) = Q(b) = 0 at first: max((Q, action)) plays "b", whose target is 0, forever
    assert learner.counters.tolist() == [3, 3, 6]  # games, moves, steps (each end counts)
    assert learner.total_reward == 0.0
    assert learner.tables().best[0] == 1  # the row of "b"
    explorer = FeatureQLearning(Choice(), 1, exploration=1.0)
    explorer.play(200)
    # exploring always: about half the trials play "a" and win 1; Q(a) moves to 1 at once
    # (eta = 1 / sqrt(1) on the first step of a trial that plays it... or less later, but its
    # target is always 1: Q(a) stays in (0, 1]) and Q(b) at 0
    assert 60 < explorer.total_reward < 140
    assert explorer.tables().best[0] == 0
    assert 0 < explorer.tables().value[0] <= 1


def test_total_reward_does_not_depend_on_chunks():
    game = PeekingBlackjack((1, 5), 2, 10, 1)
    straight = learn(game, FeatureQLearning, 300, seed=3, features="blackjack")
    session = Session(FeatureQLearning(game, 3, features="blackjack"))
    for step in (1, 150, 149):
        session.play(step)
    assert session.learner.total_reward == straight.state["total_reward"]
    assert straight.state["total_reward"] != 0


def test_blackjack_features():
    f = blackjack_features((6, None, (1, 0, 2)), "Take")
    assert f == [(("total", 6, "Take"), 1.0), (("presence", (1, 0, 1), "Take"), 1.0),
                 (("count", 0, 1, "Take"), 1.0), (("count", 1, 0, "Take"), 1.0),
                 (("count", 2, 2, "Take"), 1.0)]


def test_peek_costs_are_learned():
    # a peek cost of 100: any trial that peeks loses, so the greedy policy never peeks
    run = learn(PeekingBlackjack((1, 5), 2, 10, 100), FeatureQLearning, 3000, seed=2)
    space = run.learner_type(PeekingBlackjack((1, 5), 2, 10, 100), 2).space
    played = [space.actions[r] for r in run.final.best[run.final.visits > 0]]
    assert "Peek" not in played
    assert np.all(run.final.best[~space.terminal] >= 0)


def test_refuses_two_player_games_and_foreign_features():
    with pytest.raises(LearnerError, match="one-player"):
        FeatureQLearning(Piglet(goal=2), 1)
    with pytest.raises(LearnerError, match="features"):
        FeatureQLearning(Choice(), 1, features="blackjack")
    with pytest.raises(LearnerError, match="features"):
        FeatureQLearning(Choice(), 1, features="tiles")
