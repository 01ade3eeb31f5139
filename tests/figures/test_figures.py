"""Figures: the convergence report's drawings and the per-submission heatmaps of grading."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from dicejack import compare, figures
from dicejack.compare.metrics import STATE_CLASSES, state_classes
from dicejack.figures.canvas import FIGURE_FORMATS, REPORT_DPI
from dicejack.figures.convergence import CURVE_FIGURES, curves_csv, plot_optimal, seeds_figure
from dicejack.games.handout_rules import Game
from dicejack.learners import handout
from tests.games import TINY

GAMES = (10, 100, 1000, 10_000)


def pixels(path) -> np.ndarray:
    return np.asarray(Image.open(path))


def series(label: str, scale: float) -> figures.Series:
    """A curve for every metric: mean rising with the game count, a band of +-0.05 around it
    (undefined at the first count, as with fewer than two seeds)."""
    mean = scale * np.linspace(0.2, 0.8, len(GAMES))
    lo, hi = mean - 0.05, mean + 0.05
    lo[0] = hi[0] = np.nan
    return figures.Series(label, {name: (mean, lo, hi) for name in compare.METRIC_NAMES})


def labelled_lines(ax) -> list[str]:
    """Labels of the curves drawn on an axes (matplotlib names helper lines '_child...')."""
    return [line.get_label() for line in ax.get_lines() if not line.get_label().startswith("_")]


def test_importing_figures_does_not_load_matplotlib():
    code = "import sys, dicejack.figures; print('matplotlib' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False"


def test_drawing_leaves_matplotlibs_global_state_alone(tmp_path):
    """No pyplot, no backend switch, rcParams as the user set them: a notebook's plots are
    untouched by a report drawn in the same process."""
    code = f"""
