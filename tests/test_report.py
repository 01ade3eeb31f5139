"""Convergence reports: parameters, statistics, the report folder, and the executors."""

from __future__ import annotations

import csv
import json
import math
import os

import numpy as np
import pytest

from dicejack import compare, report
from dicejack.cli import main
from dicejack.game import Game

TINY = Game(n_sides=3, low=6, high=7, n_dice=2)


def tiny_config(**kw) -> report.ReportConfig:
    args = dict(game=TINY, ms=(10.0, 100.0), games=(10, 30, 100), seeds=3, first_seed=4)
    args.update(kw)
    return report.ReportConfig(**args)


# ------------------------------------------------------------------------------ parameters
def test_default_study_is_the_handouts_game():
    cfg = report.ReportConfig()
    assert cfg.game == Game(6, 15, 17, 2) and cfg.ms == (100.0,) and cfg.seeds == 10
    assert cfg.games[0] == 100 and cfg.games[-1] == 10**6
    assert all(b > a for a, b in zip(cfg.games, cfg.games[1:], strict=False))
    assert cfg.seed_list == tuple(range(1, 11))


def test_parse_games_and_ms():
    assert report.parse_games("100,1000, 1e4") == (100, 1000, 10_000)
    assert report.parse_games("100..1000") == (100, 200, 500, 1000)
    assert report.parse_games("30..100") == (30, 50, 100)
    assert report.parse_ms(["10", "100,1000"]) == (10.0, 100.0, 1000.0)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: report.parse_games("100,100"), "increasing"),
        (lambda: report.parse_games("100,10"), "increasing"),
        (lambda: report.parse_games("0,10"), "positive"),
        (lambda: report.parse_games("-5"), "positive"),
        (lambda: report.parse_games("1.5"), "whole"),
        (lambda: report.parse_ms(["10,-1"]), ">= 0"),
        (lambda: report.parse_ms(["x"]), "number"),
        (lambda: report.parse_ms(["5,5"]), "distinct"),
        (lambda: tiny_config(seeds=0), "seeds must be >= 1"),
        (lambda: tiny_config(games=(5, 3)), "increasing"),
    ],
)
def test_bad_parameters_raise_report_errors(make, message):
    with pytest.raises(report.ReportError, match=message):
        make()


def test_interval_is_the_student_t_interval():
    mean, lo, hi = report.interval(np.array([[1.0], [2.0], [3.0]]))
    half = 4.302652729911275 / math.sqrt(3)  # t(0.975, 2) * sd(=1) / sqrt(3)
    assert mean[0] == 2.0
    assert lo[0] == pytest.approx(2 - half) and hi[0] == pytest.approx(2 + half)
    mean, lo, hi = report.interval(np.array([[1.0, np.nan], [np.nan, np.nan]]))
    assert mean[0] == 1.0 and math.isnan(lo[0]) and math.isnan(mean[1])


# ------------------------------------------------------------------------------ end to end
def test_report_runs_end_to_end_and_writes_every_file(tmp_path):
    out = tmp_path / "rep"
    cfg = tiny_config()
    result = report.make_report(cfg, out, workers=1)
    assert result.path == out
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert files == [
        "figures/agreement.png", "figures/learned_m10.png", "figures/learned_m100.png",
        "figures/optimal.png", "figures/probability_error.png", "figures/regret.png",
        "metrics.csv", "metrics.json", "report.md",
    ]
    for png in out.glob("figures/*.png"):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with open(out / "metrics.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["m", "games", "seed", "metric", "value"]
    assert len(rows) - 1 == 2 * 3 * 3 * len(compare.METRIC_NAMES)
    assert {r[2] for r in rows[1:]} == {"4", "5", "6"}
    assert {r[3] for r in rows[1:]} == set(compare.METRIC_NAMES)
    data = json.loads((out / "metrics.json").read_text())
    assert data["params"] == TINY.params() and data["seeds"] == [4, 5, 6]
    assert len(data["summary"]) == 2 * 3 * len(compare.METRIC_NAMES)
    study = result.study
    # The summary is the mean of the per-run CSV values.
    csv_vals = [float(r[4]) for r in rows[1:]
                if r[0] == "100" and r[1] == "30" and r[3] == "rmse_onpath"]
    entry = next(s for s in data["summary"]
                 if s["m"] == 100.0 and s["games"] == 30 and s["metric"] == "rmse_onpath")
    assert entry["mean"] == pytest.approx(np.mean(csv_vals)) and entry["n"] == 3
    md = (out / "report.md").read_text()
    assert f"P*(0,0) = {study.truth.p00:.6f}" in md
    for name in ("agreement.png", "probability_error.png", "regret.png", "optimal.png"):
        assert f"figures/{name}" in md
    # Each run is exactly what a direct run_one gives for its seed.
    direct = report.run_one((3, 6, 7, 2), 10.0, 5, (10, 30, 100))
    np.testing.assert_array_equal(study.values(10.0)[1], direct.values)


def test_an_existing_report_is_replaced_only_when_the_new_one_is_complete(tmp_path, monkeypatch):
    out = tmp_path / "rep"
    out.mkdir()
    (out / "old.txt").write_text("old report")
    cfg = tiny_config(ms=(10.0,), seeds=1, games=(10,))

    def broken(*args, **kwargs):
        raise RuntimeError("plotting failed")

    monkeypatch.setattr(report, "plot_figures", broken)
    with pytest.raises(RuntimeError):
        report.make_report(cfg, out, workers=1)
    assert os.listdir(tmp_path) == ["rep"] and os.listdir(out) == ["old.txt"]
    monkeypatch.undo()
    report.make_report(cfg, out, workers=1)
    assert not (out / "old.txt").exists() and (out / "report.md").exists()
    assert os.listdir(tmp_path) == ["rep"]


def test_an_unwritable_output_folder_fails_before_any_work(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(report.ReportError, match="cannot write the report folder"):
        report.make_report(tiny_config(), blocker / "rep", workers=1)
    with pytest.raises(report.ReportError, match="not a folder"):
        report.make_report(tiny_config(), blocker, workers=1)


def test_report_command_bad_input_is_one_line_exit_2(tmp_path, capsys):
    for args in (
        ["--games", "100,50"], ["--games", "0,10"], ["--seeds", "0"], ["-m", "-1"],
        ["-m", "10,-5"], ["--workers", "0"], ["--out", str(tmp_path / "f" / "x")],
    ):
        (tmp_path / "f").write_text("")
        code = main(["report", "--sides", "3", "--low", "6", "--high", "7", *args])
        err = capsys.readouterr().err
        assert code == 2, args
        assert err.startswith("error: ") and err.count("\n") == 1, err


def test_report_command_writes_the_folder(tmp_path, capsys):
    out = tmp_path / "r"
    code = main(["report", "--sides", "3", "--low", "6", "--high", "7", "-m", "5", "--games",
                 "10,20", "--seeds", "2", "--workers", "1", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    assert (out / "report.md").exists() and (out / "figures" / "learned_m5.png").exists()


# ------------------------------------------------------------------------------ executors
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


def test_unreachable_dask_scheduler_is_a_report_error(monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(report, "DASK_CONNECT_TIMEOUT", 1)
    with pytest.raises(report.ReportError, match="cannot connect"):
        with report.open_executor(dask="tcp://127.0.0.1:9"):
            pass
