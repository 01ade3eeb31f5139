"""Replay files (`dicejack learn --replay FILE`): games whose dice a student gives, to follow the
handout's computation move by move on their own numbers.

One game per line, the faces of each roll separated by ``|`` (players A and B alternate, A
first); faces within a roll by spaces or commas. A line ``WinCount[X,Y,J] = N`` (or
``LoseCount``; ``(X,Y,J)`` as the handout also writes) sets a count before the next game; the
counts start empty and each game updates them. ``#`` starts a comment; blank lines are skipped::

    # the handout's Game 3, then its Game 1
    3 4 | 1 4 | 2 5 | 3 5 | 1
    5 6 | 3 4 | 5 5
    # a state with counts of its own
    WinCount[2,3,2] = 3
    LoseCount[2,3,2] = 1

:func:`parse_replay` reads the text into :class:`~dicejack.learners.handout.trace.CountSetting`
and :class:`~dicejack.learners.handout.trace.ScriptedGame` steps (the game checks them when it
plays them: :func:`~dicejack.learners.handout.trace.replay_script`); :func:`read_replay` a file.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from dicejack.formats import FormatError
from dicejack.formats.escape import safe_text
from dicejack.learners.handout.trace import CountSetting, ScriptedGame

__all__ = ["REPLAY_BYTES_LIMIT", "REPLAY_GAMES_LIMIT", "parse_replay", "read_replay"]

#: Largest replay file read: a hand-written script is a few lines.
REPLAY_BYTES_LIMIT = 1 << 20
#: Most games in one replay file (each is printed move by move).
REPLAY_GAMES_LIMIT = 1000

_COUNT = re.compile(r"(WinCount|LoseCount)\s*[\[(]\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*[\])]"
                    r"\s*=\s*(\d+)", re.IGNORECASE)
_EXAMPLE = "e.g. 3 4 | 1 4 | 2 5 | 3 5 | 1 or WinCount[2,3,2] = 3"


#: Most digits of a state, J or count in a count line (the game checks the values; a longer
#: number is refused here, before int() of thousands of digits).
_COUNT_DIGITS = 18


def _count(match: re.Match[str], line: int) -> CountSetting:
    table = "WinCount" if match.group(1).lower() == "wincount" else "LoseCount"
    numbers = [match.group(i) for i in range(2, 6)]
    longest = max(len(n) for n in numbers)
    if longest > _COUNT_DIGITS:
        raise FormatError(f"line {line}: {table} has a number of {longest:,} digits (at most "
                          f"{_COUNT_DIGITS}; {_EXAMPLE})")
    x, y, j, value = (int(n) for n in numbers)
    return CountSetting(table, x, y, j, value, line)


def _game(text: str, line: int) -> ScriptedGame:
    rolls = []
    for i, part in enumerate(text.split("|"), 1):
        faces = [v for v in re.split(r"[,\s]+", part) if v]
        if not faces or not all(v.isascii() and v.isdigit() and len(v) <= 6 for v in faces):
            what = (f"is '{safe_text(part.strip()[:40])}', not the faces rolled"
                    if part.strip() else "is empty")
            raise FormatError(f"line {line}: roll {i} {what} ({_EXAMPLE})")
        rolls.append(tuple(int(v) for v in faces))
    return ScriptedGame(tuple(rolls), line)


def parse_replay(text: str) -> list[CountSetting | ScriptedGame]:
    """The steps of a replay file's text, in order; FormatError naming the line for a line
    that is neither a game nor a count."""
    steps: list[CountSetting | ScriptedGame] = []
    games = 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        match = _COUNT.fullmatch(line)
        if match is not None:
            steps.append(_count(match, number))
            continue
        if line[:1].isalpha():
            raise FormatError(f"line {number}: '{safe_text(line[:40])}' is neither a game nor a "
                              f"count ({_EXAMPLE})")
        steps.append(_game(line, number))
        games += 1
        if games > REPLAY_GAMES_LIMIT:
            raise FormatError(f"line {number}: more than {REPLAY_GAMES_LIMIT:,} games in one "
                              "replay file")
    return steps


def read_replay(path: str | os.PathLike[str]) -> list[CountSetting | ScriptedGame]:
    """The steps of the replay file at `path` (UTF-8, a BOM allowed, at most
    :data:`REPLAY_BYTES_LIMIT` bytes); FormatError naming the file."""
    path = Path(path)
    name = safe_text(os.fspath(path))
    try:
        mode = path.stat().st_mode
        if stat.S_ISDIR(mode):
            raise FormatError(f"{name} is a folder, not a replay file")
        if not stat.S_ISREG(mode):  # a FIFO or device would block or never end
            raise FormatError(f"{name} is not a regular file")
        with open(path, "rb") as f:
            data = f.read(REPLAY_BYTES_LIMIT + 1)
    except OSError as exc:
        raise FormatError(f"cannot read {name}: {exc.strerror or exc}") from None
    if len(data) > REPLAY_BYTES_LIMIT:
        raise FormatError(f"{name} is larger than {REPLAY_BYTES_LIMIT:,} bytes: not a replay "
                          "file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise FormatError(f"{name} is not UTF-8 text") from None
    try:
        return parse_replay(text)
    except FormatError as exc:
        raise FormatError(f"{name} {exc}") from None
