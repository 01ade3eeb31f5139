"""docs/ecosystem.md: every Python block runs, in order, in one namespace, on a smaller game
with fewer episodes, simulations and games (the doc quotes the full sizes)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("pyspiel")
pytest.importorskip("pettingzoo")

ROOT = Path(__file__).resolve().parent.parent
#: (text in the doc, what the test runs instead)
SMALLER = (
    ("game = Game(n_sides=6, low=15, high=17, n_dice=2)",
     "game = Game(n_sides=3, low=6, high=7, n_dice=2)"),
    ('"python_dicejack(sides=6,low=15,high=17,dice=2)"',
     '"python_dicejack(sides=3,low=6,high=7,dice=2)"'),
    ("episodes = 20_000", "episodes = 1_000"),
    ("simulations = 100", "simulations = 10"),
    ("games = 20_000", "games = 300"),
)


def blocks() -> list[str]:
    text = (ROOT / "docs" / "ecosystem.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, re.S)


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
    random_games = re.search(r"player_0 won ([0-9.]+) of 300 random games; exact ([0-9.]+)", out)
    assert random_games and abs(float(random_games[1]) - float(random_games[2])) < 0.1