import sys, matplotlib
matplotlib.rcParams["lines.linewidth"] = 7.0
backend = dict.__getitem__(matplotlib.rcParams, "backend")  # raw: get_backend() loads pyplot
from pathlib import Path
from dicejack import compare
from dicejack.figures import convergence
from dicejack.games.handout_rules import Game
convergence.plot_optimal(compare.truth(Game(3, 6, 7, 2)), Path({str(tmp_path / 'o.png')!r}))
print('matplotlib.pyplot' in sys.modules,
      dict.__getitem__(matplotlib.rcParams, "backend") == backend,
      matplotlib.rcParams["lines.linewidth"])
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == ["False", "True", "7.0"]
    assert (tmp_path / "o.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_pngs_depend_only_on_the_picture(tmp_path):
    """Same content, same bytes: no matplotlib version in the metadata, and the user's style
    does not leak into the report's pictures."""
    import matplotlib

    t = compare.truth(TINY)
    plot_optimal(t, tmp_path / "a.png")
    with matplotlib.rc_context({"lines.linewidth": 9.0, "font.size": 20,
                                "axes.facecolor": "red", "xtick.major.size": 12}):
        plot_optimal(t, tmp_path / "b.png")
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()
    info = Image.open(tmp_path / "a.png").info
    assert "Software" not in info and not any("matplotlib" in str(v).lower()
                                              for v in info.values())


def test_curves_figure_has_one_curve_and_band_per_series_on_every_panel():
    panels = CURVE_FIGURES[2][2]  # regret: three panels, reference lines
    fig = figures.curves_figure(GAMES, [series("M = 10", 1.0), series("M = 100", 0.5)], panels,
                                suptitle="Cost of the learned policy")
    axes = fig.axes
    assert [ax.get_title() for ax in axes] == [p.title for p in panels]
    assert [ax.get_ylabel() for ax in axes] == [p.ylabel for p in panels]
    assert {ax.get_xlabel() for ax in axes} == {"games played (NGAMES)"}
    assert fig.get_suptitle() == "Cost of the learned policy"
    for ax, panel in zip(axes, panels, strict=True):
        assert labelled_lines(ax) == ["M = 10", "M = 100"]
        assert ax.get_xscale() == "log" and ax.get_xlim()[0] < 10 < 10_000 < ax.get_xlim()[1]
        curve = next(line for line in ax.get_lines() if line.get_label() == "M = 100")
        np.testing.assert_allclose(curve.get_ydata(), 0.5 * np.linspace(0.2, 0.8, 4))
        bands = [c for c in ax.collections if type(c).__name__ in ("PolyCollection",
                                                                      "FillBetweenPolyCollection")]
        assert len(bands) == 2
        flat = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
        assert [line.get_ydata()[0] for line in flat] == (
            [] if panel.hline is None else [panel.hline])
    legend = axes[0].get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["M = 10", "M = 100"]
    assert all(ax.get_legend() is None for ax in axes[1:])


def test_regret_and_exploitability_panels_span_decades_and_keep_zero():
    # Regret falls from about 0.1 to below 0.001 over a report: on a linear axis the late
    # checkpoints lay flat on 0. A log axis over the data (linear for a third of a decade
    # below the smallest positive mean) shows every decade and still draws a regret of 0.
    panels = CURVE_FIGURES[2][2]
    falling = figures.Series("M = 100", {
        name: (np.array([0.1, 0.01, 0.0007, 0.0]), np.array([0.05, 0.0, 0.0, 0.0]),
               np.array([0.15, 0.02, 0.0015, 0.0]))
        for name in compare.METRIC_NAMES})
    fig = figures.curves_figure(GAMES, [falling], panels)
    scales = {p.metric: ax.get_yscale() for p, ax in zip(panels, fig.axes, strict=True)}
    assert scales == {"regret_decisive": "symlog", "weighted_regret": "symlog",
                      "score_vs_optimal": "linear", "exploitability": "symlog"}
    ax = fig.axes[0]
    linthresh = ax.yaxis.get_transform().linthresh
    assert 0.0007 / 2 < linthresh < 0.0007  # just under the smallest positive mean
    low, high = ax.get_ylim()
    assert low == 0 and 0.15 <= high < 0.3  # 0 is on the plot, and so is the band's top
    # equal steps on screen for each decade above the linear part
    to_screen = ax.transData.transform
    y = [to_screen((GAMES[0], v))[1] for v in (1e-3, 1e-2, 1e-1)]
    assert y[2] - y[1] == pytest.approx(y[1] - y[0], rel=1e-6)
    # 0..linthresh takes a small part of the height; the data spend the rest
    bottom, threshold, top = (to_screen((GAMES[0], v))[1] for v in (0.0, linthresh, high))
    assert (threshold - bottom) / (top - bottom) < 0.15


def test_regret_axes_without_a_zero_start_at_the_data():
    """The regret of a report rarely reaches 0 (the committed report's smallest is 7e-4): then
    the axis is log from just under the data, no height spent on 0..1e-4."""
    panels = CURVE_FIGURES[2][2]
    falling = figures.Series("M = 100", {
        name: (np.array([0.07, 0.01, 0.002, 0.0007]), np.array([0.06, 0.008, 0.001, 0.0005]),
               np.array([0.08, 0.012, 0.003, 0.0009]))
        for name in compare.METRIC_NAMES})
    fig = figures.curves_figure(GAMES, [falling], panels)
    ax = fig.axes[0]
    assert ax.get_yscale() == "log"
    low, high = ax.get_ylim()
    assert 0.0005 / 1.5 < low < 0.0005 and 0.08 < high < 0.08 * 1.5


# ------------------------------------------------------------------------------ for papers
def _report_like_series(zero: bool) -> list[figures.Series]:
    """Two curves of every metric shaped like a report's: falling from 0.1 by a decade per game
    decade (the last 0 with `zero`), a +-40% band."""
    out = []
    for label, scale in (("M = 100", 1.0), ("q-learning alpha=0.1 epsilon_min=0.05", 2.0)):
        mean = scale * np.array([0.1, 0.01, 0.002, 0.0007])
        if zero and scale == 1.0:
            mean[-1] = 0.0
        out.append(figures.Series(label, {n: (mean, mean * 0.6, mean * 1.4)
                                          for n in compare.METRIC_NAMES}))
    return out


def _every_figure() -> list[tuple[str, object]]:
    t = compare.truth(TINY)
    big = compare.truth(Game(n_sides=6, low=30, high=35, n_dice=4))
    runs = [compare.as_learned(TINY, handout.learn(TINY, 10.0, 100, seed=s)) for s in (1, 2, 3)]
    out = []
    for name, _, panels, suptitle in CURVE_FIGURES:
        for zero in (False, True):
            out.append((f"{name}, zero={zero}", figures.curves_figure(
                GAMES, _report_like_series(zero), panels, suptitle=suptitle)))
    many = [figures.Series(f"q-learning alpha={k / 20:g} epsilon_min=0.05", s.bands)
            for k, s in enumerate(_report_like_series(False) * 10)]
    out.append(("regret.png, 20 series: the legend under the panels", figures.curves_figure(
        GAMES, many, CURVE_FIGURES[2][2], suptitle=CURVE_FIGURES[2][3])))
    out.append(("optimal (tiny)", figures.optimal_figure(t)))
    out.append(("optimal (30..35, 4 dice)", figures.optimal_figure(big)))
    out.append(("learned", figures.learned_figure(t, runs[0], "Learned policy, M = 10, seed 1, "
                                                  "10,000,000 games")))
    out.append(("learned, a long title", figures.learned_figure(
        t, runs[0], "Learned policy, q-learning epsilon=0.3 epsilon_min=0.05 "
        "epsilon_decay=0.999 alpha=1/n q_init=0.5, seed 1, 1,000,000 games")))
    out.append(("seeds", seeds_figure(t, runs)))
    return out


@pytest.mark.parametrize("fmt", FIGURE_FORMATS)
def test_every_figure_keeps_its_labels_inside_the_canvas_and_off_other_panels(fmt):
    """Each figure of the report, written in each format: every text (titles, axis labels,
    legends, colour-bar labels) lies inside the canvas, and no y label runs into the panel on
    its left (the regret figure's first y label was cut at the edge, and the exploitability
    label touched the panel before it). Extents from the Agg canvas, at the figure's dpi and at
    72 dpi (the points SVG and PDF are laid out in)."""
    from matplotlib.text import Text

    for name, fig in _every_figure():
        data = figures.canvas.figure_bytes(fig, fmt)
        assert data[:4] in (b"\x89PNG", b"<?xm", b"%PDF"), name
        for dpi in (REPORT_DPI, 72):
            fig.set_dpi(dpi)
            renderer = fig.canvas.get_renderer()
            fig.draw(renderer)
            width, height = fig.canvas.get_width_height()
            texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text()]
            assert len(texts) >= 3, name
            for text in texts:
                box = text.get_window_extent(renderer)
                assert box.x0 >= 0 and box.y0 >= 0, (name, dpi, text.get_text(), box)
                assert box.x1 <= width and box.y1 <= height, (name, dpi, text.get_text(), box)
            panels = [ax for ax in fig.axes if ax.get_title()]
            for ax in panels:
                label = ax.yaxis.label.get_window_extent(renderer)
                for other in panels:
                    if other is not ax:
                        assert not label.overlaps(other.get_window_extent(renderer)), (
                            name, dpi, ax.get_ylabel(), other.get_title())
        fig.set_dpi(REPORT_DPI)


