"""report.studies_deck_duel: the CFR learner's exact curves on a small two-player deck, over
seeds, with the exact references beside them (equilibrium value 0, uniform play 184/2835, the
best against uniform play 65/189 at counts 2,3,2, hands of two)."""

from __future__ import annotations

import numpy as np
import pytest

from dicejack.games.deck_dollar import DeckDollar
from dicejack.games.protocol import GameDefinitionError
from dicejack.report.studies_deck_duel import deck_duel_curves


def test_cfr_plus_curves_are_exact_deterministic_and_converge():
    curves = deck_duel_curves(DeckDollar((2, 3, 2), 2), seeds=(1, 2),
                              checkpoints=(100, 10, 1000), variant="cfr+")
    assert curves.iterations == (10, 100, 1000) and curves.histories == 1161
    assert curves.equilibrium_value == 0.0 and curves.decision_keys == 127
    assert abs(curves.uniform_value - 184 / 2835) <= 1e-15
    assert abs(curves.best_vs_uniform - 65 / 189) <= 1e-15
    mean, low, high = curves.exploitability
    assert np.array_equal(curves.per_seed_exploitability[0], curves.per_seed_exploitability[1])
    assert np.array_equal(low, high)  # deterministic: every seed alike
    assert mean[0] > mean[1] > mean[2] and mean[2] < 1e-5
    # an equilibrium here also does nearly the best against uniform play
    assert abs(curves.value_vs_uniform[0][2] - 65 / 189) < 1e-5
    assert [r["iterations"] for r in curves.rows()] == [10, 100, 1000]


def test_outcome_sampling_curves_have_intervals_over_seeds():
    curves = deck_duel_curves(DeckDollar((2, 3, 2), 2), seeds=range(4),
                              checkpoints=(10, 1000), variant="outcome-sampling")
    mean, low, high = curves.exploitability
    assert np.all(low < mean) and np.all(mean < high)
    assert not np.array_equal(curves.per_seed_value[0], curves.per_seed_value[1])
    assert mean[1] < mean[0]
    assert np.all(curves.per_seed_value <= 65 / 189 + 1e-12)  # no policy beats the best response


def test_the_studys_deck_is_refused():
    with pytest.raises(GameDefinitionError, match="more than 1,000,000 histories"):
        deck_duel_curves(DeckDollar(), seeds=(0,), checkpoints=(1,))
