"""What report.md and metrics.json say: intervals inside each metric's range (raw ends kept in
metrics.json), numbers at the precision of their spread, thousands separators, every column
defined, and the 95% wording that matches what the curve did."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from dicejack import compare, report
from dicejack.compare.metrics import METRIC_HELP
from dicejack.report.contents import metrics_json, report_markdown
from dicejack.report.drawing import curve_series
from dicejack.report.handout_section import TABLE_METRICS
from tests.games import TINY

GAMES = (10, 30, 100)
K = {name: k for k, name in enumerate(compare.METRIC_NAMES)}


@pytest.fixture(scope="module")
def base() -> report.Study:
    cfg = report.ReportConfig(game=TINY, ms=(10.0,), games=GAMES, seeds=3, first_seed=4)
    return report.run_study(cfg, workers=1)


def with_values(study: report.Study, **per_seed: list[list[float]]) -> report.Study:
    """`study` with metric values set by hand: name=[[seed 1 at each checkpoint], ...]."""
    runs = []
    for i, run in enumerate(study.runs):
        values = run.values.copy()
        for name, rows in per_seed.items():
            values[:, K[name]] = rows[i]
        runs.append(dataclasses.replace(run, values=values))
    return report.Study(study.config, study.truth, tuple(runs), {})


def table_cells(markdown: str, column: str) -> list[str]:
    """The cells of `column` in the per-series table (one per checkpoint)."""
    lines = markdown.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("| games | agreement_"))
    names = [c.strip() for c in lines[head].strip("|").split("|")]
    rows = lines[head + 2: head + 2 + len(GAMES)]
    return [[c.strip() for c in row.strip("|").split("|")][names.index(column)] for row in rows]


def test_intervals_shown_stay_in_range_and_metrics_json_keeps_the_raw_ends(base):
    # Three seeds at 0.97, 1 and 1: the Student-t interval reaches past 1 (about 1.033).
    study = with_values(base, agreement_decisive=[[0.5, 0.9, 0.97], [0.5, 0.95, 1.0],
                                                  [0.6, 0.95, 1.0]])
    md = report_markdown(study, [])
    percents = [float(v) for v in re.findall(r"(\d+\.\d)%", md)]
    assert percents and max(percents) <= 100.0
    assert "99.0% (95% interval 94.7%..100.0%)" in md
    # cut at 1, the interval is no longer mean ± half: the cell gives its ends
    assert table_cells(md, "agreement_decisive")[-1] == "0.990 (0.947..1.000)"
    assert table_cells(md, "agreement_decisive")[:2] == ["0.533 ± 0.143", "0.933 (0.862..1.000)"]
    data = metrics_json(study)
    row = next(r for r in data["summary"]
               if r["metric"] == "agreement_decisive" and r["games"] == GAMES[-1])
    assert row["high"] == pytest.approx(1.0330, abs=1e-4)  # raw, as computed
    assert "not clipped" in data["interval"]
    _, lo, hi = study.metric(10.0, "agreement_decisive")
    assert hi[-1] == 1.0 and lo[-1] == pytest.approx(0.9470, abs=1e-4)


def test_small_values_keep_their_digits_in_tables_and_text(base):
    # Regret 0.0007 on average: a fixed 3 decimals showed "0.001 ± 0.000" beside "0.00072".
    regret = [[0.1, 0.01, 0.0006], [0.1, 0.012, 0.0007], [0.12, 0.011, 0.0008]]
    study = with_values(base, regret_decisive=regret)
    md = report_markdown(study, [])
    cell = table_cells(md, "regret_decisive")[-1]
    mean, half = (float(v) for v in cell.split(" ± "))
    assert cell == "0.00070 ± 0.00025"
    assert mean == pytest.approx(0.0007) and half == pytest.approx(0.000248, rel=0.05)
    assert "falls from 0.107 to 0.00070." in md  # the text at the table's precision
    assert table_cells(md, "regret_decisive")[0] == "0.107 ± 0.029"


def test_counts_have_thousands_separators_and_every_column_is_defined(base):
    study = with_values(base, states_with_data=[[2798, 2798, 2798]] * 3)
    md = report_markdown(study, [])
    assert table_cells(md, "states_with_data") == ["2,798.0"] * 3
    for name in TABLE_METRICS:
        assert f"- `{name}`: {METRIC_HELP[name]}" in md
    assert "- `weighted_agreement`: agreement weighted by optimal visit probability" in md


@pytest.mark.parametrize("curve, says", [
    ([0.5, 0.8, 0.9], "does not reach 95% within 100 games (mean over seeds)"),
    ([0.5, 0.97, 0.9], "reaches 95% (mean over seeds) at 30 games but does not stay above it "
                       "within 100 games"),
    ([0.5, 0.97, 0.99], "passes 95% (mean over seeds) at 30 games and stays above it"),
])
def test_the_95_percent_wording_says_what_the_curve_did(base, curve, says):
    study = with_values(base, agreement_decisive=[curve] * 3)
    md = report_markdown(study, [])
    assert says in md
    assert "does not stay above 95%" not in md


def test_the_figures_get_the_clipped_bands(base):
    study = with_values(base, agreement_decisive=[[0.5, 0.9, 0.97], [0.5, 0.95, 1.0],
                                                  [0.6, 0.95, 1.0]])
    (series,) = curve_series(study)
    mean, lo, hi = series.bands["agreement_decisive"]
    assert np.all(hi <= 1.0) and hi[-1] == 1.0 and mean[-1] == pytest.approx(0.99)
