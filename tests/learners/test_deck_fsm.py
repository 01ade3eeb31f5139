"""Evolved FSM players of the deck game (dicejack.learners.deck_fsm): the compiled run equals
the plain one, a 1-state machine's fitness is the observation-policy evaluator's value, the
operators do what the module says, and evolution improves the exact fitness at a small deck
(seeded values measured once and held to 1e-12); DeckFSM, the same evolution on the harness,
keeps the learner contract and spends its budget in whole scoring rounds."""

from __future__ import annotations

import numpy as np
import pytest

from dicejack.games.deck_dollar import DeckDollar
from dicejack.learners import check_learner, learn
from dicejack.learners.checks import LearnerError
from dicejack.learners.deck_fsm import (
    DeckFSM,
    EvolutionConfig,
    crossover,
    evolve_fsm,
    mutate,
    random_fsm,
)
from dicejack.solver.deck_evaluation import evaluate_deck_policy
from dicejack.solver.deck_fsm_evaluation import evaluate_fsm

SMALL = DeckDollar((4, 6, 4), 3, passing=False)


def same_runs(one, two):
    assert len(one.checkpoints) == len(two.checkpoints)
    for a, b in zip(one.checkpoints, two.checkpoints, strict=True):
        assert (a.generation, a.evaluations, a.games) == (b.generation, b.evaluations, b.games)
        assert a.fitness == pytest.approx(b.fitness, abs=1e-12)
        assert np.array_equal(a.fsm.actions, b.fsm.actions)
        assert np.array_equal(a.fsm.transitions, b.fsm.transitions)
        assert a.fsm.initial == b.fsm.initial


@pytest.mark.parametrize("fitness", ["exact", "simulated"])
def test_compiled_equals_plain(fitness):
    game = DeckDollar((2, 3, 3), 3)
    config = EvolutionConfig(n_states=3, population=8, fitness=fitness, games=50)
    same_runs(evolve_fsm(game, 3, 4, config), evolve_fsm(game, 3, 4, config, compiled=False))


def test_evolution_improves_the_exact_fitness():
    run = evolve_fsm(SMALL, 20, 1, checkpoints=[0, 10, 20])
    assert run.exact
    got = [c.fitness for c in run.checkpoints]
    # measured once (8 states, population 36, seed 1); the fitness is exact, so the best's
    # evaluation is it
    assert got == pytest.approx([0.0806772886137967, 0.24202047217920214, 0.32456326742041025],
                                abs=1e-12)
    assert [c.evaluations for c in run.checkpoints] == [36, 36 + 180, 36 + 360]
    assert evaluate_fsm(SMALL, run.best.fsm).expected == pytest.approx(got[-1], abs=1e-12)
    assert all(c.games == 0 for c in run.checkpoints)


def test_a_one_state_machine_is_scored_as_its_observation_policy():
    run = evolve_fsm(SMALL, 5, 3, EvolutionConfig(n_states=1, population=12))
    for c in run.checkpoints:
        assert c.fsm.n_states == 1
        want = evaluate_deck_policy(SMALL, c.fsm.actions[0]).expected
        assert c.fitness == pytest.approx(want, abs=1e-12)
    assert run.best.fitness > run.checkpoints[0].fitness


def test_simulated_fitness_counts_its_games_and_is_seeded():
    config = EvolutionConfig(n_states=4, population=12, fitness="simulated", games=300)
    run = evolve_fsm(SMALL, 3, 9, config)
    assert not run.exact
    assert [c.evaluations for c in run.checkpoints] == [12, 24, 36, 48]
    assert [c.games for c in run.checkpoints] == [3600, 7200, 10800, 14400]
    same_runs(run, evolve_fsm(SMALL, 3, 9, config))
    other = evolve_fsm(SMALL, 3, 10, config)
    assert [c.fitness for c in other.checkpoints] != [c.fitness for c in run.checkpoints]
    # auto: exact at small decks, simulated at the study's
    assert EvolutionConfig().exact_for(SMALL) and not EvolutionConfig().exact_for(DeckDollar())


