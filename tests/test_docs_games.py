"""docs/games.md stays true: its game file is the file the commands run, its commands print
what it quotes, and its Python runs and prints what its comments say."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest

from dicejack.cli import main

DOC = Path(__file__).resolve().parent.parent / "docs" / "games.md"
TEXT = DOC.read_text()


def blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", TEXT, flags=re.M | re.S)


@pytest.fixture
def race_folder(tmp_path, monkeypatch):
    """The doc's own game file, saved as race.py in the current folder (importable)."""
    game = blocks("python")[0]
    assert "class Race" in game and len(game.splitlines()) <= 45
    (tmp_path / "race.py").write_text(game)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("race", None)


@pytest.mark.parametrize("index", [0, 1])
def test_the_commands_print_what_the_doc_quotes(race_folder, capsys, index):
    console = blocks("console")[index]
    command, *expected = console.splitlines()
    assert command.startswith("$ dicejack ")
    code = main(shlex.split(command)[2:])
    out = capsys.readouterr().out
    assert code == 0
    assert out.splitlines() == expected


def test_the_python_runs_and_prints_what_it_says(race_folder, capsys):
    code = blocks("python")[1]
    exec(compile(code, str(DOC), "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    said = [line.split("# ", 1)[1].strip() for line in code.splitlines()
            if line.startswith("print(") and "# " in line]
    assert printed == said


def test_the_report_command_writes_the_folder_the_doc_names(race_folder):
    """The doc's own game file with `dicejack report` (the issue's "works with report")."""
    command = next(b.strip() for b in blocks("") if b.startswith("dicejack report --game race"))
    assert main(shlex.split(command)[1:] + ["--workers", "1"]) == 0
    out = race_folder / "reports" / "race-goal10-learners"
    for name in ("report.md", "report.html", "metrics.csv", "metrics.json", "timing.json",
                 "figures/convergence.png", "figures/convergence.csv"):
        assert (out / name).is_file(), name
    text = (out / "report.md").read_text()
    assert "race goal=10" in text and "| q-learning |" in text
    assert not (out / "figures" / "policy.png").exists()  # no score axes: tables


def test_the_openspiel_and_pettingzoo_block_runs():
    pytest.importorskip("pyspiel")
    pytest.importorskip("pettingzoo")
    code = next(b for b in blocks("python") if "import dicejack.envs.openspiel" in b)
    namespace: dict = {}
    exec(compile(code, str(DOC), "exec"), namespace)
    assert namespace["game"].get_type().short_name == "python_dicejack_pig_goal_10_die_6"
    assert namespace["env"].unwrapped.action_labels == ["roll", "hold"]