def test_svg_and_pdf_depend_only_on_the_picture():
    import matplotlib

    panels = CURVE_FIGURES[2][2]
    for fmt in ("svg", "pdf"):
        one = figures.canvas.figure_bytes(figures.curves_figure(
            GAMES, _report_like_series(True), panels), fmt)
        two = figures.canvas.figure_bytes(figures.curves_figure(
            GAMES, _report_like_series(True), panels), fmt)
        assert one == two, fmt
        assert matplotlib.__version__.encode() not in one, fmt
        assert b"CreationDate" not in one and b"<dc:date>" not in one, fmt


def test_curves_csv_holds_what_the_figure_draws():
    import csv
    import io

    panels = CURVE_FIGURES[1][2]
    text = curves_csv(GAMES, [series("M = 1", 0.1), series("M = 5", 2.0)], panels)
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["series", "metric", "games", "mean", "low", "high"]
    assert len(rows) == 1 + len(panels) * 2 * len(GAMES)
    first = rows[1:1 + len(GAMES)]
    assert [r[:3] for r in first] == [["M = 1", "rmse_onpath", str(g)] for g in GAMES]
    np.testing.assert_allclose([float(r[3]) for r in first], 0.1 * np.linspace(0.2, 0.8, 4))
    assert first[0][4:] == ["", ""]  # no band at the first count
    assert float(first[1][4]) == 0.0  # 0.04 - 0.05, clipped at 0 as drawn
    assert float(first[1][5]) == pytest.approx(0.1 * 0.4 + 0.05)
    big = [r for r in rows[1:] if r[0] == "M = 5"]
    assert max(float(r[5]) for r in big if r[5]) == 1.0  # bands clipped to [0, 1], as drawn


