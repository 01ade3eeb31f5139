"""The report folder: its files, replacing an old report only as a whole, and the command."""

from __future__ import annotations

import csv
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest

from dicejack import compare, figures, report
from dicejack.cli import main
from dicejack.report.contents import report_markdown
from dicejack.report.folder import MARKER, default_out, existing_kind
from dicejack.report.limits import TIMING_FILE
from dicejack.report.runs import run_one
from tests.games import TINY


def tiny_config(**kw) -> report.ReportConfig:
    args = dict(game=TINY, ms=(10.0, 100.0), games=(10, 30, 100), seeds=3, first_seed=4)
    args.update(kw)
    return report.ReportConfig(**args)


def test_report_runs_end_to_end_and_writes_every_file(tmp_path):
    out = tmp_path / "rep"
    cfg = tiny_config()
    result = report.make_report(cfg, out, workers=1)
    assert result.path == out
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert files == [
        MARKER,
        "figures/agreement.csv", "figures/agreement.png",
        "figures/learned_m10.png", "figures/learned_m100.png",
        "figures/learned_m100_seeds.png", "figures/learned_m10_seeds.png",
        "figures/optimal.png", "figures/probability_error.csv", "figures/probability_error.png",
        "figures/regret.csv", "figures/regret.png",
        "metrics.csv", "metrics.json", "report.html", "report.md", TIMING_FILE,
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
    md = (out / "report.md").read_text(encoding="utf-8")
    assert f"P*(0,0) = {study.truth.p00:.6f}" in md
    assert "timing.json" in md and " s wall" not in md and "Run time" not in md
    assert "timing" not in json.dumps(data)
    timing = json.loads((out / TIMING_FILE).read_text())
    assert timing["command"] == cfg.command() and timing["moves"] == sum(r.moves for r in
                                                                          study.runs)
    assert {"total", "learner_runs", "learning_cpu", "figures"} <= set(timing["seconds"])
    for name in ("agreement.png", "probability_error.png", "regret.png", "optimal.png"):
        assert f"figures/{name}" in md
    # Each run is exactly what a direct run_one gives for its seed.
    direct = run_one((3, 6, 7, 2), 10.0, 5, (10, 30, 100))
    np.testing.assert_array_equal(study.values(10.0)[1], direct.values)


def test_the_markdown_lists_the_decisive_states_still_wrong(tmp_path):
    study = report.run_study(tiny_config(ms=(0.0,), games=(3, 10)), workers=1)
    rows = study.wrong_decisive(0.0)
    md = report_markdown(study, [])
    assert rows and "Decisive states still wrong after 10 games (in how many of 3 seeds)" in md
    for x, y, count, optimal, gap in rows[:15]:
        assert f"| <{x},{y}> | {count} | {', '.join(map(str, optimal))} | {gap:.4f} |" in md


def test_an_existing_report_is_replaced_only_when_the_new_one_is_complete(tmp_path, monkeypatch):
    out = tmp_path / "rep"
    out.mkdir()
    (out / "old.txt").write_text("old report")
    (out / MARKER).write_text("")  # an earlier report: dicejack's to replace
    cfg = tiny_config(ms=(10.0,), seeds=1, games=(10,))

    def broken(*args, **kwargs):
        raise RuntimeError("plotting failed")

    monkeypatch.setattr(figures, "plot_figures", broken)
    with pytest.raises(RuntimeError):
        report.make_report(cfg, out, workers=1)
    assert os.listdir(tmp_path) == ["rep"]
    assert sorted(os.listdir(out)) == sorted([MARKER, "old.txt"])
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


def test_each_kind_of_study_has_its_own_default_folder_and_never_replaces_the_other(
        tmp_path, monkeypatch, capsys):
    # `report --learner ...` used to write into reports/<game>, replacing the M report there.
    monkeypatch.chdir(tmp_path)
    tiny = ["--sides", "3", "--low", "6", "--high", "7", "--games", "10,20", "--seeds", "2",
            "--workers", "1"]
    assert main(["report", *tiny]) == 0
    assert main(["report", *tiny, "--learner", "handout,ucb"]) == 0
    capsys.readouterr()
    m_report, comparison = Path("reports/s3-l6-h7-d2"), Path("reports/learners-s3-l6-h7-d2")
    assert existing_kind(m_report) == "convergence report"
    assert existing_kind(comparison) == "learner comparison"
    assert "Convergence report" in (m_report / "report.md").read_text()
    assert "Learner comparison" in (comparison / "report.md").read_text()
    assert default_out(tiny_config()) == m_report
    assert default_out(report.ReportConfig(
        game=TINY, series=report.series_grid(["ucb"]))) == comparison
    # an explicit --out holding the other kind: refused up front, the old report untouched
    before = (m_report / "report.md").read_bytes()
    assert main(["report", *tiny, "--learner", "ucb", "--out", str(m_report)]) == 2
    err = capsys.readouterr().err
    assert err == (f"error: {m_report} holds a convergence report; this learner comparison "
                   f"would replace it: give another --out (the default is {comparison}) or "
                   f"remove {m_report} first\n")
    assert (m_report / "report.md").read_bytes() == before
    # the same kind is replaced as before
    assert main(["report", *tiny, "-m", "7", "--out", str(m_report)]) == 0
    assert (m_report / "figures" / "learned_m7.png").exists()


def test_report_command_writes_the_folder(tmp_path, capsys):
    out = tmp_path / "r"
    code = main(["report", "--sides", "3", "--low", "6", "--high", "7", "-m", "5", "--games",
                 "10,20", "--seeds", "2", "--workers", "1", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    assert (out / "report.md").exists() and (out / "figures" / "learned_m5.png").exists()
    assert not list(out.glob("figures/*.svg")) and not list(out.glob("figures/*.pdf"))


def test_report_writes_every_figure_in_each_format_asked(tmp_path, capsys):
    out = tmp_path / "r"
    args = ["report", "--sides", "3", "--low", "6", "--high", "7", "-m", "5", "--games",
            "10,20", "--seeds", "2", "--workers", "1", "--out", str(out)]
    assert main([*args, "--figure-format", "svg,pdf"]) == 0, capsys.readouterr().err
    pngs = sorted(p.stem for p in out.glob("figures/*.png"))
    assert pngs == ["agreement", "learned_m5", "learned_m5_seeds", "optimal",
                    "probability_error", "regret"]
    for ext, head in (("svg", b"<?xml"), ("pdf", b"%PDF-")):
        assert sorted(p.stem for p in out.glob(f"figures/*.{ext}")) == pngs
        assert all(p.read_bytes().startswith(head) for p in out.glob(f"figures/*.{ext}"))
    md = (out / "report.md").read_text()
    assert "--figure-format png,svg,pdf" in md and "![" in md and ".svg)" not in md
    capsys.readouterr()
    assert main([*args, "--figure-format", "png,jpg"]) == 2
    assert capsys.readouterr().err == ("error: --figure-format: unknown figure format 'jpg'; "
                                       "choose from png, svg, pdf\n")


def folder_bytes(folder) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_a_rerun_reproduces_every_file_byte_for_byte_whatever_the_workers(tmp_path,
                                                                           monkeypatch):
    """The reproducibility promise of report.md: same command, same bytes (timing.json apart),
    with 1 or 2 worker processes, from another working folder."""
    cfg = tiny_config(seeds=2, games=(10, 100))
    first = report.make_report(cfg, tmp_path / "one", workers=1).path
    monkeypatch.chdir(tmp_path)
    second = report.make_report(cfg, "two", workers=2).path
    a, b = folder_bytes(first), folder_bytes(tmp_path / second)
    assert a.keys() == b.keys() and TIMING_FILE in a
    differ = [name for name in a if a[name] != b[name]]
    assert differ == [TIMING_FILE]
    md = a["report.md"].decode("utf-8")
    assert str(tmp_path) not in md and cfg.command() in md
    for name, data in a.items():
        if name.endswith(".png"):
            assert b"Software" not in data and b"atplotlib" not in data, name


@pytest.mark.parametrize("folder", sorted(p.parent.name for p in (
    Path(__file__).resolve().parents[2] / "reports").glob("*/report.md")))
def test_committed_report_html_is_what_its_markdown_and_figures_give_today(folder):
    """The committed examples' report.html is report.md and the figures as this code renders
    them (regenerate the reports when the page's style changes)."""
    from dicejack.report.contents import report_html

    root = Path(__file__).resolve().parents[2] / "reports" / folder
    pictures = {f"figures/{p.name}": p.read_bytes() for p in sorted(root.glob("figures/*.png"))}
    assert report_html((root / "report.md").read_text(), pictures) == (
        root / "report.html").read_text()


#: The committed report small enough to regenerate in a test (about 5 s).
REGENERATED = "s6-l15-h17-d2"


@pytest.mark.slow
def test_a_committed_report_is_what_its_command_writes_today(tmp_path, capsys):
    """Issue 46 and the README: re-running a committed report's command (the one report.md
    records) rewrites every file of its folder byte for byte, and timing.json (not committed)
    besides."""
    import shlex

    root = Path(__file__).resolve().parents[2] / "reports" / REGENERATED
    md = (root / "report.md").read_text(encoding="utf-8")
    command = re.search(r"Generated by `dicejack (report [^`]+)`", md).group(1)
    out = tmp_path / REGENERATED
    assert main([*shlex.split(command), "--workers", "1", "--out", str(out)]) == 0
    capsys.readouterr()
    old, new = folder_bytes(root), folder_bytes(out)
    assert sorted(new) == sorted([*old, TIMING_FILE])
    assert [name for name in old if new[name] != old[name]] == []


def test_the_metrics_files_carry_the_stated_digits(tmp_path):
    """metrics.csv, metrics.json and the figures' CSV write every measured number at
    formats.numbers.STATED_DIGITS (12) significant digits: a library's last-digit change (the
    17th) does not reach them."""
    from dicejack.formats.numbers import STATED_DIGITS

    out = report.make_report(tiny_config(ms=(10.0,)), tmp_path / "r", workers=1).path
    numbers = []
    for name in ("metrics.csv", "metrics.json", "figures/agreement.csv", "figures/regret.csv"):
        numbers += re.findall(r"-?\d+\.\d+(?:e-?\d+)?", (out / name).read_text())
    assert len(numbers) > 100
    longest = max(len(n.split("e")[0].lstrip("-0.").replace(".", "")) for n in numbers)
    assert longest == STATED_DIGITS  # some use every digit, none more


def test_a_learners_label_is_escaped_in_report_md(tmp_path, monkeypatch, capsys):
    """Issue 39: a --learner label (an own learner's file name) went into report.md as it was:
    `<b>` made HTML, `|` broke the tables, `*`/`_` made emphasis, a backtick ended the command's
    code span. Now every mark is escaped; the label reads back in metrics.json as given."""
    from tests.report.test_learners_report import TINY_ARGS, USER_LEARNER

    monkeypatch.chdir(tmp_path)
    name = "x_<b>*y*|z`.py"
    (tmp_path / name).write_text(USER_LEARNER)
    args = ["report", *TINY_ARGS, "--learner", f"handout,{name}:Average", "--games", "10,30",
            "--seeds", "2", "--workers", "1", "--out", "rep"]
    assert main(args) == 0, capsys.readouterr().err
    md = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    label = json.loads((tmp_path / "rep" / "metrics.json").read_text())["series"][1]["label"]
    assert label.startswith(name)
    prose = "\n".join(line for line in md.splitlines() if not line.startswith("Generated by"))
    assert "<b>" not in prose and "*y*" not in prose
    assert "|z" not in prose.replace("\\|z", "")
    escaped = r"x\_&lt;b&gt;\*y\*\|z\`.py:Average"
    assert f"### {escaped}" in md
    header = next(line for line in md.splitlines() if line.startswith("| games | "))
    assert header.count(" | ") == 2  # games and the two series: no cell split by the label
    assert "Generated by ``dicejack report" in md  # the command's code span holds its backtick


def test_each_figure_shows_its_own_data(tmp_path):
    """Figures' contents, not only their names: each learned_m<M>.png is the figure of the first
    seed's tables learned here afresh (the handout's learner), byte for byte; the seeds figure
    is another picture; each curves figure's numbers (figures/<name>.csv) are the means over
    seeds of metrics.csv's values."""
    from dicejack.figures.convergence import plot_learned
    from dicejack.learners import formulas, handout

    cfg = tiny_config()
    out = tmp_path / "rep"
    result = report.make_report(cfg, out, workers=1)
    truth = result.study.truth
    for m in cfg.ms:
        run = handout.learn(TINY, m, cfg.games[-1], cfg.first_seed)
        tables = compare.learned_from_tables(TINY, *formulas.learned_tables(run.win, run.lose))
        mine = tmp_path / f"mine_m{m:g}.png"
        plot_learned(truth, tables, f"Learned policy, M = {m:g}, seed {cfg.first_seed}, "
                     f"{cfg.games[-1]:,} games", mine)
        written = (out / "figures" / f"learned_m{m:g}.png").read_bytes()
        assert written == mine.read_bytes(), m
        assert (out / "figures" / f"learned_m{m:g}_seeds.png").read_bytes() != written
    assert (out / "figures/learned_m10.png").read_bytes() != (
        out / "figures/learned_m100.png").read_bytes()
    with open(out / "metrics.csv", newline="") as fh:
        values: dict[tuple[str, str, str], list[float]] = {}
        for r in csv.DictReader(fh):
            values.setdefault((r["m"], r["games"], r["metric"]), []).append(float(r["value"]))
    legends = [cfg.legend(s) for s in cfg.series]
    checked = 0
    for name in ("agreement", "probability_error", "regret"):
        with open(out / "figures" / f"{name}.csv", newline="") as fh:
            for r in csv.DictReader(fh):
                m = cfg.ms[legends.index(r["series"])]
                mean = np.mean(values[(f"{m:g}", r["games"], r["metric"])])
                assert float(r["mean"]) == pytest.approx(mean, rel=1e-9, abs=1e-12), r
                checked += 1
    assert checked >= 3 * 2 * 3
