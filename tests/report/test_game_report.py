"""Reports on another game than the handout's (`dicejack report --game`, through the one report
pipeline: ReportConfig(game="pig", ...)): the study's numbers are the learners' exact metrics,
the folder is complete and reproducible, Pig's maps read the roll/hold boundary right, and the
config and the command line refuse what does not apply."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from dicejack.cli import main
from dicejack.compare.metrics import learned_metrics
from dicejack.games import Pig, Piglet, enumerate_game
from dicejack.learners import learn
from dicejack.report import ReportConfig, ReportError, SeriesSpec, make_report, run_study
from dicejack.report.contents import GAME_REPORT_KIND, report_markdown, top_states
from dicejack.report.folder import default_out
from dicejack.report.runs import GAME_METRICS
from dicejack.report.score_axes import hold_rows, mean_by_scores, score_axes, stop_totals
from dicejack.report.series import series_grid
from dicejack.solver.generic import solve_game
from tests.games import TINY

GAMES = (50, 300)


def game_series_grid(learners=None, params=()):
    """The series of learners of protocol games (series_grid with protocol=True)."""
    return series_grid(learners, params, protocol=True)


@pytest.fixture(scope="module")
def config():
    return ReportConfig("pig", games=GAMES, seeds=2, game_params=(("goal", 8),))


@pytest.fixture(scope="module")
def study(config):
    return run_study(config, workers=1)


def test_series_grid_takes_learners_and_parameter_lists():
    series = game_series_grid(["q-learning", "Counting"], {"alpha": [0.1, 0.5], "counting.m": 10})
    assert [s.label for s in series] == ["q-learning alpha=0.1", "q-learning alpha=0.5",
                                         "counting m=10"]
    assert [s.label for s in game_series_grid()] == ["q-learning", "mc-exploring-starts"]
    with pytest.raises(ReportError, match="SeriesSpec, got str"):
        ReportConfig("pig", series=("q-learning",))
    with pytest.raises(ReportError, match="alpha must be"):
        SeriesSpec("q-learning", (("alpha", 2.0),), protocol=True)


def test_one_config_takes_any_game_with_its_own_defaults(config):
    """The game is a parameter of the one ReportConfig: the handout's by default (10 seeds,
    100..10^6, the handout's learner), another by name with its parameters (5 seeds,
    1000..10^5, the learners of protocol games); neither takes the other's learners or
    settings."""
    pig = ReportConfig("pig")
    assert pig.protocol and not ReportConfig().protocol
    assert (pig.seeds, pig.games[0], pig.games[-1]) == (5, 1000, 100_000)
    assert [s.label for s in pig.series] == ["q-learning", "mc-exploring-starts"]
    assert pig.ms == () and pig.comparison
    assert config.game_object == Pig(goal=8) and config.game_label == "pig goal=8 die=6"
    assert config.game_key == ("pig", (("goal", 8),))
    with pytest.raises(ReportError, match="^series q-learning: not a learner of another game's"):
        ReportConfig("pig", series=(SeriesSpec("q-learning"),))
    with pytest.raises(ReportError, match="^series q-learning: not a learner of the handout's"):
        ReportConfig(TINY, series=(SeriesSpec("q-learning", protocol=True),))
    with pytest.raises(ReportError, match="^ms sets the handout learner's M") as info:
        ReportConfig("pig", ms=(10,))
    assert info.value.parameters == ("ms",)
    with pytest.raises(ReportError, match="^game_params are another game's"):
        ReportConfig(TINY, game_params=(("goal", 8),))
    with pytest.raises(ReportError, match="^game must be a Game or a game's name"):
        ReportConfig(3)
    with pytest.raises(ReportError, match="goal must be"):
        ReportConfig("pig", game_params=(("goal", 500),))


@pytest.mark.parametrize("kw, message, named", [
    ({"learners": ["ucb"]}, "no learner 'ucb'", ()),
    ({"learners": ["q-learning", "q_learning"]}, "^learners names q-learning twice$",
     ("learners",)),
    ({"learners": ["q-learning"], "params": {"m": 3}},
     r"^params\['m'\]: no learner in learners q-learning has a parameter 'm' \(counting has "
     r"it\)$",
     ("params", "learners")),
    ({"params": {"counting.m": 3}}, r"^params\['counting.m'\]: counting is not in learners "
     "q-learning,mc-exploring-starts$", ("params", "learners")),
    ({"params": {"q-learning.zz": 3}}, r"^params\['q-learning.zz'\]: learner q-learning has no "
     "parameter 'zz'", ("params",)),
    ({"params": {"alpha": [0.1, 0.1]}}, "the values must be distinct", ("params",)),
    ({"params": {"alpha": 2.0}}, r"^params\['alpha'\]: q-learning parameter alpha must be",
     ("params",)),
    ({"params": {"alpha": [i / 100 for i in range(1, 16)], "epsilon": [i / 20 for i in
                                                                         range(1, 15)]}},
     r"^params ask for 211 series \(q-learning 15 x 14 \+ mc-exploring-starts 1\)",
     ("params",)),
])
def test_series_grid_refuses_bad_python_values_naming_the_parameter(kw, message, named):
    with pytest.raises(ReportError, match=message) as info:
        game_series_grid(**kw)
    assert info.value.parameters == named and "--" not in str(info.value)


def test_the_command_reads_back_as_the_same_config(config):
    cfg = ReportConfig("pig", games=(100, 200, 500, 1000), seeds=3, first_seed=4,
                       series=game_series_grid(["q-learning"], {"alpha": [0.1, 0.2]}),
                       game_params=(("goal", 8),))
    assert cfg.command() == ("dicejack report --game pig --game-param goal=8 --learner "
                             "q-learning --param q-learning.alpha=0.1,0.2 --games 100..1000 "
                             "--seeds 3 --seed 4")
    assert config.game_slug == "pig-goal8-die6"
    assert str(default_out(config)) == "reports/pig-goal8-die6-learners"
    odd = ReportConfig("pig", series=(SeriesSpec("q-learning", (("alpha", 0.1),), True),
                                      SeriesSpec("q-learning", (("epsilon", 0.5),), True)))
    assert odd.command().endswith("(series set in Python: q-learning alpha=0.1; q-learning "
                                  "epsilon=0.5)")


def test_every_checkpoint_is_the_exact_metric_of_a_plain_run(study, config):
    sol = solve_game(enumerate_game(Pig(goal=8)))
    for run in study.runs:
        plain = learn(Pig(goal=8), run.series.learner, GAMES[-1], run.seed,
                      checkpoints=GAMES)
        for i, n in enumerate(GAMES):
            t = plain.snapshots[n]
            want = learned_metrics(sol, t.best, t.value)
            for k, name in enumerate(GAME_METRICS):
                got = run.values[i, k]
                assert got == pytest.approx(want[name], nan_ok=True, abs=0), name
        assert np.array_equal(run.best, plain.final.best)
    assert [r.seed for r in study.runs] == [1, 2, 1, 2]


def test_the_summary_is_mean_and_t_interval_over_seeds(study, config):
    s = config.series[0]
    k = GAME_METRICS.index("exploitability")
    values = study.values(s)[:, -1, k]
    mean, lo, hi = study.summary(s)
    assert mean[-1, k] == pytest.approx(values.mean())
    half = 12.706204736174698 * values.std(ddof=1) / math.sqrt(2)  # t(0.975, 1)
    assert hi[-1, k] - mean[-1, k] == pytest.approx(half)
    assert lo[-1, k] == pytest.approx(mean[-1, k] - half)


def test_optimal_share_counts_seeds_with_an_optimal_action(study, config):
    s = config.series[1]
    runs = study.runs_for(s)
    share = study.optimal_share(s)
    sol = study.truth
    s0 = int(np.flatnonzero(~sol.space.terminal)[5])
    expected = np.mean([r.best[s0] >= 0 and bool(sol.optimal[r.best[s0]]) for r in runs])
    assert share[s0] == expected
    assert np.isnan(share[sol.space.terminal]).all()


def test_top_states_start_with_the_initial_state(study):
    rows = top_states(study, limit=3)
    assert rows[0]["state"] == (0, 0, 0, 0) and rows[0]["visits"] > 1  # two pigs: back there
    assert rows[0]["optimal"] == ["roll"]
    assert [r["visits"] for r in rows] == sorted((r["visits"] for r in rows), reverse=True)


def test_stop_totals_read_the_roll_hold_boundary():
    """Piglet to 3: the boundary recomputed state by state from the solution."""
    game = Piglet(goal=3)
    space = enumerate_game(game)
    sol = solve_game(space)
    axes = score_axes(game, space)
    hold = hold_rows(space)
    holds = (hold >= 0) & sol.optimal[np.maximum(hold, 0)]
    got = stop_totals(axes, holds, ~space.terminal)
    for i in range(3):
        for j in range(3):
            ks = sorted(k for k in range(3 - i) if (i, j, k, 0) in space.index)
            stops = [k for k in ks if k > 0 and holds[space.index[(i, j, k, 0)]]]
            want = stops[0] if stops else 3 - i
            assert got[i, j] == want, (i, j)
    ones = mean_by_scores(axes, np.where(space.terminal, np.nan, 1.0))
    assert np.nanmin(ones) == 1.0
    assert score_axes(object(), space) is None


def test_a_game_report_folder_is_complete_and_reproducible(tmp_path, config):
    a = make_report(config, tmp_path / "a", workers=1).path
    b = make_report(config, tmp_path / "b", workers=2).path  # the same bytes
    names = sorted(p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file())
    assert "figures/policy.png" in names and "figures/convergence.csv" in names
    for name in names:
        if name != "timing.json":
            assert (a / name).read_bytes() == (b / name).read_bytes(), name
    doc = json.loads((a / "metrics.json").read_text())
    assert doc["kind"] == GAME_REPORT_KIND and doc["game_params"] == {"goal": 8, "die": 6}
    assert doc["solution"]["value"] == pytest.approx(solve_game(Pig(goal=8)).value)
    text = (a / "report.md").read_text()
    assert config.command() in text and "exploitability" in text
    with pytest.raises(ReportError, match="game report"):  # the handout's report refuses it
        make_report(out=a)


def test_a_game_report_never_replaces_a_handout_report(tmp_path, config):
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / ".dicejack-report").write_text("x")
    (tmp_path / "old" / "metrics.json").write_text("{}")
    with pytest.raises(ReportError, match="holds a convergence report; this game report"):
        make_report(config, tmp_path / "old", workers=1)
    assert (tmp_path / "old" / "metrics.json").read_text() == "{}"


def test_cli_report_game(tmp_path, capsys):
    out = tmp_path / "r"
    code = main(["report", "--game", "piglet", "--game-param", "goal=4", "--learner",
                 "counting", "--games", "20,40", "--seeds", "2", "--workers", "1",
                 "--out", str(out)])
    assert code == 0
    doc = json.loads((out / "metrics.json").read_text())
    assert [s["label"] for s in doc["series"]] == ["counting"] and doc["seeds"] == [1, 2]
    assert (out / "figures" / "policy.png").is_file()


@pytest.mark.parametrize("args, message", [
    (["--sides", "5"], "--sides does not apply to --game"),
    (["-m", "10"], "-m does not apply"),
    (["--learner", "ucb"], "no learner 'ucb'"),
    (["--game-param", "goal=500"], "goal must be"),
])
def test_cli_report_game_refusals(args, message, capsys):
    assert main(["report", "--game", "pig", *args]) == 2
    assert message in capsys.readouterr().err



SOLO = """
from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class Solo:
    goal: int = 4
    name = "solo"
    num_players = 1

    def initial_state(self):
        return 0

    def is_terminal(self, s):
        return s in ("won", "lost")

    def payoff(self, s):
        return 1 if s == "won" else 0

    def player(self, s):
        return 0

    def actions(self, s):
        return ("step", "jump")

    def outcomes(self, s, a):
        if a == "step":
            return [("won" if s + 1 >= self.goal else s + 1, Fraction(1))]
        return [("won", Fraction(1, 4)), ("lost", Fraction(1, 4)), (s, Fraction(1, 2))]