def test_seeds_figure_averages_the_seeds():
    t = compare.truth(TINY)
    runs = [compare.as_learned(TINY, handout.learn(TINY, 10.0, 100, seed=s)) for s in (1, 2)]
    fig = seeds_figure(t, runs)
    share, p = (ax for ax in fig.axes if ax.get_title())
    assert share.get_title() == "Learned J optimal, share of 2 seeds"
    assert p.get_title() == "Learned estimate, mean over 2 seeds"
    agree = np.mean([state_classes(t, r) == 0 for r in runs], axis=0)
    shown = share.get_images()[0].get_array()
    live = ~(t.lost | ~t.reachable)
    np.testing.assert_allclose(shown[live], agree[live])
    assert shown.mask[~live].all()
    both = runs[0].has_estimate & runs[1].has_estimate
    mean = (runs[0].probability + runs[1].probability) / 2
    np.testing.assert_allclose(p.get_images()[0].get_array()[both], mean[both])
    with pytest.raises(ValueError):
        seeds_figure(t, [])


def test_probability_error_panels_are_log_scaled():
    panels = CURVE_FIGURES[1][2]
    fig = figures.curves_figure(GAMES, [series("M = 1", 0.1)], panels)
    assert [ax.get_yscale() for ax in fig.axes] == ["log", "log"]
    assert fig.get_suptitle() == ""


def test_learned_figure_panels_numbers_and_legend():
    t = compare.truth(TINY)
    learned = compare.as_learned(TINY, handout.learn(TINY, 10.0, 30, seed=2))
    fig = figures.learned_figure(t, learned, "Learned policy, M = 10")
    maps = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in maps] == [
        "Learned policy, M = 10", "Learned estimate of the win probability",
        "Learned vs optimal policy"]
    for ax in maps:
        assert ax.get_xlabel() == "Y (opponent's score)"
        assert ax.get_ylabel() == "X (mover's score)"
        assert ax.get_xlim() == (-0.5, 5.5) and ax.get_ylim() == (5.5, -0.5)  # <0,0> top left
        # tick labels 0..5 on each axis, one glyph outline per label
        glyph_sets = [len(c.get_paths()) for c in ax.collections
                      if type(c).__name__ == "PathCollection"]
        assert glyph_sets.count(TINY.low) >= 2
    # one number per state with data in the policy map
    numbers = [c for c in maps[0].collections if type(c).__name__ == "PathCollection"
               and len(c.get_paths()) not in (TINY.low,)]
    assert len(numbers) == 1 and len(numbers[0].get_paths()) == int(learned.has_data.sum())
    codes = state_classes(t, learned)
    legend = maps[2].get_legend()
    assert [x.get_text() for x in legend.get_texts()] == [
        STATE_CLASSES[c] for c in np.unique(codes)]
    bars = [ax for ax in fig.axes if not ax.get_title()]
    assert len(bars) == 2 and "win probability" in bars[1].get_ylabel()


