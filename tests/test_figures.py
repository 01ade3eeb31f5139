"""Figures: the convergence report's drawings and the per-submission heatmaps of grading."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from dicejack import compare, figures, learner
from dicejack.game import Game

TINY = Game(n_sides=3, low=6, high=7, n_dice=2)


def pixels(path) -> np.ndarray:
    return np.asarray(Image.open(path))


def test_importing_figures_does_not_load_matplotlib():
    code = "import sys, dicejack.figures; print('matplotlib' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False"


def test_submission_heatmaps_draw_the_data_they_are_given(tmp_path):
    t = compare.truth(TINY)
    run = learner.learn(TINY, 10.0, 200, seed=1)
    classes = compare.state_classes(t, compare.as_learned(TINY, run))
    rng = np.random.default_rng(0)
    scores = rng.normal(size=TINY.shape)
    scores[0, 0] = np.nan
    with figures.SubmissionHeatmaps(TINY) as maps:
        maps.draw(classes, scores, "a.txt: 90.0 / 100, pass", tmp_path / "a.png")
        maps.draw(classes, scores, "a.txt: 90.0 / 100, pass", tmp_path / "same.png")
        maps.draw(classes, -scores, "a.txt: 90.0 / 100, pass", tmp_path / "scores.png")
        maps.draw(np.zeros_like(classes), scores, "a.txt: 90.0 / 100, pass",
                  tmp_path / "classes.png")
        maps.draw(classes, scores, "b.txt: 10.0 / 100, fail", tmp_path / "title.png")
        with pytest.raises(ValueError, match="classes"):
            maps.draw(classes[:2], scores, "bad", tmp_path / "bad.png")
    a = pixels(tmp_path / "a.png")
    assert (tmp_path / "a.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "same.png").read_bytes() == (tmp_path / "a.png").read_bytes()
    for other in ("scores", "classes", "title"):
        b = pixels(tmp_path / f"{other}.png")
        assert b.shape == a.shape and (b != a).any(), other
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "a.png", "classes.png", "same.png", "scores.png", "title.png"]


def test_plot_figures_draws_every_report_figure(tmp_path):
    t = compare.truth(TINY)
    games = (10, 100)

    def metric(m: float, name: str) -> figures.Band:
        mean = np.array([0.4, 0.6]) if m == 1.0 else np.array([0.3, 0.8])
        return mean, mean - 0.1, mean + 0.1

    learned = {m: (seed, compare.as_learned(TINY, learner.learn(TINY, m, 100, seed)))
               for m, seed in ((1.0, 3), (50.0, 4))}
    figs = figures.plot_figures(tmp_path / "figures", t, games, (1.0, 50.0), metric, learned)
    assert [path for _, path in figs] == [
        "figures/agreement.png", "figures/probability_error.png", "figures/regret.png",
        "figures/optimal.png", "figures/learned_m1.png", "figures/learned_m50.png",
    ]
    for _, path in figs:
        assert (tmp_path / path).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    one, other = pixels(tmp_path / "figures/learned_m1.png"), pixels(
        tmp_path / "figures/learned_m50.png")
    assert one.shape == other.shape and (one != other).any()
