"""Convergence studies: one run, statistics over seeds, and executor independence."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from dicejack import compare, report
from dicejack.compare.metrics import metric_values
from dicejack.compare.truth import truth_for
from dicejack.learners import handout
from dicejack.report.runs import run_one
from dicejack.report.study import interval
from dicejack.runtime import frames, parallel
from tests.games import TINY


def tiny_config(**kw) -> report.ReportConfig:
    args = dict(game=TINY, ms=(10.0, 100.0), games=(10, 30, 100), seeds=3, first_seed=4)
    args.update(kw)
    return report.ReportConfig(**args)


# ------------------------------------------------------------------------------ statistics
def test_interval_is_the_student_t_interval():
    mean, lo, hi = interval(np.array([[1.0], [2.0], [3.0]]))
    half = 4.302652729911275 / math.sqrt(3)  # t(0.975, 2) * sd(=1) / sqrt(3)
    assert mean[0] == 2.0
    assert lo[0] == pytest.approx(2 - half) and hi[0] == pytest.approx(2 + half)
    mean, lo, hi = interval(np.array([[1.0, np.nan], [np.nan, np.nan]]))
    assert mean[0] == 1.0 and math.isnan(lo[0]) and math.isnan(mean[1])


def test_a_run_measures_every_metric_at_every_checkpoint():
    r = run_one((3, 6, 7, 2), 10.0, 5, (10, 30, 100))
    assert r.values.shape == (3, len(compare.METRIC_NAMES)) and r.games == (10, 30, 100)
    t = truth_for((3, 6, 7, 2))
    run = handout.learn(TINY, 10.0, 100, 5, checkpoints=(10, 30))
    snap = run.snapshots[30]
    metrics = metric_values(t, compare.learned_from_tables(TINY, snap.best,
                                                                   snap.probability))
    np.testing.assert_array_equal(r.values[1], [metrics[n] for n in compare.METRIC_NAMES])


def test_wrong_decisive_counts_the_seeds_where_compare_finds_the_state_wrong():
    study = report.run_study(tiny_config(ms=(0.0,), games=(3, 10)), workers=1)
    rows = study.wrong_decisive(0.0)
    t = study.truth
    expected: dict[tuple[int, int], int] = {}
    for r in study.runs:
        for w in compare.compare(TINY, t, study.last_tables(r)).wrong_decisive:
            expected[w.x, w.y] = expected.get((w.x, w.y), 0) + 1
    assert rows and {(x, y): n for x, y, n, _, _ in rows} == expected
    assert [n for _, _, n, _, _ in rows] == sorted((n for _, _, n, _, _ in rows), reverse=True)
    for x, y, _, optimal, gap in rows:
        assert t.decisive[x, y] and gap == t.solution.gap[x, y]
        assert optimal == tuple(np.flatnonzero(t.solution.optimal[x, y]))


def test_to_frame_has_one_row_per_run_and_checkpoint_or_the_summary():
    pytest.importorskip("pandas")
    cfg = tiny_config(games=(10, 30))
    study = report.run_study(cfg, workers=1)
    df = study.to_frame()
    assert list(df.columns) == ["m", "seed", "games", *compare.METRIC_NAMES]
    assert len(df) == len(cfg.ms) * cfg.seeds * len(cfg.games)
    for m in cfg.ms:
        rows = df[df["m"] == m].sort_values(["seed", "games"])
        np.testing.assert_array_equal(
            rows[list(compare.METRIC_NAMES)].to_numpy().reshape(cfg.seeds, len(cfg.games), -1),
            study.values(m))
        assert rows["seed"].tolist() == [s for s in cfg.seed_list for _ in cfg.games]
    # the wide frame's mean over seeds is the report's mean
    means = df.groupby(["m", "games"])["rmse_onpath"].mean()
    summary = study.to_frame(summary=True)
    assert list(summary.columns) == ["m", "games", "metric", "mean", "low", "high", "n"]
    assert len(summary) == len(cfg.ms) * len(cfg.games) * len(compare.METRIC_NAMES)
    picked = summary[summary["metric"] == "rmse_onpath"].set_index(["m", "games"])["mean"]
    np.testing.assert_allclose(picked.sort_index().to_numpy(), means.sort_index().to_numpy())
    assert summary[summary["metric"] == "rmse_onpath"]["n"].tolist() == [3] * 4


def test_to_frame_without_pandas_is_a_one_line_error(monkeypatch):
    study = report.run_study(tiny_config(ms=(10.0,), seeds=1, games=(10,)), workers=1)
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(frames.PandasMissingError, match="pip install pandas"):
        study.to_frame()


# ------------------------------------------------------------------------------ executors
@pytest.mark.slow
def test_process_pool_and_dask_give_the_same_numbers_as_in_process():
    distributed = pytest.importorskip("distributed")
    cfg = tiny_config(games=(10, 100, 300))
    inline = report.run_study(cfg, workers=1)
    pool = report.run_study(cfg, workers=2)
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=True, protocol="tcp://",
        host="127.0.0.1", dashboard_address=None,
    ) as cluster:
        on_dask = report.run_study(cfg, dask=cluster.scheduler_address)
    for m in cfg.ms:
        np.testing.assert_array_equal(pool.values(m), inline.values(m))
        np.testing.assert_array_equal(on_dask.values(m), inline.values(m))
    assert [(r.m, r.seed) for r in on_dask.runs] == [(r.m, r.seed) for r in inline.runs]
    for a, b in zip(on_dask.runs, inline.runs, strict=True):
        np.testing.assert_array_equal(a.best, b.best)


def test_a_study_without_an_executor_is_a_report_error(monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(parallel, "DASK_CONNECT_TIMEOUT", 1)
    with pytest.raises(report.ReportError, match="cannot connect"):
        report.run_study(tiny_config(), dask="tcp://127.0.0.1:9")
