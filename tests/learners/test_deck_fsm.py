"""Evolved FSM players of the deck game (dicejack.learners.deck_fsm): the compiled run equals
the plain one, a 1-state machine's fitness is the observation-policy evaluator's value, the
operators do what the module says, and evolution improves the exact fitness at a small deck
(seeded values measured once and held to 1e-12)."""

from __future__ import annotations

import numpy as np
import pytest

from dicejack.games.deck_dollar import DeckDollar
from dicejack.learners.checks import LearnerError
from dicejack.learners.deck_fsm import (
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
