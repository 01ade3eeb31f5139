"""Reports comparing learners: series from --learner/--param, several learners in one study,
the games-to-95% and score tables, one curve per series on every figure, and the handout-only
report unchanged."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from dicejack import compare, figures, learners, report
from dicejack.cli import main
from dicejack.compare.metrics import metric_values
from dicejack.compare.truth import truth_for
from dicejack.figures.convergence import CURVE_FIGURES
from dicejack.formats.numbers import stated
from dicejack.learners.catalogue import parameters
from dicejack.report.config import LEARNED_FIGURES_LIMIT
from dicejack.report.contents import metrics_csv, metrics_json, report_markdown
from dicejack.report.drawing import curve_series, learned_figures
from dicejack.report.limits import TIMING_FILE
from dicejack.report.runs import run_one
from dicejack.report.study import games_to_reach
from tests.games import TINY

TINY_ARGS = ["--sides", "3", "--low", "6", "--high", "7", "--dice", "2"]
GAMES = (10, 30, 100)


def spec(name: str, **params) -> report.SeriesSpec:
    return report.SeriesSpec(name, tuple(params.items()))


@pytest.fixture(scope="module")
def study() -> report.Study:
    """handout (M = 10), q-learning at two alphas and ucb on the tiny game, 3 seeds."""
    series = report.series_grid(["handout", "q-learning", "ucb"],
                                {"q-learning.alpha": [0.1, None]}, [10])
    cfg = report.ReportConfig(game=TINY, series=series, games=GAMES, seeds=3, first_seed=4)
    return report.run_study(cfg, workers=1)


# ------------------------------------------------------------------------------ the series
def test_series_grid_scopes_parameters_and_gives_one_series_per_value():
    got = report.series_grid(["handout", "q-learning", "mc-epsilon", "ucb"],
                             {"epsilon_min": [0.05, 0.1], "q-learning.alpha": 0.1, "c": [2]},
                             [10, 100])
    assert [s.label for s in got] == [
        "handout M=10", "handout M=100",
        "q-learning epsilon_min=0.05 alpha=0.1", "q-learning epsilon_min=0.1 alpha=0.1",
        "mc-epsilon epsilon_min=0.05", "mc-epsilon epsilon_min=0.1",
        "ucb c=2",
    ]
    assert got[2].kwargs() == {"epsilon_min": 0.05, "alpha": 0.1}
    assert got[2].all_params() == {"epsilon": 1.0, "epsilon_min": 0.05, "epsilon_decay": 1000.0,
                                   "alpha": 0.1, "q_init": 0.5}
    # two parameters with lists: every combination, the learner's parameter order
    both = report.series_grid(["q-learning"], [("alpha", (0.1, 0.5)), ("epsilon", (0.5, 1))])
    assert [s.label for s in both] == [
        "q-learning epsilon=0.5 alpha=0.1", "q-learning epsilon=0.5 alpha=0.5",
        "q-learning epsilon=1 alpha=0.1", "q-learning epsilon=1 alpha=0.5"]
    # the default: the handout's learner at M = 100, the classic report
    assert report.series_grid() == (report.SeriesSpec.handout(100),)
    assert report.series_grid("Thompson")[0].label == "thompson"
    assert report.series_grid(["q-learning"], {"alpha": None})[0].label == "q-learning alpha=1/n"


@pytest.mark.parametrize("kw, message, named", [
    ({"learners": ["handout", "nope"]}, "unknown learner 'nope'", ()),
    ({"learners": ["ucb", "UCB"]}, "^learners names ucb twice$", ("learners",)),
    ({"learners": []}, "^no learner given", ()),
    ({"learners": ["handout", "ucb"], "params": {"alpha": 0.1}},
     r"^params\['alpha'\]: no learner in learners handout,ucb has a parameter 'alpha' "
     r"\(q-learning has it\)$", ("params", "learners")),
    ({"learners": ["ucb"], "params": {"q-learning.alpha": 0.1}},
     r"^params\['q-learning.alpha'\]: q-learning is not in learners ucb$",
     ("params", "learners")),
    ({"learners": ["ucb"], "params": {"ucb.alpha": 0.1}},
     r"^params\['ucb.alpha'\]: learner ucb has no parameter 'alpha'", ("params",)),
    ({"learners": ["ucb"], "params": {"c": -1}}, r"^params\['c'\]: ucb parameter c must be in",
     ("params",)),
    ({"learners": ["ucb"], "params": {"c": "2"}}, r"^params\['c'\]: ucb parameter c must be a "
     "number", ("params",)),
    ({"learners": ["ucb"], "params": {"c": [1, 1.0]}}, "distinct", ("params",)),
    ({"learners": ["ucb"], "params": {"c": []}}, "give a value", ("params",)),
    ({"learners": ["ucb"], "params": {"c": list(range(201))}}, "201 values; the limit is 200",
     ("params",)),
    ({"learners": ["q-learning"], "params": {"alpha": 0.1, "q-learning.alpha": 0.2}},
     "^q-learning parameter alpha given twice$", ()),
    ({"params": {"m": 5}, "ms": [10]}, r"^handout parameter M \(ms and params m\) given twice$",
     ("ms", "params")),
    ({"learners": ["ucb"], "ms": [10]}, "^ms sets the handout's M, but learners ucb does not "
     "include handout$", ("ms", "learners")),
    ({"ms": ["10"]}, "M must be a number", ()),
    ({"ms": 10}, "^ms must be a sequence of numbers", ("ms",)),
    ({"params": "m=10"}, "^params must be a sequence of", ("params",)),
    ({"params": [("m", 10, 20)]}, "^params must be a mapping", ("params",)),
    ({"learners": ["q-learning"], "params": {"alpha": [i / 100 for i in range(1, 21)],
                                              "epsilon": [i / 20 for i in range(2, 13)]}},
     r"^params and ms ask for 220 series \(q-learning 20 x 11\)", ("params", "ms")),
    ({"learners": ["q-learning"], "params": {"epsilon": 0.05}}, "epsilon_min .* must be <= "
     "epsilon", ()),
])
def test_series_grid_refuses_bad_python_values_naming_the_parameter(kw, message, named):
    with pytest.raises(report.ReportError, match=message) as info:
        report.series_grid(**kw)
    assert info.value.parameters == named and "--" not in str(info.value)


def test_a_config_takes_ms_or_series_and_names_the_comparison():
    classic = report.ReportConfig(game=TINY, ms=(10.0, 100.0))
    assert not classic.comparison and classic.series == (report.SeriesSpec.handout(10),
                                                         report.SeriesSpec.handout(100))
    same = report.ReportConfig(game=TINY, series=report.series_grid(["handout"], ms=[10, 100]))
    assert same == classic and same.command() == classic.command()
    mixed = report.ReportConfig(game=TINY, series=report.series_grid(["handout", "ucb"]))
    assert mixed.comparison and mixed.ms == (100.0,)
    assert report.ReportConfig(game=TINY, series=(spec("ucb"),)).ms == ()
    assert report.ReportConfig(
        game=TINY, series=report.series_grid(["handout"], {"tie_break": "random"})).comparison
    for kw, message in (({"ms": (10.0,), "series": (spec("ucb"),)}, "not both"),
                        ({"series": ()}, "no series"),
                        ({"series": (spec("ucb"), spec("ucb"))}, "distinct: ucb twice"),
                        ({"series": ("ucb",)}, "SeriesSpec")):
        with pytest.raises(report.ReportError, match=message):
            report.ReportConfig(game=TINY, **kw)


def test_the_command_of_a_comparison_names_its_series():
    series = report.series_grid(["handout", "q-learning", "ucb"],
                                {"epsilon_min": [0.05, 0.1], "q-learning.alpha": [None, 0.1]},
                                [10, 100])
    cfg = report.ReportConfig(game=TINY, series=series, games=GAMES, seeds=2)
    assert cfg.command() == (
        "dicejack report --sides 3 --low 6 --high 7 --dice 2 --learner handout,q-learning,ucb "
        "-m 10 -m 100 --param q-learning.epsilon_min=0.05,0.1 --param q-learning.alpha=1/n,0.1 "
        "--games 10,30,100 --seeds 2")
    # series no command line gives (q-learning alpha=0.1 but not at epsilon_min=0.5) say so
    odd = report.ReportConfig(game=TINY, series=(spec("q-learning", alpha=0.1),
                                                 spec("q-learning", epsilon_min=0.5)))
    assert "(series set in Python: q-learning alpha=0.1; q-learning epsilon_min=0.5)" in \
        odd.command()


# ------------------------------------------------------------------------------ the study
def test_several_learners_in_one_study_measure_each_learners_own_runs(study):
    cfg = study.config
    assert [s.label for s in cfg.series] == ["handout M=10", "q-learning alpha=0.1",
                                             "q-learning alpha=1/n", "ucb"]
    assert [(r.series.label, r.seed) for r in study.runs] == [
        (s.label, seed) for s in cfg.series for seed in (4, 5, 6)]
    t = truth_for((3, 6, 7, 2))
    q = study.spec("q-learning alpha=0.1")
    run = learners.learn(TINY, "q-learning", 100, 5, checkpoints=GAMES, alpha=0.1)
    for i, n in enumerate(GAMES):
        tables = run.snapshots[n]
        metrics = metric_values(t, compare.as_learned(
            TINY, (tables.best, tables.probability)))
        np.testing.assert_array_equal(study.values(q)[1, i],
                                      [metrics[name] for name in compare.METRIC_NAMES])
    # the handout series is the classic M report's run, number for number
    classic = run_one((3, 6, 7, 2), 10.0, 6, GAMES)
    np.testing.assert_array_equal(study.values(10.0)[2], classic.values)
    assert study.runs_for("handout M=10")[2].m == 10.0 and np.isnan(study.runs_for("ucb")[0].m)
    # different learners learn differently
    assert not np.array_equal(study.values("ucb"), study.values(q))
    with pytest.raises(report.ReportError, match="no series"):
        study.values("thompson")


def test_games_to_reach_by_hand():
    games = (10, 100, 1000, 10_000)
    values = np.array([[0.5, 0.96, 0.94, 0.99],   # first reaches at 100 (then dips)
                       [0.5, 0.90, 0.95, 0.99],   # at 1000
                       [0.5, 0.60, 0.70, 0.80],   # never
                       [0.9, 0.97, 0.98, 0.99]])  # at 100
    r = games_to_reach(values, games, 0.95)
    # means: 0.6, 0.8575, 0.8925, 0.9425: the mean never reaches 0.95
    assert r.mean is None and r.per_seed == (100, 1000, None, 100)
    assert r.median == 550.0 and r.first == 100 and r.last is None and r.reached == 3
    r = games_to_reach(values[[0, 1, 3]], games, 0.95)
    # means: 0.6333, 0.9433, 0.9567, 0.99: first at 1000
    assert r.mean == 1000 and r.median == 100.0 and (r.first, r.last) == (100, 1000)
    r = games_to_reach(values[[2, 0]], games, 0.95)
    assert r.median is None and r.reached == 1  # the middle of (100, never) is never


def test_the_games_to_95_table_is_what_the_studys_values_give(study):
    md = report_markdown(study, [])
    k = compare.METRIC_NAMES.index("agreement_decisive")
    for s in study.config.series:
        values = study.values(s)[:, :, k]
        mean = values.mean(axis=0)
        at = [n for n, v in zip(GAMES, mean, strict=True) if v >= 0.95]
        firsts = []
        for row in values:
            hit = [n for n, v in zip(GAMES, row, strict=True) if v >= 0.95]
            firsts.append(hit[0] if hit else None)
        done = sorted(f for f in firsts if f is not None)
        median = sorted(f if f is not None else np.inf for f in firsts)[1]  # 3 seeds
        cells = [f"{at[0]:,}" if at else "not reached", f"{len(done)}/3",
                 "not reached" if np.isinf(median) else f"{median:,.0f}",
                 "not reached" if not done else
                 f"{done[0]:,}..{done[-1]:,}" if len(done) == 3 else f"{done[0]:,}..not reached"]
        assert f"| {s.label} | " + " | ".join(cells) + " |" in md, s.label
    # the score table: one column per series, mean ± half-width at every checkpoint
    labels = [s.label for s in study.config.series]
    assert "| games | " + " | ".join(labels) + " |" in md
    mean, lo, hi = study.metric("ucb", "score_vs_optimal")
    row = next(line for line in md.splitlines() if line.startswith("| 100 | ") and "±" in line
               and line.count("|") == len(labels) + 2)
    assert row.split(" | ")[-1] == f"{mean[-1]:.4f} ± {(hi[-1] - lo[-1]) / 2:.4f} |"


def test_the_conclusions_are_computed_from_the_numbers(study):
    md = report_markdown(study, [])
    score = {s.label: study.metric(s, "score_vs_optimal")[0][-1] for s in study.config.series}
    best = max(score, key=score.get)
    assert (f"**Best against the optimal player after 100 games:** {best} scores "
            f"{score[best]:.4f}") in md
    reach = {s.label: study.games_to_target(s, "agreement_decisive", 0.95).mean
             for s in study.config.series}
    reached = sorted((g, i, label) for i, (label, g) in enumerate(reach.items()) if g is not None)
    if reached:
        assert "95% decisive agreement** (mean over seeds, on the " in md
        assert f"): {reached[0][2]} at {reached[0][0]:,} games" in md
    else:
        assert "**No series reaches 95% decisive agreement**" in md
    assert "# Learner comparison: " in md and "### q-learning alpha=1/n" in md


def test_metrics_files_name_the_series(study):
    rows = list(csv.reader(io.StringIO(metrics_csv(study))))
    assert rows[0] == ["series", "learner", "games", "seed", "metric", "value"]
    assert len(rows) - 1 == 4 * 3 * len(GAMES) * len(compare.METRIC_NAMES)
    assert {(r[0], r[1]) for r in rows[1:]} == {
        ("handout M=10", "handout"), ("q-learning alpha=0.1", "q-learning"),
        ("q-learning alpha=1/n", "q-learning"), ("ucb", "ucb")}
    data = metrics_json(study)
    assert [s["label"] for s in data["series"]] == [s.label for s in study.config.series]
    assert data["series"][2]["params"]["alpha"] is None  # 1/n
    assert "m" not in data and data["summary"][0]["series"] == "handout M=10"
    targets = data["agreement_target"]["series"]
    reach = study.games_to_target("ucb", "agreement_decisive", 0.95)
    assert targets[3] == {"series": "ucb", "mean_first": reach.mean,
                          "seed_first": list(reach.per_seed), "seed_median": reach.median,
                          "seed_min": reach.first, "seed_max": reach.last,
                          "seeds_reached": reach.reached}
    pytest.importorskip("pandas")
    df = study.to_frame()
    assert list(df.columns[:4]) == ["series", "learner", "seed", "games"]
    assert len(df) == 4 * 3 * len(GAMES)


# ------------------------------------------------------------------------------ figures
def test_every_curve_figure_has_one_curve_per_series(study):
    labels = [s.label for s in study.config.series]
    series = curve_series(study)
    assert [s.label for s in series] == labels
    for _, _, panels, _ in CURVE_FIGURES:
        fig = figures.curves_figure(GAMES, series, panels)
        for ax in fig.axes:
            named = [line.get_label() for line in ax.get_lines()
                     if not line.get_label().startswith("_")]
            assert named == labels
    learned = learned_figures(study)
    assert [f.name for f in learned] == [
        "learned_handout_m10.png", "learned_q-learning_alpha0.1.png",
        "learned_q-learning_alpha1-n.png", "learned_ucb.png"]
    assert learned[3].title == "Learned policy, ucb, seed 4, 100 games"


def test_past_ten_series_curves_change_style_and_learned_maps_stop_at_the_cap():
    values = [float(v) for v in np.round(np.linspace(0.05, 0.65, 13), 2)]
    series = report.series_grid(["q-learning"], {"alpha": values})
    cfg = report.ReportConfig(game=TINY, series=series, games=(5,), seeds=1)
    small = report.run_study(cfg, workers=1)
    curves = curve_series(small)
    fig = figures.curves_figure((5,), curves, CURVE_FIGURES[0][2][:1])
    curves = curve_series(small)
    fig = figures.curves_figure((5,), curves, CURVE_FIGURES[0][2][:1])
    lines = [line for line in fig.axes[0].get_lines() if not line.get_label().startswith("_")]
    assert len(lines) == 13
    assert [line.get_linestyle() for line in lines] == ["-"] * 10 + ["--"] * 3
    assert lines[0].get_color() == lines[10].get_color()
    assert len(learned_figures(small)) == LEARNED_FIGURES_LIMIT == 12
    md = report_markdown(small, [])
    assert "Learned tables are drawn for the first 12 of the 13 series." in md


# ------------------------------------------------------------------------------ the command
@pytest.mark.slow
def test_report_command_compares_learners_and_a_rerun_reproduces_it(tmp_path, capsys):
    args = ["report", *TINY_ARGS, "--learner", "handout,q-learning", "--param",
            "q-learning.alpha=0.1", "--games", "10,30", "--seeds", "2"]
    assert main([*args, "--workers", "1", "--out", str(tmp_path / "a")]) == 0, \
        capsys.readouterr().err
    assert main([*args, "--workers", "2", "--out", str(tmp_path / "b")]) == 0
    a, b = tmp_path / "a", tmp_path / "b"
    names = sorted(p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file())
    assert "figures/learned_handout_m100.png" in names
    assert "figures/learned_q-learning_alpha0.1.png" in names
    for name in names:
        if name != TIMING_FILE:
            assert (a / name).read_bytes() == (b / name).read_bytes(), name
    md = (a / "report.md").read_text(encoding="utf-8")
    command = ("dicejack report --sides 3 --low 6 --high 7 --dice 2 --learner handout,q-learning "
               "--param q-learning.alpha=0.1 --games 10,30 --seeds 2")
    assert f"Generated by `{command}`" in md
    assert json.loads((a / "metrics.json").read_text())["command"] == command


#: A learner as a user writes it from docs/learners.md's protocol, in their own file: the mean
#: outcome of each (state, J), epsilon-greedy self-play, a whole-number parameter too.
USER_LEARNER = """
import numpy as np
from dicejack import learners


