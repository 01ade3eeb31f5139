"""Reports on a game with hidden information (`dicejack report --game kuhn`, on the one report
pipeline: ReportConfig("kuhn")): CFR's average policy measured exactly at every checkpoint
(exploitability equal to tests/learners/test_cfr.py's measured values), intervals of zero width
for the deterministic variants, the exact value in report.md, a reproducible folder; and
`report --game handout`, the handout's report byte for byte."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from dicejack.cli import main
from dicejack.compare.hidden_information import hidden_metrics
from dicejack.figures.convergence import Panel, Series, curves_csv
from dicejack.games.handout_rules import Game
from dicejack.games.kuhn import Kuhn
from dicejack.learners import learn
from dicejack.learners.cfr import CFR
from dicejack.report import ReportConfig, ReportError, SeriesSpec, make_report, run_study
from dicejack.report.contents import GAME_REPORT_KIND
from dicejack.report.folder import default_out
from dicejack.report.information_section import deterministic
from dicejack.report.runs import INFORMATION_METRICS, information_metrics, protocol_solution
from dicejack.solver.information_policies import exploitability, nash_conv, uniform_policy

GAMES = (10, 100, 1000)
#: tests/learners/test_cfr.py's MEASURED exploitabilities of the average policy on Kuhn poker.
CFR_PLUS = {10: 0.03268709066834477, 100: 0.0011944041011116568, 1000: 8.736532252074519e-05}
CFR_PLAIN = {10: 0.06869879381715757, 100: 0.008225977315915622, 1000: 0.00093761664699403}


@pytest.fixture(scope="module")
def config():
    return ReportConfig("kuhn", games=GAMES, seeds=3)


@pytest.fixture(scope="module")
def study(config):
    return run_study(config, workers=1)


def test_kuhn_gets_cfr_once_per_variant_and_iterations_by_default():
    cfg = ReportConfig("kuhn")
    assert cfg.information and cfg.protocol and cfg.comparison
    assert [s.label for s in cfg.series] == ["cfr variant=cfr+", "cfr variant=cfr",
                                             "cfr variant=outcome-sampling"]
    assert (cfg.games[0], cfg.games[-1], len(cfg.games), cfg.seeds) == (10, 10_000, 10, 5)
    assert cfg.command() == ("dicejack report --game kuhn --learner cfr --param "
                             "cfr.variant=cfr+,cfr,outcome-sampling --games 10..10000 --seeds 5")
    assert str(default_out(cfg)) == "reports/kuhn-ante1-bet1-learners"
    pig = ReportConfig("pig")
    assert not pig.information and [s.label for s in pig.series] == ["q-learning",
                                                                     "mc-exploring-starts"]


def test_a_game_takes_only_its_own_learners():
    with pytest.raises(ReportError, match="^series q-learning: q-learning does not play kuhn "
                       "ante=1 bet=1; its learners: cfr$"):
        ReportConfig("kuhn", series=(SeriesSpec("q-learning", protocol=True),))
    with pytest.raises(ReportError, match="cfr does not play pig goal=100 die=6"):
        ReportConfig("pig", series=(SeriesSpec("cfr", protocol=True),))
    with pytest.raises(ReportError, match="variant must be one of"):
        SeriesSpec("cfr", (("variant", "cfr++"),), protocol=True)


def test_every_checkpoint_is_the_average_policys_exact_exploitability(study, config):
    k = INFORMATION_METRICS.index("exploitability")
    for spec, measured in ((config.series[0], CFR_PLUS), (config.series[1], CFR_PLAIN)):
        values = study.values(spec)[:, :, k]
        for seed_row in values:
            assert seed_row.tolist() == pytest.approx([measured[g] for g in GAMES], rel=1e-9)
    # the sampled variant against a plain run of the learner with the same seed
    sampled = config.series[2]
    run = learn(Kuhn(), CFR, 1000, 2, checkpoints=GAMES, variant="outcome-sampling")
    tree = protocol_solution("kuhn", ()).tree
    want = [float(exploitability(tree, run.snapshots[g].policy())) for g in GAMES]
    assert study.values(sampled)[1, :, k].tolist() == pytest.approx(want, rel=1e-12)


def test_the_metrics_hang_together(study, config):
    """nash_conv = 2 exploitability; the seats bracket -1/18 against the equilibrium; the
    losses are each seat's distance to it and score_vs_optimal their negated sum."""
    col = INFORMATION_METRICS.index
    for spec in config.series:
        v = study.values(spec)
        assert np.allclose(v[..., col("nash_conv")], 2 * v[..., col("exploitability")])
        assert (v[..., col("value_first")] <= -1 / 18 + 1e-12).all()
        assert (v[..., col("value_second")] >= -1 / 18 - 1e-12).all()
        assert np.allclose(v[..., col("loss_first")], -1 / 18 - v[..., col("value_first")])
        assert np.allclose(v[..., col("loss_second")], v[..., col("value_second")] + 1 / 18)
        assert np.allclose(v[..., col("score_vs_optimal")],
                           -(v[..., col("loss_first")] + v[..., col("loss_second")]))


