"""The command line: thin wrappers, one-line errors with exit code 2, every command documented."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from dicejack import solver
from dicejack.cli import app, main
from dicejack.game import Game


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_every_command_is_documented_with_an_example(capsys):
    import typer.main

    group = typer.main.get_command(app)
    assert group.commands, "no commands registered"
    for name, command in group.commands.items():
        assert command.help and "Example" in command.help, f"`dicejack {name}` lacks an example"
        code, out, _ = run(capsys, name, "--help")
        assert code == 0 and "Usage" in out


def test_solve_text_prints_both_tables_and_p00(capsys):
    code, out, err = run(capsys, "solve", "--sides", "6", "--low", "15", "--high", "17")
    assert code == 0 and err == ""
    assert "Best number of dice" in out and "Win probability" in out
    assert "P[0,0]" in out and "0.576272956998" in out
    rows = [line for line in out.splitlines() if line.strip().startswith("14 |")]
    assert len(rows) == 2


def test_solve_json_has_the_design_keys(capsys):
    code, out, _ = run(capsys, "solve", "--sides", "2", "--low", "2", "--high", "2", "--dice", "1",
                       "--exact", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert list(data) == ["params", "win_probability", "best_dice", "optimal_dice", "q", "gap",
                          "p00", "p00_exact", "method", "sweeps"]
    assert data["params"] == {"n_sides": 2, "low": 2, "high": 2, "n_dice": 1}
    assert data["p00_exact"] == "5/8" and data["p00"] == 0.625
    assert data["gap"] == [[None, None], [None, None]]
    assert data["optimal_dice"][0][0] == [1]
    assert np.array(data["q"]).shape == (2, 2, 2)


def test_solve_value_iteration_json_and_csv(capsys, tmp_path):
    out_path = tmp_path / "sol.json"
    code, _, err = run(capsys, "solve", "--method", "value-iteration", "--format", "json",
                       "--out", str(out_path))
    assert code == 0 and "wrote" in err
    data = json.loads(out_path.read_text())
    assert data["method"] == "value-iteration" and data["sweeps"] > 1
    assert data["p00_exact"] is None
    code, out, _ = run(capsys, "solve", "--format", "csv")
    lines = out.splitlines()
    assert lines[0] == "x,y,best_dice,optimal_dice,win_probability,gap,q1,q2"
    assert len(lines) == 1 + 15 * 15


def test_solve_npz_round_trip(capsys, tmp_path):
    path = tmp_path / "sol.npz"
    code, _, _ = run(capsys, "solve", "--format", "npz", "--out", str(path))
    assert code == 0
    with np.load(path) as data:
        expected = solver.solve(Game(6, 15, 17, 2))
        np.testing.assert_array_equal(data["q"], expected.q)
        assert json.loads(str(data["params"]))["low"] == 15


@pytest.mark.parametrize(
    "args, message",
    [
        (["solve", "--low", "0"], "low (LTarget) must be >= 1"),
        (["solve", "--low", "abc"], "--low"),
        (["solve", "--low", "20", "--high", "10"], "high (UTarget)"),
        (["solve", "--format", "npz"], "needs --out"),
        (["solve", "--out", "/nonexistent-dir/x.txt"], "does not exist"),
        (["solve", "--exact", "--low", "300", "--high", "310", "--dice", "6"], "too large"),
        (["solve", "--sides", "6", "--low", "40000", "--high", "40010", "--dice", "10"], "GiB"),
        (["solve", "--bogus"], "--bogus"),
        (["nosuchcommand"], "nosuchcommand"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, args, message):
    code, out, err = run(capsys, *args)
    assert code == 2
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert message in err
    assert "Traceback" not in err + out


# ------------------------------------------------------------------------------ start-up
_IMPORTS_AFTER = """
import sys
from dicejack.cli import main
code = main(sys.argv[1:])
heavy = ("numba", "llvmlite", "scipy", "matplotlib", "dask", "distributed", "rich")
print(code, " ".join(sorted(m for m in heavy if m in sys.modules)) or "-", "numpy" in sys.modules)
"""


def _heavy_imports(*args: str, cwd=None) -> tuple[int, str, bool]:
    """(exit code, heavy packages loaded, numpy loaded) after `dicejack ARGS` in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", _IMPORTS_AFTER, *args], capture_output=True, text=True, cwd=cwd,
        check=True,
    )
    code, heavy, numpy_loaded = done.stdout.split()[-3:]
    return int(code), heavy, numpy_loaded == "True"


def test_solve_and_compare_of_a_small_game_load_no_compiler_and_help_no_numpy(tmp_path):
    from dicejack import formats, learner

    assert _heavy_imports("solve") == (0, "-", True)
    assert _heavy_imports("solve", "--exact", "--format", "json") == (0, "-", True)
    formats.save_run_npz(tmp_path / "run.npz", learner.learn(Game(6, 15, 17, 2), 100.0, 200, 1))
    assert _heavy_imports("compare", "run.npz", cwd=tmp_path) == (0, "-", True)
    assert _heavy_imports("--help") == (0, "rich", False)  # typer draws help with rich
    assert _heavy_imports("solve", "--low", "abc") == (2, "-", False)  # usage error