class Average:
    name = "average"

    def __init__(self, game, seed, epsilon=0.1, warmup=0):
        self.game, self.seed, self.played = game, seed, 0
        self.params = {"epsilon": epsilon, "warmup": warmup}
        self.rng = np.random.default_rng(seed)
        self.wins = np.zeros(game.table_shape)
        self.tries = np.zeros(game.table_shape, dtype=np.int64)

    def play(self, games):
        g, rng = self.game, self.rng
        for _ in range(games):
            score, moves, mover = [0, 0], [], 0
            while True:
                x, y = score[mover], score[1 - mover]
                mean = self.wins[x, y, 1:] / np.maximum(self.tries[x, y, 1:], 1)
                warm = self.played < self.params["warmup"]
                explore = warm or rng.random() < self.params["epsilon"]
                j = int(rng.integers(1, g.n_dice + 1)) if explore else int(mean.argmax()) + 1
                moves.append((mover, x, y, j))
                score[mover] += int(rng.integers(1, g.n_sides + 1, size=j).sum())
                if score[mover] >= g.low:
                    winner = mover if score[mover] <= g.high else 1 - mover
                    break
                mover = 1 - mover
            for player, x, y, j in moves:
                self.wins[x, y, j] += player == winner
                self.tries[x, y, j] += 1
            self.played += 1

    def tables(self):
        tried = self.tries[..., 1:] > 0
        mean = np.where(tried, self.wins[..., 1:] / np.maximum(self.tries[..., 1:], 1), -1.0)
        seen = tried.any(axis=-1)
        best = np.where(seen, mean.argmax(axis=-1) + 1, 0)
        return learners.Tables(best, np.where(seen, mean.max(axis=-1), -1.0),
                               self.tries[..., 1:].sum(axis=-1))


