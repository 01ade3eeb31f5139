"""Replay files: games and counts read line by line, anything else a one-line error."""

from __future__ import annotations

import os

import pytest

from dicejack import formats
from dicejack.formats.replay import parse_replay, read_replay
from dicejack.learners.handout.trace import CountSetting, ScriptedGame


def test_games_and_counts_in_the_ways_people_write_them():
    text = ("\ufeff# Game 3\n3 4 | 1 4 | 2 5 | 3 5 | 1   # A wins\n\n"
            "WinCount(2,3,2)=3\n  losecount[ 2 , 3 , 1 ] = 12\n5,6|3,4|5 5\r\n")
    assert parse_replay(text.lstrip("\ufeff")) == [
        ScriptedGame(((3, 4), (1, 4), (2, 5), (3, 5), (1,)), 2),
        CountSetting("WinCount", 2, 3, 2, 3, 4),
        CountSetting("LoseCount", 2, 3, 1, 12, 5),
        ScriptedGame(((5, 6), (3, 4), (5, 5)), 6),
    ]


def test_a_file_is_read_as_utf8_with_or_without_bom(tmp_path):
    path = tmp_path / "g.txt"
    path.write_bytes(b"\xef\xbb\xbf3 4 | 1 4 | 2 5 | 3 5 | 1\n")
    assert read_replay(path) == [ScriptedGame(((3, 4), (1, 4), (2, 5), (3, 5), (1,)), 1)]


@pytest.mark.parametrize("data, message", [
    (b"3 4 | -1\n", "line 1: roll 2 is '-1', not the faces rolled"),
    (b"3 4 | 1.5\n", "line 1: roll 2 is '1.5', not the faces rolled"),
    (b"WinCount[2,3] = 1\n", "line 1: 'WinCount[2,3] = 1' is neither a game nor a count"),
    (b"3 4 | 1 4\xff\n", "is not UTF-8 text"),
    (b"3 " * (1 << 20), "is larger than 1,048,576 bytes"),
    (b"1 | 1\n" * 1001, "line 1001: more than 1,000 games in one replay file"),
    (b"\x1b[31m3 4 | x\n", "roll 1 is '\\x1b[31m3 4'"),
])
def test_bad_files_are_one_line_errors_naming_file_and_line(tmp_path, data, message):
    path = tmp_path / "g.txt"
    path.write_bytes(data)
    with pytest.raises(formats.FormatError) as info:
        read_replay(path)
    text = str(info.value)
    assert text.startswith(f"{path} ") and message in text and "\n" not in text
    assert "\x1b" not in text  # a terminal escape is shown, never sent


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(formats.FormatError, match="is not a regular file"):
        read_replay(fifo)


@pytest.mark.parametrize("line", ["WinCount[2,3,2] = " + "9" * 5000,
                                  "LoseCount[" + "1" * 5000 + ",3,2] = 3",
                                  "WinCount(2,3," + "7" * 19 + ") = 1"])
def test_a_count_of_thousands_of_digits_is_a_one_line_error(tmp_path, capsys, line):
    """Issue 39: `learn --replay` with a 5,000-digit count ended in a traceback."""
    from dicejack.cli import main

    with pytest.raises(formats.FormatError,
                       match=r"^line 1: (Win|Lose)Count has a number of [\d,]+ digits "
                             r"\(at most 18;"):
        parse_replay(line + "\n3 4 | 1 4\n")
    path = tmp_path / "replay.txt"
    path.write_text(line + "\n3 4 | 1 4\n")
    assert main(["learn", "--replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "digits" in err
