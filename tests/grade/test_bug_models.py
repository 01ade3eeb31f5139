"""Tests of dicejack.grade.evidence.bug_models: every model has runs of the expected shape, the
variant learner without a bug learns like the handout, the lookups name every model and the
print-only slips, and the runs are kept in memory and cached on disk (a damaged cache is
recomputed)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dicejack import grade
from dicejack.grade.evidence import bug_models
from dicejack.grade.evidence.print_model import PRINT_RULES, rule_tables

from .support import GAME, GAMES, M

PARAMS = (GAME.n_sides, GAME.low, GAME.high, GAME.n_dice)


def test_every_model_has_runs_and_the_faithful_variant_learns_like_the_handout(refs):
    runs = bug_models.model_runs(refs)
    assert set(runs) == {m.name for m in bug_models.MODELS}
    for model in bug_models.MODELS:
        fam = runs[model.name]
        n = refs.best.shape[0] if model.from_references else bug_models.MODEL_RUNS
        assert fam.values.shape == (n, *GAME.shape) and fam.sets.shape[-1] == GAME.n_dice + 1
        assert np.all((fam.values >= 0) & (fam.values <= 1))
    # the variant learner without a bug is the handout's algorithm: its tables pass
    rng = np.random.default_rng(3)
    win, lose, _, _ = bug_models.bug_learn(*PARAMS, M, GAMES, 0, rng)
    ratio = np.where(win + lose > 0, win / np.maximum(win + lose, 1), -1.0)[..., 1:]
    best = np.where(ratio.max(axis=-1) >= 0, ratio.argmax(axis=-1) + 1, 0)
    prob = np.where(best > 0, ratio.max(axis=-1), -1.0)
    g = grade.grade_tables(refs, best, prob)
    assert g.verdict == "pass", (g.flags, g.consistency_p)
    # greedy play visits far fewer (state, J) than the handout's
    greedy = runs["greedy"].sets.any(axis=-1).sum()
    assert runs["m-tenfold"].sets.any(axis=-1).sum() > greedy


def test_the_variant_learner_is_seeded():
    one = bug_models.bug_learn(*PARAMS, M, 500, 2, np.random.default_rng(11))
    two = bug_models.bug_learn(*PARAMS, M, 500, 2, np.random.default_rng(11))
    other = bug_models.bug_learn(*PARAMS, M, 500, 2, np.random.default_rng(12))
    assert all(np.array_equal(a, b) for a, b in zip(one, two, strict=True))
    assert not np.array_equal(one[0], other[0])


def test_the_lookups_name_every_model_and_the_print_only_slips(refs):
    assert list(bug_models.BY_NAME) == [m.name for m in bug_models.MODELS]
    assert all(bug_models.BY_NAME[m.name] is m for m in bug_models.MODELS)
    with pytest.raises(TypeError):
        bug_models.BY_NAME["greedy"] = bug_models.MODELS[0]  # type: ignore[index]
    assert bug_models.SLIPS == frozenset(PRINT_RULES)
    # a slip's runs are the reference runs' own counts printed by its rule: no runs of its own
    runs = bug_models.model_runs(refs)
    for name in bug_models.SLIPS:
        sets, values = rule_tables(refs.win, refs.lose, name)
        assert np.array_equal(runs[name].values, values) and np.array_equal(runs[name].sets, sets)
        assert np.array_equal(runs[name].visits, refs.visits)


def test_the_runs_are_kept_in_memory_with_the_calibration(refs):
    assert bug_models.model_runs(refs) is bug_models.model_runs(refs)


def test_the_model_runs_are_cached_on_disk(refs, tmp_path):
    fresh = grade.References(refs.config, *(getattr(refs, n) for n in (
        "best", "probability", "tied", "visits", "metrics", "win", "lose", "held_best",
        "held_probability", "probe_best", "probe_probability")))
    runs = bug_models.model_runs(fresh, tmp_path)
    files = list(tmp_path.glob("*-models-v*.npz"))
    assert len(files) == 1
    again = grade.References(refs.config, *(getattr(refs, n) for n in (
        "best", "probability", "tied", "visits", "metrics", "win", "lose", "held_best",
        "held_probability", "probe_best", "probe_probability")))
    loaded = bug_models.model_runs(again, tmp_path)
    for name, fam in runs.items():
        assert np.array_equal(fam.values, loaded[name].values), name
    files[0].write_bytes(b"not a zip")  # a damaged cache is recomputed, never trusted
    third = dataclasses.replace(again)
    assert np.array_equal(bug_models.model_runs(third, tmp_path)["greedy"].values,
                          runs["greedy"].values)