class Unseeded(Average):
    def __init__(self, game, seed, epsilon=0.1, warmup=0):
        super().__init__(game, seed, epsilon, warmup)
        self.rng = np.random.default_rng()  # ignores its seed: not reproducible
"""


def test_your_own_learner_class_is_a_series_of_dicejack_report(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agent.py").write_text(USER_LEARNER)
    args = ["report", *TINY_ARGS, "--learner", "handout,agent.py:Average", "--param",
            "agent.py:Average.epsilon=0.1,0.3", "--param", "warmup=5", "--games", "10,30",
            "--seeds", "2"]
    assert main([*args, "--workers", "2", "--out", "a"]) == 0, capsys.readouterr().err
    assert main([*args, "--workers", "1", "--out", "b"]) == 0
    md = (tmp_path / "a" / "report.md").read_text(encoding="utf-8")
    command = ("dicejack report --sides 3 --low 6 --high 7 --dice 2 --learner "
               "handout,agent.py:Average --param agent.py:Average.epsilon=0.1,0.3 --param "
               "agent.py:Average.warmup=5 --games 10,30 --seeds 2")
    assert f"Generated by `{command}`" in md
    data = json.loads((tmp_path / "a" / "metrics.json").read_text())
    assert [s["label"] for s in data["series"]] == [
        "handout M=100", "agent.py:Average epsilon=0.1 warmup=5",
        "agent.py:Average epsilon=0.3 warmup=5"]
    assert data["series"][1]["params"] == {"epsilon": 0.1, "warmup": 5}
    for name in ("metrics.csv", "metrics.json", "report.md"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    # the numbers are the class's own: its run, measured as compare measures any run
    run = learners.learn(TINY, report.SeriesSpec("agent.py:Average", (("epsilon", 0.3),
                                                                      ("warmup", 5))).learner,
                         30, 1, epsilon=0.3, warmup=5)
    metrics = metric_values(compare.truth(TINY), compare.as_learned(TINY, run))
    rows = list(csv.DictReader(io.StringIO((tmp_path / "a" / "metrics.csv").read_text())))
    mine = {r["metric"]: float(r["value"]) for r in rows
            if r["series"] == "agent.py:Average epsilon=0.3 warmup=5" and r["seed"] == "1"
            and r["games"] == "30"}
    assert mine["agreement_all"] == stated(metrics["agreement_all"])  # at the stated digits
    assert mine["score_vs_optimal"] == stated(metrics["score_vs_optimal"])


@pytest.mark.parametrize("learner, param, message", [
    ("agent.py:Unseeded", [], "error: --learner agent.py:Unseeded: learner average: a second "
                              "learner with the same seed gives other tables than a straight "
                              "run"),
    ("agent.py:Nope", [], "error: --learner: agent.py has no Nope"),
    ("missing.py:Average", [], "error: --learner: no file missing.py"),
    ("agent.py:Average", ["warmup=1.5"], "error: --param warmup=1.5: agent.py:Average "
                                         "parameter warmup must be a whole number, got 1.5"),
    ("agent.py:Average", ["alpha=1"], "error: --param alpha=1: no learner in --learner "
                                      "agent.py:Average has a parameter 'alpha' (q-learning "
                                      "has it)"),
])
def test_a_broken_or_misnamed_own_learner_is_one_line_exit_2(tmp_path, monkeypatch, capsys,
                                                               learner, param, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agent.py").write_text(USER_LEARNER)
    params = [w for p in param for w in ("--param", p)]
    assert main(["report", *TINY_ARGS, "--learner", learner, *params, "--games", "10",
                 "--seeds", "1", "--workers", "1"]) == 2
    assert capsys.readouterr().err == message + "\n"
    assert not (tmp_path / "reports").exists()


@pytest.mark.parametrize("extra", [
    ["--learner", "nope"], ["--learner", "ucb", "-m", "10"], ["--param", "alpha=0.1"],
    ["--learner", "ucb", "--param", "c=x"], ["--param", "handout.m"],
    ["--learner", "handout,ucb", "--param", "thompson.c=1"],
])
def test_bad_learner_options_are_one_line_exit_2(extra, capsys):
    assert main(["report", *TINY_ARGS, *extra, "--games", "10"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err


def test_report_help_names_every_learner_and_parameter_with_examples(capsys):
    assert main(["report", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--learner" in text and "--param" in text
    for name in learners.NAMES:
        assert name in text.replace("- ", "-"), name
        for p in parameters(name):
            assert p.name in text, (name, p.name)
    assert "dicejack report --learner handout,q-learning,mc-epsilon,ucb,thompson" in \
        text.replace("- ", "-")
    assert "--param epsilon_min=0.05,0.1" in text and "--param q-learning.alpha=0.1" in text


# ------------------------------------------------------------------------------ unchanged
def test_a_handout_only_report_is_the_classic_m_report(tmp_path):
    classic = report.run_study(report.ReportConfig(game=TINY, ms=(10.0, 100.0), games=GAMES,
                                                   seeds=2), workers=1)
    via = report.run_study(report.ReportConfig(
        game=TINY, series=report.series_grid(["handout"], ms=[10, 100]), games=GAMES,
        seeds=2), workers=1)
    assert metrics_csv(via) == metrics_csv(classic)
    assert metrics_csv(classic).startswith("m,games,seed,metric,value\n")
    assert metrics_json(via) == metrics_json(classic)
    assert "series" not in metrics_json(classic)
    figs = [(f.caption, f"figures/{f.name}") for f in learned_figures(classic)]
    assert [name for _, name in figs] == ["figures/learned_m10.png", "figures/learned_m100.png"]
    md = report_markdown(classic, figs)
    assert md == report_markdown(via, figs)
    assert md.startswith("# Convergence report: ") and "- **M = 10.**" in md
    assert "Games needed" not in md and md.count("Right: green") == 2
    assert [s.label for s in curve_series(classic)] == ["M = 10", "M = 100"]
