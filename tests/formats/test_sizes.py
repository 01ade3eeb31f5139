"""Tests of dicejack.formats.sizes: the estimates are upper bounds of what is then written. The
estimates of `solve` and the handout's `learn` are held to the real outputs in tests/cli/test_cli.py
(test_size_estimates_are_close_upper_bounds); here, those of any bundled learner's run."""

from __future__ import annotations

import pytest

from dicejack import formats, learners
from dicejack.formats import FormatError
from dicejack.formats.json_output import json_text
from dicejack.formats.sizes import learner_run_bytes, run_bytes, solution_bytes
from dicejack.formats.tables import run_csv, run_dict, run_text
from dicejack.games.handout_rules import Game

GAME = Game(6, 60, 65, 4)


@pytest.mark.parametrize("name", ["q-learning", "ucb"])
def test_learner_run_estimates_are_upper_bounds(tmp_path, name) -> None:
    games, marks = 3000, (300, 1000, 3000)
    run = learners.learn(GAME, name, games, 7, checkpoints=marks)
    printed = {
        "text": run_text(run),
        "json": json_text(run_dict(run), compact=True),  # as `learn` prints it
        "csv": run_csv(run),
    }
    for fmt, text in printed.items():
        actual = len(text.encode())
        assert actual <= learner_run_bytes(GAME, fmt, games) <= 4 * actual + 2**16, fmt
    formats.save_learner_run(tmp_path / "run.npz", run)
    actual = (tmp_path / "run.npz").stat().st_size  # compressed: the estimate bounds it
    assert actual <= learner_run_bytes(GAME, "npz", games, len(marks))


def test_unknown_formats_are_one_line_errors() -> None:
    with pytest.raises(FormatError, match="^unknown solution format 'xml'$"):
        solution_bytes(GAME, "xml")
    for estimate in (run_bytes, learner_run_bytes):
        with pytest.raises(FormatError, match="^unknown run format 'parquet'$"):
            estimate(GAME, "parquet", 10)