def test_large_boards_are_not_numbered_and_ticks_step_by_five():
    game = Game(n_sides=6, low=30, high=35, n_dice=4)
    fig = figures.optimal_figure(compare.truth(game))
    policy = fig.axes[0]
    assert policy.get_title() == "Optimal policy: lowest optimal J"
    glyphs = [len(c.get_paths()) for c in policy.collections
              if type(c).__name__ == "PathCollection"]
    assert glyphs == [6, 6]  # 0, 5, ..., 25 on each axis; no cell numbers


def test_submission_heatmaps_draw_the_data_they_are_given(tmp_path):
    t = compare.truth(TINY)
    run = handout.learn(TINY, 10.0, 200, seed=1)
    classes = state_classes(t, compare.as_learned(TINY, run))
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
    for other in ("scores", "classes"):
        b = pixels(tmp_path / f"{other}.png")
        assert b.shape == a.shape and (b != a).any(), other
    # no text of a submission goes into the image: the report around it names it
    assert (tmp_path / "title.png").read_bytes() == (tmp_path / "a.png").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "a.png", "classes.png", "same.png", "scores.png", "title.png"]


def test_plot_figures_draws_every_report_figure(tmp_path):
    t = compare.truth(TINY)
    runs = {m: [compare.as_learned(TINY, handout.learn(TINY, m, 100, seed)) for seed in (3, 4)]
            for m in (1.0, 50.0)}
    learned = [
        figures.LearnedFigure(f"learned_m{m:g}.png", f"Learned policy, M = {m:g}",
                              f"Learned tables (M = {m:g})", runs[m][0],
                              runs=tuple(runs[m]) if m == 1.0 else (),
                              seeds_caption=f"Over seeds (M = {m:g})")
        for m in (1.0, 50.0)
    ]
    figs = figures.plot_figures(tmp_path / "figures", t, GAMES,
                                [series("M = 1", 1.0), series("M = 50", 0.9)], learned,
                                ("pdf", "svg"))
    assert figs == [
        ("Agreement with the optimal policy", "figures/agreement.png"),
        ("Probability error", "figures/probability_error.png"),
        ("Regret and score against the optimal player", "figures/regret.png"),
        ("Optimal policy and P*", "figures/optimal.png"),
        ("Learned tables (M = 1)", "figures/learned_m1.png"),
        ("Over seeds (M = 1)", "figures/learned_m1_seeds.png"),
        ("Learned tables (M = 50)", "figures/learned_m50.png"),
    ]
    stems = [path.removeprefix("figures/").removesuffix(".png") for _, path in figs]
    assert sorted(p.name for p in (tmp_path / "figures").iterdir()) == sorted(
        [f"{s}.{ext}" for s in stems for ext in ("png", "svg", "pdf")]
        + [f"{s}.csv" for s in stems[:3]])
    for stem in stems:
        assert (tmp_path / "figures" / f"{stem}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert (tmp_path / "figures" / f"{stem}.pdf").read_bytes()[:5] == b"%PDF-"
        assert b"<svg" in (tmp_path / "figures" / f"{stem}.svg").read_bytes()[:1000]
    one, other = pixels(tmp_path / "figures/learned_m1.png"), pixels(
        tmp_path / "figures/learned_m50.png")
    assert one.shape == other.shape and (one != other).any()
    with pytest.raises(ValueError, match="unknown figure format 'jpg'"):
        figures.plot_figures(tmp_path / "other", t, GAMES, [series("M = 1", 1.0)], [], ("jpg",))
