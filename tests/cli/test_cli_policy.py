"""dicejack compare --policy MODULE:NAME: a policy in Python measured exactly from the command
line, the same numbers as compare.compare in Python; bad specs and failing policies are one-line
errors with exit code 2."""

from __future__ import annotations

import json
import sys

import pytest

from dicejack import compare
from dicejack.cli import main
from tests.games import SMALL

AGENT = '''
def choose(x, y):
    return 1 if x >= 5 else 2

def broken(x, y):
    return 1 / 0

def floaty(x, y):
    return 1.5

TABLE = [[1] * 8 for _ in range(8)]
'''
GAME_ARGS = ["--sides", "4", "--low", "8", "--high", "9", "--dice", "2"]


@pytest.fixture
def agent_folder(tmp_path, monkeypatch):
    (tmp_path / "my_agent.py").write_text(AGENT)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # --policy puts the folder on the path
    yield tmp_path
    sys.modules.pop("my_agent", None)


@pytest.fixture
def run_cli(capsys):
    def run(*args: str) -> tuple[int, str, str]:
        code = main(list(args))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


@pytest.mark.parametrize("spec", ["my_agent:choose", "my_agent.py:choose"])
def test_a_policy_callable_gives_the_librarys_numbers(agent_folder, run_cli, spec):
    code, out, err = run_cli("compare", "--policy", spec, *GAME_ARGS, "--format", "json")
    assert code == 0, err
    got = json.loads(out)
    want = compare.compare(SMALL, None, lambda x, y: 1 if x >= 5 else 2)
    for name, value in want.metrics.items():
        if value == value:  # NaN: the probability metrics of a policy alone
            assert got["metrics"][name] == pytest.approx(value, abs=1e-12), name
        else:
            assert got["metrics"][name] is None, name
    assert got["source"] == spec


def test_a_policy_table_object_works_too(agent_folder, run_cli):
    code, out, err = run_cli("compare", "--policy", "my_agent:TABLE", *GAME_ARGS)
    assert code == 0, err
    assert "rmse_onpath                 n/a" in out and "exploitability" in out


@pytest.mark.parametrize(("spec", "message"), [
    ("my_agent:broken", "the policy raised ZeroDivisionError at <0,0>: division by zero"),
    ("my_agent:floaty", "the policy returned 1.5 at <0,0>"),
    ("my_agent:missing", "--policy: my_agent has no missing"),
    ("no_such_module:f", "--policy: importing no_such_module failed: ModuleNotFoundError"),
    ("absent.py:f", "--policy: no file absent.py"),
])
def test_bad_policies_are_one_line_errors(agent_folder, run_cli, spec, message):
    code, out, err = run_cli("compare", "--policy", spec, *GAME_ARGS)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err, err
