"""compare.metrics for protocol games: learned_metrics of optimal and uniform play, of the
handout's Solution (through its per-row view) equal to those of the generic solver's, and
compare_game: a saved run and a run learned now give the metrics learned_metrics computes, as
text and JSON (`dicejack compare --game`). (The handout's tables: test_compare.py.)"""

from __future__ import annotations

import json

import numpy as np
import pytest

from dicejack import solver
from dicejack.cli import main
from dicejack.compare.metrics import compare_game, learned_metrics
from dicejack.formats.learner_runs import save_learner_run
from dicejack.games import HandoutGame, Pig, enumerate_game
from dicejack.games.handout_rules import Game
from dicejack.learners import learn
from dicejack.solver.generic import game_exploitability, uniform_policy
from tests.solver.test_generic_random import RandomGame


@pytest.fixture(scope="module")
def solution():
    return solver.solve(enumerate_game(Pig(goal=10)))


def test_metrics_of_optimal_and_uniform_play():
    game = RandomGame(3)
    sol = solver.solve(game)
    best = sol.best.copy()
    perfect = learned_metrics(sol, best, sol.values)
    assert perfect["agreement_all"] == 1.0 and perfect["value_rmse"] == 0.0
    assert abs(perfect["exploitability"]) <= 1e-10 and abs(perfect["score_vs_optimal"]) <= 1e-10
    nothing = learned_metrics(sol, np.full(sol.space.n_states, -1))
    assert nothing["states_with_data"] == 0 and nothing["agreement_all"] == 0.0
    assert abs(nothing["exploitability"]
               - game_exploitability(sol.space, uniform_policy(sol.space))) <= 1e-12



def test_the_handout_solution_is_measured_as_the_generic_one():
    """learned_metrics of the handout engines' Solution (its per-row view) equals that of the
    generic solver's GameSolution of HandoutGame (the same game, enumerated the same way)."""
    game = Game(4, 8, 9, 3)
    tables = solver.solve(game)
    ref = solver.solve(enumerate_game(HandoutGame.from_game(game)))
    rng = np.random.default_rng(5)
    best = np.where(ref.space.terminal, -1, ref.space.row_start[:-1])  # always one die ...
    some = rng.random(ref.space.n_states) < 0.5
    best = np.where(some & ~ref.space.terminal, ref.best, best)  # ... or the optimal row
    value = ref.values + rng.normal(0, 0.01, ref.space.n_states)
    got, want = learned_metrics(tables, best, value), learned_metrics(ref, best, value)
    assert got.keys() == want.keys() and got["agreement_all"] < 1.0
    for key in want:
        assert got[key] == pytest.approx(want[key], abs=1e-12), key
    assert compare_game(tables, _Tables(best, value), "x").metrics == got


class _Tables:
    def __init__(self, best, value):
        self.best, self.value = best, value


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
