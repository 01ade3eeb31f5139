"""docs/ecosystem.md: every Python block runs, in order, in one namespace. At the doc's own sizes
(slow: about a minute) each block's output equals, character for character, the output quoted
under it (every random process in them is seeded); on a smaller game with fewer episodes,
simulations and games (the fast lane) the blocks run and their numbers hang together."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

pytest.importorskip("pyspiel")
pytest.importorskip("pettingzoo")

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "ecosystem.md"
#: A Python block, then "Output (...):" and the block of what it prints.
BLOCK_AND_OUTPUT = re.compile(r"```python\n(.*?)```\n\nOutput[^\n]*:\n\n```\n(.*?)```", re.S)
#: (text in the doc, what the fast test runs instead)
SMALLER = (
    ("game = Game(n_sides=6, low=15, high=17, n_dice=2)",
     "game = Game(n_sides=3, low=6, high=7, n_dice=2)"),
    ('"python_dicejack(sides=6,low=15,high=17,dice=2)"',
     '"python_dicejack(sides=3,low=6,high=7,dice=2)"'),
    ("episodes = 20_000", "episodes = 1_000"),
    ("simulations = 100", "simulations = 10"),
    ("games = 20_000", "games = 300"),
    ("games = 10_000", "games = 300"),
)


def blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)


def test_every_block_is_followed_by_its_quoted_output():
    pairs = BLOCK_AND_OUTPUT.findall(DOC.read_text())
    assert len(pairs) == len(blocks()) == 5


@pytest.mark.slow
def test_every_block_prints_exactly_the_output_quoted_under_it():
    namespace: dict = {}
    for code, quoted in BLOCK_AND_OUTPUT.findall(DOC.read_text()):
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(code, "docs/ecosystem.md", "exec"), namespace)  # noqa: S102
        assert printed.getvalue() == quoted, code.splitlines()[0]


def test_the_walk_through_runs_and_measures_each_agent(capsys):
    code = "\n".join(blocks())
    for old, new in SMALLER:
        assert old in code, old
        code = code.replace(old, new)
    namespace: dict = {}
    exec(compile(code, "docs/ecosystem.md", "exec"), namespace)  # noqa: S102
    out = capsys.readouterr().out
    value = re.search(r"value of the start ([-0-9.]+), dicejack 2P\*\(0,0\) - 1 = ([-0-9.]+)", out)
    assert value and float(value[1]) == pytest.approx(float(value[2]), abs=1e-9)
    for who in ("Q-learner seat 0", "Q-learner seat 1", "MCTS (10 simulations a move)"):
        line = re.search(re.escape(who) + r".*exploitability ([0-9.]+)", out)
        assert line and 0.0 <= float(line[1]) <= 1.0, out
    pair = re.search(r"exploitability ([0-9.]+) = dos.exploitability ([0-9.]+)", out)
    assert pair and pair[1] == pair[2], out
    random_games = re.search(r"player_0 won ([0-9.]+) of 300 random games; exact ([0-9.]+)", out)
    assert random_games and abs(float(random_games[1]) - float(random_games[2])) < 0.1
    for agent in ("player_0", "player_1"):
        line = re.search(agent + r", .*mean reward ([-+0-9.]+) over 300 games; exact 2P - 1 = "
                         r"([-+0-9.]+)", out)
        assert line and abs(float(line[1]) - float(line[2])) < 0.25, out
