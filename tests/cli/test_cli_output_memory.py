"""`learn` and `solve` refuse an output the memory cannot hold before the work (issue 39): a
one-line error, exit 2; JSON printed a row at a time is not refused."""

from __future__ import annotations

import json

import pytest

from dicejack.cli import main
from dicejack.formats import sizes


@pytest.fixture
def little_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sizes, "available_memory_bytes", lambda: 100_000)


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("command", [["learn", "--games", "50"], ["solve"]])
def test_an_output_built_whole_is_refused_by_its_memory(capsys, little_memory, command) -> None:
    code, out, err = run(capsys, *command, "--low", "40", "--high", "44", "--format", "csv")
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1
    assert "of memory to write" in err and "a row at a time" in err


@pytest.mark.parametrize("command", [["learn", "--games", "50"], ["solve"]])
def test_json_printed_a_row_at_a_time_is_not(capsys, little_memory, command) -> None:
    code, out, _ = run(capsys, *command, "--low", "40", "--high", "44", "--format", "json")
    assert code == 0
    assert len(json.loads(out)["best_dice"]) == 40
