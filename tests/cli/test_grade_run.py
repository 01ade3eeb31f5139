"""`dicejack grade --run`: the header names the sandbox and the plan, the gradebook and runs.csv
are written, bad options are one-line errors (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dicejack.cli import main
from dicejack.runtime import sandbox as sb

PROGRAM = (Path(__file__).resolve().parents[1] / "students" / "programs" / "faithful"
           / "learn_argv.py")
GAME = ["--sides", "6", "--low", "10", "--high", "12", "--dice", "2", "-m", "10",
        "--games", "2000"]


def _has_sandbox() -> bool:
    try:
        sb.choose_sandbox()
    except sb.SandboxError:
        return False
    return Path("/usr/bin/python3").exists()


def test_run_one_program_with_the_courses_convention(tmp_path, monkeypatch, capsys):
    if not _has_sandbox():
        pytest.skip("no sandbox or no /usr/bin/python3 here")
    monkeypatch.chdir(tmp_path)
    plan = tmp_path / "plan.toml"
    plan.write_text("runs = 2\n")
    code = main(["grade", "--run", str(PROGRAM), *GAME, "--plan", str(plan), "--input",
                 "argv: {sides} {low} {high} {dice} {m} {games}", "--cache",
                 str(tmp_path / "cache"), "--out", "book.csv"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "sandbox: " in err and "plan: 2 x assigned" in err
    assert "input: argv: {sides} {low} {high} {dice} {m} {games}" in err
    book = (tmp_path / "book.csv").read_text().splitlines()
    assert len(book) == 2 and book[1].startswith("learn_argv.py,ok,")
    runs = (tmp_path / "book.runs.csv").read_text().splitlines()
    assert len(runs) == 3 and "python3 -I ./learn_argv.py 6 10 12 2 10 2000" in runs[1]
    assert "<h2>learn_argv.py</h2>" in (tmp_path / "book.runs.html").read_text()


@pytest.mark.parametrize("extra, message", [
    (["--plan", "p.toml"], "go with --run"),
    (["--timeout", "5"], "go with --run"),
    (["--run", "--timeout", "0"], "wall_seconds must be > 0"),
    (["--run", "--workers", "0"], "--workers must be >= 1"),
    (["--run", "--input", "env: x"], "--input must start with"),
    (["--run", "--runs", "0"], "--runs must be"),
])
def test_bad_options_are_one_line_errors(tmp_path, monkeypatch, capsys, extra, message):
    monkeypatch.chdir(tmp_path)
    code = main(["grade", str(PROGRAM), *GAME, *extra])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