def test_information_metrics_of_known_policies():
    """Uniform play: exploitability 11/24 (OpenSpiel's 0.4583...); the solver's own
    equilibrium: 0; a planted error (the seats swapped) would break the bracket."""
    sol = protocol_solution("kuhn", ())
    assert sol.exact_value == Fraction(-1, 18)
    m = information_metrics(sol, uniform_policy(sol.tree))
    assert m["exploitability"] == pytest.approx(11 / 24, abs=1e-15)
    assert m["nash_conv"] == pytest.approx(float(nash_conv(sol.tree, uniform_policy(sol.tree))))
    assert m["value_first"] < -1 / 18 < m["value_second"]
    eq = information_metrics(sol, sol.policy())
    assert eq["exploitability"] == pytest.approx(0, abs=1e-12)
    assert eq["loss_first"] == pytest.approx(0, abs=1e-12)
    assert eq["loss_second"] == pytest.approx(0, abs=1e-12)
    assert m == {k: float(v) for k, v in hidden_metrics(sol, uniform_policy(sol.tree)).items()
                 if k in INFORMATION_METRICS}  # compare's, one definition


def test_deterministic_variants_have_zero_width_intervals(study, config):
    plus, plain, sampled = config.series
    assert deterministic(study, plus) and deterministic(study, plain)
    assert not deterministic(study, sampled)
    mean, lo, hi = study.summary(plus)  # equal but for the mean's rounding (sum / n)
    assert np.allclose(lo, mean, rtol=1e-14, atol=0) and np.allclose(hi, mean, rtol=1e-14, atol=0)
    mean, lo, hi = study.summary(sampled)
    assert (hi - lo)[:, 0].min() > 0


def test_a_kuhn_report_folder_end_to_end(tmp_path):
    cfg = ReportConfig("kuhn", games=(10, 100), seeds=2)
    a = make_report(cfg, tmp_path / "a", workers=1).path
    b = make_report(cfg, tmp_path / "b", workers=2).path
    names = sorted(p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file())
    assert names == [".dicejack-report", "figures/convergence.csv", "figures/convergence.png",
                     "metrics.csv", "metrics.json", "report.html", "report.md", "timing.json"]
    for name in names:
        if name != "timing.json":
            assert (a / name).read_bytes() == (b / name).read_bytes(), name
    doc = json.loads((a / "metrics.json").read_text())
    assert doc["kind"] == GAME_REPORT_KIND and doc["game_params"] == {"ante": 1, "bet": 1}
    assert doc["solution"]["exact_value"] == "-1/18"
    assert doc["solution"]["value"] == pytest.approx(-1 / 18, abs=1e-12)
    assert [s["deterministic"] for s in doc["series"]] == [True, True, False]
    assert doc["metrics"] == list(INFORMATION_METRICS)
    for row in doc["summary"]:  # zero width at 12 digits for the deterministic variants
        if row["series"] != "cfr variant=outcome-sampling":
            assert row["low"] == row["mean"] == row["high"], row
    text = (a / "report.md").read_text()
    assert cfg.command() in text and "-1/18 = -0.055555555556 (exact" in text
    assert "two players, zero-sum, with hidden information" in text and "55 nodes" in text
    assert "`cfr variant=outcome-sampling`: outcome-sampling MCCFR" in text
    assert "gave the same numbers in all 2 seeds" in text and "zero width" in text
    assert "| 100 | 0.001194 | 0.008226 |" in text  # CFR+ and CFR at 100 iterations
    rows = (a / "metrics.csv").read_text().splitlines()
    assert rows[0] == "series,learner,games,seed,metric,value"
    assert len(rows) == 1 + 3 * 2 * 2 * len(INFORMATION_METRICS)
    assert "cfr variant=cfr+,cfr,100,1,exploitability,0.00119440410111" in rows