def test_mutation_and_crossover():
    rng = np.random.default_rng(0)
    config = EvolutionConfig(n_states=5, max_mutations=3, initial_rate=0.0)
    one, two = random_fsm(5, rng), random_fsm(5, rng)
    for _ in range(50):
        child = mutate(one, config, rng)
        changed = ((child.actions != one.actions).sum()
                   + (child.transitions != one.transitions).sum())
        assert changed <= 3 and child.initial == one.initial
    for seed in range(20):
        a, b = crossover(one, two, np.random.default_rng(seed))
        lo, hi = sorted(np.random.default_rng(seed).integers(0, 5 * 40 + 1, size=2))
        # genes (an action with its next state) lo..hi-1, state-major, are swapped
        inside = np.zeros(5 * 40, dtype=bool)
        inside[lo:hi] = True
        inside = inside.reshape(5, 40)
        for child, mine, theirs in ((a, one, two), (b, two, one)):
            assert np.array_equal(child.actions, np.where(inside, theirs.actions, mine.actions))
            assert np.array_equal(child.transitions,
                                  np.where(inside, theirs.transitions, mine.transitions))
            assert child.initial == mine.initial


def test_bad_parameters_are_refused():
    with pytest.raises(LearnerError, match="multiple of 4"):
        EvolutionConfig(population=10)
    with pytest.raises(LearnerError, match="fitness"):
        EvolutionConfig(fitness="noisy")
    with pytest.raises(LearnerError, match="action_rate"):
        EvolutionConfig(action_rate=1.5)
    with pytest.raises(LearnerError, match="past the last"):
        evolve_fsm(SMALL, 2, 1, checkpoints=[3])
    with pytest.raises(LearnerError, match="seed"):
        evolve_fsm(SMALL, 2, -1)


# ------------------------------------------------------------------ DeckFSM, the harness learner
TINY = dict(n_states=3, population=8, machine_games=10)  # a scoring round: 80 games


def test_learner_contract_on_the_harness():
    check_learner(DeckFSM(SMALL, 3, **TINY), games=500)
    check_learner(DeckFSM(DeckDollar(passing=True), 4, n_states=2, population=4,
                          machine_games=5), games=90)
    run = learn(SMALL, DeckFSM, 1000, seed=5, checkpoints=[10, 100], **TINY)
    assert sorted(run.snapshots) == [10, 100] and run.games == 1000
    assert [run.snapshots[10].rounds, run.snapshots[100].rounds, run.final.rounds] == [0, 1, 12]
    assert run.final.simulated == 960


def test_the_budget_runs_whole_scoring_rounds_as_evolve_fsm():
    """A budget of (g + 1) x population x machine_games games is evolve_fsm's population after
    g generations (simulated fitness, same seed); less than a round waits."""
    learner = DeckFSM(SMALL, 9, **TINY)
    first = learner.policy()
    learner.play(79)
    assert learner.tables().rounds == 0 and learner.moves == 0 and learner.played == 79
    assert learner.policy() is first and np.isnan(learner.tables().fitness).all()
    learner.play(1 + 4 * 80 + 79)
    t = learner.tables()
    assert (t.rounds, t.simulated, learner.played, learner.moves) == (5, 400, 479,
                                                                      400 * SMALL.rounds)
    config = EvolutionConfig(n_states=3, population=8, fitness="simulated", games=10)
    want = evolve_fsm(SMALL, 4, 9, config).best
    assert np.array_equal(t.best.actions, want.fsm.actions)
    assert np.array_equal(t.best.transitions, want.fsm.transitions)
    assert t.best.initial == want.fsm.initial and t.fitness.max() == want.fitness


def test_learner_compiled_equals_plain_and_restores():
    game = DeckDollar((6, 10, 6), 5, passing=True)
    fast, slow = DeckFSM(game, 7, **TINY), DeckFSM(game, 7, engine="python", **TINY)
    fast.play(400)
    for chunk in (1, 150, 249):
        slow.play(chunk)
    assert fast.tables().equals(slow.tables()) and fast.tables().rounds == 5
    again = DeckFSM.restore(game, 7, fast.params, fast.state())
    again.play(300)
    fast.play(300)
    assert again.tables().equals(fast.tables()) and again.moves == fast.moves
    state = fast.state()
    state["rounds"] += 1
    with pytest.raises(LearnerError, match="scoring rounds"):
        DeckFSM.restore(game, 7, fast.params, state)
    state = fast.state()
    state["transitions"][0, 0, 0] = 3
    with pytest.raises(LearnerError, match="machines are invalid"):
        DeckFSM.restore(game, 7, fast.params, state)


def test_learner_rejects_other_games_and_parameters():
    with pytest.raises(LearnerError, match="DeckDollar"):
        DeckFSM("blackjack", 1)
    with pytest.raises(LearnerError, match="multiple of 4"):
        DeckFSM(SMALL, 1, population=10)
    with pytest.raises(LearnerError, match="crossover"):
        DeckFSM(SMALL, 1, crossover="sometimes")