"""


def test_a_one_player_games_report_has_no_seats(tmp_path, monkeypatch):
    (tmp_path / "solo.py").write_text(SOLO)
    monkeypatch.chdir(tmp_path)
    cfg = ReportConfig("solo.py:Solo", series=game_series_grid(["q-learning"]),
                       games=(50, 100), seeds=2)
    out = make_report(cfg, workers=1).path
    assert out.as_posix() == "reports/solo-goal4-learners"
    md = (out / "report.md").read_text()
    assert "Exploitability: the optimal value minus the learned greedy policy's" in md
    assert "value_first" not in md.split("## The metrics")[0]
    assert not (out / "figures" / "policy.png").exists()
    k = GAME_METRICS.index("value_first")
    study = run_study(cfg, workers=1)
    assert np.isnan(study.values(cfg.series[0])[:, :, k]).all()


def _spread_study(study):
    """The study with its two seeds' last values spread wide: value_first, value_second and
    value_self_play 0.05 and 0.95, value_rmse 0.02 and 0.9, so that a t interval over two seeds
    (half-width 12.7 sd / sqrt 2) passes every range."""
    import dataclasses

    spread = {"value_first": (0.05, 0.95), "value_second": (0.05, 0.95),
              "value_self_play": (0.05, 0.95), "value_rmse": (0.02, 0.9),
              "value_max_error": (0.02, 0.9)}
    runs = []
    for r in study.runs:
        values = r.values.copy()
        for name, pair in spread.items():
            values[-1, GAME_METRICS.index(name)] = pair[r.seed % 2]
        runs.append(dataclasses.replace(r, values=values))
    return dataclasses.replace(study, runs=tuple(runs))


def test_intervals_are_cut_at_each_metrics_range_in_the_report(study):
    """README: a report's intervals are clipped to each metric's range; a win/lose game's values
    lie in its return range (here 0..1: games.bounds), its value errors in 0..(high - low).
    metrics.json keeps the raw interval."""
    import re

    from dicejack.games.bounds import game_bounds

    spread = _spread_study(study)
    bounds = game_bounds(enumerate_game(Pig(8)))
    assert (bounds.low, bounds.high) == (0.0, 1.0)
    ranges = {"value_first": (bounds.low, bounds.high), "value_second": (bounds.low, bounds.high),
              "value_self_play": (bounds.low, bounds.high),
              "value_rmse": (0.0, bounds.high - bounds.low),
              "value_max_error": (0.0, bounds.high - bounds.low)}
    for s in spread.config.series:
        mean, lo, hi = spread.summary(s)
        cut_mean, cut_lo, cut_hi = spread.summary(s, clipped=True)
        for name, (low, high) in ranges.items():
            k = GAME_METRICS.index(name)
            assert lo[-1, k] < low or hi[-1, k] > high  # the raw interval passes the range
            assert low <= cut_lo[-1, k] <= cut_mean[-1, k] <= cut_hi[-1, k] <= high, name
    md = report_markdown(spread, [])
    table = md[md.index("| series | value_first"):].split("\n\n")[0]
    cells = re.findall(r"(-?\d+\.\d+) \((-?\d+\.\d+)\.\.(-?\d+\.\d+)\)", table)
    assert len(cells) == 3 * len(spread.config.series)
    for mean, lo, hi in cells:
        assert bounds.low <= float(lo) <= float(mean) <= float(hi) <= bounds.high, (lo, hi)
    rows = {r["metric"]: r for r in spread.summary_rows()
            if r["games"] == GAMES[-1] and r["series"] == spread.config.series[0].label}
    assert rows["value_first"]["low"] < 0 and rows["value_first"]["high"] > 1  # raw in json
