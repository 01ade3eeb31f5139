"""compare for protocol games: a saved run and a run learned now give the metrics
solver.generic_metrics computes, as text and JSON (`dicejack compare --game`)."""

from __future__ import annotations

import json

import pytest

from dicejack.cli import main
from dicejack.compare.games import compare_game
from dicejack.formats.learner_runs import save_learner_run
from dicejack.games import Pig, enumerate_game
from dicejack.learners import learn
from dicejack.solver.generic import solve_game
from dicejack.solver.generic_metrics import learned_metrics


@pytest.fixture(scope="module")
def solution():
    return solve_game(enumerate_game(Pig(goal=10)))


def test_compare_game_is_learned_metrics(solution):
    run = learn(Pig(goal=10), "mc-exploring-starts", 500, seed=4)
    result = compare_game(solution, run.final, "here")
    assert result.metrics == learned_metrics(solution, run.final.best, run.final.value)
    doc = result.as_dict()
    assert doc["params"] == {"goal": 10, "die": 6} and doc["source"] == "here"
    text = result.text()
    assert text.startswith("learned: here\ngame: pig goal=10 die=6")
    assert f"  exploitability       {result.metrics['exploitability']:.6f}" in text


def test_cli_compare_a_saved_run_and_a_learned_one(tmp_path, capsys, solution):
    run = learn(Pig(goal=10), "q-learning", 300, seed=2)
    save_learner_run(tmp_path / "r.npz", run)
    game = ["--game", "pig", "--game-param", "goal=10"]
    assert main(["compare", *game, str(tmp_path / "r.npz"), "--format", "json"]) == 0
    saved = json.loads(capsys.readouterr().out)
    want = learned_metrics(solution, run.final.best, run.final.value)
    assert saved["metrics"]["exploitability"] == pytest.approx(want["exploitability"], abs=0)
    assert main(["compare", *game, "--learner", "q-learning", "--games", "300", "--seed", "2",
                 "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["metrics"] == saved["metrics"]


@pytest.mark.parametrize("args, message", [
    (["--game", "pig", "--sides", "4", "--learner", "q-learning"], "--sides does not apply"),
    (["--game", "pig"], "give SOURCE"),
    (["--learner", "mc-exploring-starts"], "learns protocol games"),
    (["--game", "pig", "--policy", "a.py:f"], "--policy does not apply"),
])
def test_cli_compare_game_refusals(args, message, capsys):
    assert main(["compare", *args]) == 2
    assert message in capsys.readouterr().err