def test_a_band_is_cut_at_its_panels_range():
    """A payoff panel keeps a negative band; the default (a share) cuts it at [0, 1]."""
    band = (np.array([-0.05]), np.array([-0.5]), np.array([0.4]))
    series = [Series("s", {"v": band})]
    cut = curves_csv([10], series, [Panel("v", "v", "v")]).splitlines()[1]
    kept = curves_csv([10], series, [Panel("v", "v", "v", band=(-1.0, 1.0))]).splitlines()[1]
    assert cut == "s,v,10,-0.05,0.0,0.4" and kept == "s,v,10,-0.05,-0.5,0.4"


def test_cli_report_kuhn(tmp_path):
    out = tmp_path / "k"
    assert main(["report", "--game", "kuhn", "--param", "variant=cfr+", "--games", "10,1000",
                 "--seeds", "1", "--workers", "1", "--out", str(out)]) == 0
    doc = json.loads((out / "metrics.json").read_text())
    assert [s["label"] for s in doc["series"]] == ["cfr variant=cfr+"]
    last = [r for r in doc["summary"] if r["games"] == 1000 and r["metric"] == "exploitability"]
    assert last[0]["mean"] == pytest.approx(8.736532252074519e-05, rel=1e-9)


@pytest.mark.parametrize("args, message", [
    (["--learner", "q-learning"], "q-learning does not play kuhn"),
    (["--param", "alpha=0.1"], "no learner in --learner cfr has a parameter 'alpha'"),
    (["-m", "10"], "-m does not apply"),
])
def test_cli_report_kuhn_refusals(args, message, capsys):
    assert main(["report", "--game", "kuhn", *args]) == 2
    assert message in capsys.readouterr().err


def _files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*")
            if p.is_file() and p.name != "timing.json"}


@pytest.mark.parametrize("game_args, plain_args", [
    (["--game-param", "low=7", "--game-param", "high=8", "--game-param", "sides=4"],
     ["--sides", "4", "--low", "7", "--high", "8"]),
    (["--sides", "4", "--low", "7", "--high", "8"], ["--sides", "4", "--low", "7", "--high", "8"]),
])
def test_report_game_handout_is_the_handouts_report(tmp_path, game_args, plain_args):
    tail = ["-m", "5,50", "--games", "20,50", "--seeds", "2", "--workers", "1"]
    assert main(["report", *plain_args, *tail, "--out", str(tmp_path / "plain")]) == 0
    assert main(["report", "--game", "handout", *game_args, *tail,
                 "--out", str(tmp_path / "named")]) == 0
    plain, named = _files(tmp_path / "plain"), _files(tmp_path / "named")
    assert "report.md" in plain and "figures/optimal.png" in plain
    assert plain == named
    named_config = ReportConfig("handout", game_params=(("sides", 4), ("low", 7), ("high", 8)))
    assert named_config == ReportConfig(Game(4, 7, 8, 2)) and not named_config.protocol


def test_report_game_handout_refuses_both_ways_at_once(capsys):
    assert main(["report", "--game", "handout", "--low", "7", "--game-param", "low=7"]) == 2
    assert "--low and --game-param both set the handout's game" in capsys.readouterr().err
