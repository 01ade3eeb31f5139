"""`dicejack grade --run`: the header names the sandbox and the plan, the gradebook and runs.csv
are written, bad options are one-line errors (exit 2)."""

from __future__ import annotations

import re
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
                 str(tmp_path / "cache"), "--out", "book.csv", "--python", "system"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "sandbox: " in err and "plan: 2 x assigned" in err
    assert "python: system /usr/bin/python3 (Python 3." in err
    assert "input: argv: {sides} {low} {high} {dice} {m} {games}" in err
    book = (tmp_path / "book.csv").read_text().splitlines()
    assert len(book) == 2 and book[1].startswith("learn_argv.py,ok,")
    runs = (tmp_path / "book.runs.csv").read_text().splitlines()
    role = runs[0].split(",").index("role")
    # the plan's two assigned runs (further runs may follow when a verdict needs them:
    # the program's own randomness is not seeded)
    assigned = [r for r in runs[1:] if r.split(",")[role] == "assigned"]
    assert len(assigned) == 2 and "python3 -I ./learn_argv.py 6 10 12 2 10 2000" in assigned[0]
    page = (tmp_path / "book.runs.html").read_text()
    assert "<h2>learn_argv.py</h2>" in page and "<p>python: system /usr/bin/python3" in page


@pytest.mark.parametrize("extra, message", [
    (["--plan", "p.toml"], "go with --run"),
    (["--timeout", "5"], "go with --run"),
    (["--run", "--timeout", "0"], "wall_seconds must be > 0"),
    (["--run", "--workers", "0"], "--workers must be >= 1"),
    (["--run", "--input", "env: x"], "--input must start with"),
    (["--run", "--runs", "0"], "--runs must be"),
    (["--probe-secret", "lab3"], "--probe-secret go with --run"),
    (["--run", "--probe-secret", " lab3"], "--probe-secret must be printable text"),
])
def test_bad_options_are_one_line_errors(tmp_path, monkeypatch, capsys, extra, message):
    monkeypatch.chdir(tmp_path)
    code = main(["grade", str(PROGRAM), *GAME, *extra])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err


def _header(monkeypatch, capsys, args: list[str]):
    """The plan the batch gets and the header printed, the batch itself not run."""
    from dicejack.grade import programs as pg

    if not _has_sandbox():
        pytest.skip("no sandbox or no /usr/bin/python3 here")
    seen = []

    def batch(config, plan, *_, **__):
        seen.append(plan)
        raise SystemExit(3)

    monkeypatch.setattr(pg, "grade_programs", batch)
    with pytest.raises(SystemExit):
        main(["grade", "--run", str(PROGRAM), *GAME, "--python", "system", *args])
    return seen[0], capsys.readouterr().err


def test_the_probes_are_drawn_with_the_secret_given_and_the_header_says_it(
        tmp_path, monkeypatch, capsys):
    from dicejack.grade.programs import plan as pl

    monkeypatch.chdir(tmp_path)
    plan, err = _header(monkeypatch, capsys, ["--probe-secret", "lab3"])
    assert plan.secret == "lab3"
    assert tuple(s.settings for s in plan.settings[1:]) == pl.draw_probes("lab3")
    assert "plan: 2 x assigned" in err and "; probes drawn with secret lab3\n" in err
    plan, err = _header(monkeypatch, capsys, [])  # none given: a fresh one, said
    assert re.search(r"; probes drawn with secret [0-9a-f]{16}\n", err)
    assert plan.secret != "lab3" and plan.secret in err
    (tmp_path / "p.toml").write_text("probes = 3\n")
    plan, err = _header(monkeypatch, capsys, ["--plan", "p.toml", "--probe-secret", "lab3"])
    assert tuple(s.settings for s in plan.settings[1:]) == pl.draw_probes("lab3", 3)


def test_a_secret_for_a_plan_that_draws_nothing_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.toml").write_text("runs = 1\n")
    code = main(["grade", "--run", str(PROGRAM), *GAME, "--plan", "p.toml", "--probe-secret",
                 "lab3"])
    err = capsys.readouterr().err
    assert code == 2 and "--probe-secret draws probe settings, but the run plan asks for none" \
        in err


def test_help_names_the_probe_secret(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["grade", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--probe-secret TEXT With --run: the secret the probe settings are drawn from" in text


def test_a_program_that_cannot_run_reads_fail_everywhere(tmp_path, monkeypatch, capsys):
    """One word per outcome: the gradebook's verdict, the terminal table and the student's line
    on stderr all say fail for a program that could not run (its reason beside it)."""
    if not _has_sandbox():
        pytest.skip("no sandbox or no /usr/bin/python3 here")
    monkeypatch.chdir(tmp_path)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "learn.py").write_text("import sys\nsys.exit('no tables today')\n")
    (tmp_path / "plan.toml").write_text("runs = 1\n")
    code = main(["grade", "--run", str(broken), *GAME, "--plan", "plan.toml", "--input",
                 "argv: {sides} {low} {high} {dice} {m} {games}", "--cache",
                 str(tmp_path / "cache"), "--out", "book.csv", "--python", "system"])
    captured = capsys.readouterr()
    assert code == 1, captured.err  # none of the programs could be graded
    book = (tmp_path / "book.csv").read_text().splitlines()
    assert book[1].startswith("broken,error,") and ",fail," in book[1]
    row = next(line for line in captured.out.splitlines() if line.startswith("broken"))
    assert " fail " in row and "error: " in row
    line = next(x for x in captured.err.splitlines() if x.startswith("broken: "))
    assert ", fail (error: " in line
    assert "unreadable" not in captured.out + line
