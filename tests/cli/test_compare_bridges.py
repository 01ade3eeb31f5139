"""dicejack compare --policy: a 0-based policy is refused naming --zero-based (the option that
exists here), read as 0-based with it; the best response's win probability in each seat is in
the text and the JSON (issue 37, findings 2 and 3)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dicejack import compare, solver
from dicejack.cli import main
from tests.games import SMALL

GAME_ARGS = ["--sides", "4", "--low", "8", "--high", "9", "--dice", "2"]


@pytest.fixture
def agent_file(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text("def f(x, y):\n    return 0\n\n"
                                   "def g(x, y):\n    return 1 if x >= 5 else 0\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path / "a.py"


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_policy_returning_0_is_refused_naming_the_option_that_exists(agent_file, capsys):
    code, out, err = run(capsys, "compare", "--policy", "a.py:f", *GAME_ARGS)
    assert code == 2 and out == ""
    assert err.startswith("error: the policy plays 0 dice at <0,0> (it returned 0), but J counts "
                          "from 1 (1..2): for a 0-based policy (actions 0..1, J = action + 1) "
                          "add --zero-based"), err
    assert "zero_based=True" not in err and len(err.strip().splitlines()) == 1


def test_zero_based_reads_actions_and_gives_the_librarys_numbers(agent_file, capsys):
    code, out, err = run(capsys, "compare", "--policy", "a.py:g", "--zero-based", *GAME_ARGS,
                         "--format", "json")
    assert code == 0, err
    got = json.loads(out)
    want = compare.compare(SMALL, None, lambda x, y: 2 if x >= 5 else 1)
    assert got["metrics"]["exploitability"] == pytest.approx(want.metrics["exploitability"])
    br = solver.best_response(SMALL, lambda x, y: 2 if x >= 5 else 1)
    assert got["best_response"] == pytest.approx({"first": br.first, "second": br.second})
    assert br.first + br.second - 1 == pytest.approx(got["metrics"]["exploitability"])


def test_the_text_shows_the_best_responses_value_in_each_seat(agent_file, capsys):
    code, out, err = run(capsys, "compare", "--policy", "a.py:g", "--zero-based", *GAME_ARGS)
    assert code == 0, err
    br = solver.best_response(SMALL, lambda x, y: 2 if x >= 5 else 1)
    sol = solver.solve(SMALL)
    assert (f"A best response wins {br.first:.6f} moving first and {br.second:.6f} moving "
            f"second (optimal play: {sol.p00:.6f} and {1 - sol.p00:.6f})") in out


def test_zero_based_only_with_policy(capsys):
    code, _, err = run(capsys, "compare", "--learner", "handout", "--zero-based", *GAME_ARGS)
    assert code == 2 and "--zero-based: only with --policy" in err


OPENSPIEL_AGENT = '''
import numpy as np
from open_spiel.python import policy as policy_lib

import dicejack.envs.openspiel as dos
from dicejack import solver
from dicejack.games.handout_rules import Game

GAME = Game(6, 15, 17, 2)
OS_GAME = dos.load(GAME)
optimal = dos.openspiel_policy(OS_GAME, solver.solve(GAME))
uniform = dos.tabular_policy(OS_GAME)
pair = dos.openspiel_policy(OS_GAME, np.ones(GAME.shape, dtype=int), np.full(GAME.shape, 2))
'''


def test_an_openspiel_policy_on_the_handouts_game_through_the_command_line(tmp_path, monkeypatch,
                                                                           capsys):
    """Finding 1: a module handing an OpenSpiel policy on the handout's game returns at once
    (dicejack's bridges build the 450 decision states, never a walk of every history); a seat
    pair is refused naming functions that exist."""
    pytest.importorskip("pyspiel")
    (tmp_path / "os_agent.py").write_text(OPENSPIEL_AGENT)
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "compare", "--policy", "os_agent.py:optimal", "--format", "json")
    assert code == 0, err
    got = json.loads(out)
    assert got["metrics"]["agreement_all"] == 1.0
    assert got["metrics"]["exploitability"] == pytest.approx(0.0, abs=1e-12)
    code, out, err = run(capsys, "compare", "--policy", "os_agent.py:uniform", "--format", "json")
    assert code == 0, err
    from tests.games import HANDOUT

    assert json.loads(out)["metrics"]["exploitability"] == pytest.approx(
        solver.exploitability(HANDOUT, np.full(HANDOUT.shape, -1)), abs=1e-12)
    code, out, err = run(capsys, "compare", "--policy", "os_agent.py:pair")
    assert code == 2 and "plays differently as player 0 and player 1" in err
    assert "dicejack.envs.openspiel.seat_values(os_game, policy)" in err and "pass seat" not in err
