"""The deck divide-the-dollar study's Monte Carlo agent (learners/deck_mc.py): the compiled loop
equals its plain reference, the harness's contract holds, and each of the quoted code's oddities
does what its docstring says (and its switch undoes it)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dicejack.games.deck_dollar import DeckDollar, observation, play_position
from dicejack.learners import LearnerError, check_learner, learn
from dicejack.learners.deck_mc import PLAY_RULE, DeckMC
from dicejack.solver.deck_evaluation import evaluate_deck_policy

SMALL = DeckDollar((6, 10, 6), 5, passing=True)
VARIANTS = [dict(zip(("explore", "credit", "visits"), v, strict=True))
            for v in itertools.product(("overwrite", "act"), ("policy", "taken"),
                                       ("every", "first"))]


@pytest.mark.parametrize("passing", [True, False])
@pytest.mark.parametrize("params", VARIANTS[::3] + VARIANTS[1:2])
def test_compiled_equals_plain_reference(passing, params):
    game = DeckDollar((6, 10, 6), 5, passing=passing)
    fast, slow = DeckMC(game, 7, **params), DeckMC(game, 7, engine="python", **params)
    fast.play(400)
    for chunk in (1, 150, 249):
        slow.play(chunk)
    assert fast.tables().equals(slow.tables())
    assert fast.rng.random() == slow.rng.random()
    assert fast.moves == slow.moves == 400 * game.rounds
    assert fast.tables().outcomes.sum() == 400


def test_contract_on_the_harness():
    check_learner(DeckMC(SMALL, 3), games=120)
    check_learner(DeckMC(DeckDollar(passing=False), 4, **DeckMC.INTENT), games=60)
    run = learn(SMALL, DeckMC, 300, seed=5, checkpoints=[10, 100])
    assert sorted(run.snapshots) == [10, 100] and run.games == 300
    assert run.snapshots[10].outcomes.sum() == 10
    assert run.final.counts.sum() == 300 * SMALL.rounds  # every visit credited once


def test_rejects_other_games_and_parameters():
    with pytest.raises(LearnerError, match="DeckDollar"):
        DeckMC("blackjack", 1)
    with pytest.raises(LearnerError, match="credit"):
        DeckMC(SMALL, 1, credit="sometimes")


def test_play_rules_are_the_games():
    """The learner's copy of play_action equals games.deck_dollar's on every sorted hand of
    1..7 cards, every showing and action, both rule sets (the observation too)."""
    half = SMALL.half
    for n in range(1, 8):
        for hand in itertools.combinations_with_replacement(range(3), n):
            for passing in (True, False):
                game = DeckDollar((6, 10, 6), 5, passing=passing)
                for showing in range(4):
                    for action in range(3):
                        learner = DeckMC(game, 0, explore_rounds=0)
                        learner.policy_pi[:] = action
                        if n > half:
                            obs = observation(list(hand), showing, game)
                            assert learner.choose(hand, showing, 5) == action == \
                                learner.policy_pi[obs]
                        assert play_position(list(hand), showing, action, game) == \
                            _position(hand, showing, action, half, passing)


def _position(hand, showing, action, half, passing):
    return PLAY_RULE(np.array(hand), len(hand), showing, action, half, passing)


def test_credit_goes_to_the_policys_action_at_update_time():
    """The quoted code credits policy_pi[obs] when updating, not the action played: two turns
    at observation 5 that both played action 2 and lost credit actions 2 then 0 (the argmax
    after the first update), leaving the policy at 1; credit="taken" credits 2 twice."""
    code = DeckMC(SMALL, 0)
    code.policy_pi[5] = 2
    code.credit([5, 5], [2, 2], -1)
    assert code.counts[5].tolist() == [1, 0, 1] and code.sums[5].tolist() == [-1, 0, -1]
    assert code.q[5].tolist() == [-1.0, 0.0, -1.0] and code.policy_pi[5] == 1
    intent = DeckMC(SMALL, 0, credit="taken")
    intent.policy_pi[5] = 2
    intent.credit([5, 5], [2, 2], -1)
    assert intent.counts[5].tolist() == [0, 0, 2] and intent.policy_pi[5] == 0
    first = DeckMC(SMALL, 0, visits="first")
    first.policy_pi[5] = 2
    first.credit([5, 5, 9], [2, 2, 1], 1)
    assert first.counts[5].tolist() == [0, 0, 1] and first.counts[9].sum() == 1
    assert first.counts.sum() == 2 and first.policy_pi[5] == 2


def test_ties_go_to_the_first_action_as_numpy_argmax():
    learner = DeckMC(SMALL, 0, credit="taken")
    learner.credit([3], [2], 0)  # Q[3] = 0, 0, 0: argmax is action 0
    assert learner.policy_pi[3] == 0
    learner.credit([3], [1], 1)
    assert learner.policy_pi[3] == 1 and learner.q[3].tolist() == [0.0, 1.0, 0.0]


def test_an_exploring_start_overwrites_the_policy_unless_told_not_to():
    hand = (0, 0, 1, 2, 2)  # the study's example hand: observation [3, 0, 1, 2]
    obs = observation(list(hand), 3, SMALL)
    for explore, kept in (("overwrite", False), ("act", True)):
        learner = DeckMC(SMALL, 11, explore=explore)
        learner.policy_pi[obs] = 1
        draws = np.random.default_rng(11)
        draws.integers(3, size=40)  # the initial policy's draws
        actions = [learner.choose(hand, 3, r) for r in (0, 1)]
        assert actions == [int(draws.random() * 3.0) for _ in range(2)]
        assert learner.policy_pi[obs] == (1 if kept else actions[-1])
        assert learner.choose(hand, 3, 2) == learner.policy_pi[obs]  # round 2: the policy's


def test_learning_beats_the_uniform_opponent_exactly():
    """At the small deck (the code's passing follower), 200,000 games of the quoted agent give
    a greedy policy whose exact value is far above uniform play's."""
    learner = DeckMC(SMALL, 1)
    before = evaluate_deck_policy(SMALL, learner.policy()).expected
    learner.play(200_000)
    after = evaluate_deck_policy(SMALL, learner.policy()).expected
    uniform = evaluate_deck_policy(SMALL, np.full((40, 3), 1 / 3)).expected
    assert uniform == pytest.approx(-0.0544375232053807, abs=1e-12)
    assert after > 0.3 > before
    wins, draws, losses = learner.tables().outcomes
    assert wins + draws + losses == 200_000 and wins > losses
