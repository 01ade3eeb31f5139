"""Tests of dicejack.formats.tables: the handout's text tables and what solve and learn write.

Run files (.npz save, load, resume, corrupt files) are tested with the learner in
tests/learners/handout/test_learning.py, and the JSON keys of `solve` with the command line in
tests/cli/test_cli.py.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from dicejack import solver
from dicejack.formats.submission import read_submission_text
from dicejack.formats.tables import (
    format_table,
    learn_csv,
    learn_json,
    learn_text,
    read_params_header,
    save_solution_npz,
    solution_csv,
    solution_json,
    solution_text,
)
from dicejack.games.handout_rules import Game
from dicejack.learners import handout
from dicejack.learners.handout import trace

SMALL = Game(n_sides=4, low=5, high=6, n_dice=2)


def test_format_table_layout() -> None:
    text = format_table(np.array([[1, 2], [0, 2]]), "Best dice:", kind="int")
    assert text.splitlines() == ["Best dice:", "X\\Y | 0 1", "---------", "  0 | 1 2", "  1 | 0 2"]
    text = format_table(np.array([[0.5, -1.0], [1.0, 0.25]]), "P:", decimals=2)
    assert text.splitlines()[1:] == [
        "X\\Y |    0    1", "---------------", "  0 | 0.50   -1", "  1 | 1.00 0.25",
    ]


def test_params_header_round_trip() -> None:
    sol = solver.solve(SMALL)
    run = handout.learn(SMALL, 10.0, 200, seed=1)
    for text in (solution_text(sol), learn_text(run)):
        assert read_params_header(text) == SMALL.params()
    assert read_params_header("NSides=6, LTarget=15; UTarget=17 NDice=2") == {
        "n_sides": 6, "low": 15, "high": 17, "n_dice": 2,
    }
    assert read_params_header("no header here") is None


def test_printed_tables_read_back_as_a_submission() -> None:
    """What `solve` and `learn` print is a submission the reader understands."""
    sol = solver.solve(SMALL)
    sub = read_submission_text(solution_text(sol), SMALL.low, SMALL.n_dice)
    assert np.array_equal(sub.policy, sol.best) and sub.flags == ()
    assert np.allclose(sub.probability, sol.p, atol=5e-5)
    run = handout.learn(SMALL, 10.0, 200, seed=1)
    best, prob = run.tables
    sub = read_submission_text(learn_text(run), SMALL.low, SMALL.n_dice)
    assert np.array_equal(sub.policy, best) and np.array_equal(sub.no_data, prob == -1)


def test_solution_csv_and_npz(tmp_path) -> None:
    sol = solver.solve(SMALL, exact=True)
    lines = solution_csv(sol).splitlines()
    assert lines[0] == "x,y,best_dice,optimal_dice,win_probability,gap,q1,q2"
    assert len(lines) == 1 + SMALL.low**2 and lines[1].startswith("0,0,")
    data = json.loads(solution_json(sol))
    assert data["p00_exact"] == str(sol.p00_exact) and data["params"] == SMALL.params()
    path = tmp_path / "solution.npz"
    save_solution_npz(path, sol)
    with np.load(path) as npz:
        assert str(npz["kind"]) == "dicejack-solution"
        assert json.loads(str(npz["params"])) == SMALL.params()
        assert np.array_equal(npz["best"], sol.best) and np.array_equal(npz["q"], sol.q)
        assert str(npz["p00_exact"]) == str(sol.p00_exact)


def test_learn_json_and_csv() -> None:
    run = handout.learn(SMALL, 10.0, 300, seed=2)
    data = json.loads(learn_json(run))
    assert data["games"] == 300 and data["seed"] == 2 and data["win_count"] == run.win.tolist()
    lines = learn_csv(run).splitlines()
    assert lines[0] == "x,y,best_dice,win_probability,win1,win2,lose1,lose2"
    assert len(lines) == 1 + SMALL.low**2


def test_trace_text_is_in_the_handouts_words() -> None:
    traced = trace.trace(SMALL, 10.0, 2, seed=4)
    lines = trace.trace_text(traced).splitlines()
    assert lines[0] == "Game 1:" and lines[1].startswith("Player A rolls ")
    assert lines[1].endswith(".") and "Game 2:" in lines
    last = [line for line in lines if line.endswith(("wins.", "loses."))]
    assert len(last) == 2


@pytest.mark.parametrize("kind", ["int", "float"])
def test_format_table_is_a_handout_layout(kind: str) -> None:
    table = np.arange(9).reshape(3, 3) if kind == "int" else np.full((3, 3), 0.125)
    text = format_table(table, "T", kind=kind)
    assert text.endswith("\n") and len(text.splitlines()) == 3 + 3
