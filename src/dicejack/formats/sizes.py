"""How many bytes `solve` and `learn` will write, estimated before the work, so that a command can
ask before filling a disk (cli.common.confirm_large_outputs).

One estimate per kind of output, for every format it is written in (the layouts of tables.py and
learner_runs.py): a number of bytes per state of the game, from the characters (or bytes) each
value takes, plus headers. Upper estimates, close enough to ask in time. And the memory writing
an output takes (output_memory_bytes), checked against the memory available before the work
(check_output_memory): an output built whole needs a few times its size, JSON printed a row at a
time almost nothing.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from dicejack.formats import FormatError

if TYPE_CHECKING:  # pragma: no cover
    from dicejack.games.handout_rules import Game

__all__ = ["available_memory_bytes", "check_output_memory", "learner_run_bytes",
           "output_memory_bytes", "run_bytes", "solution_bytes"]

#: Characters of one float as JSON and CSV write it (repr, e.g. 0.5762729569978213) and a comma.
_FLOAT_CHARS = 20
#: Characters of one 4-decimal probability cell of a text table and its space.
_TEXT_PROB_CHARS = 7
#: Zip and .npy headers of a .npz, and the header lines of text: far below any size that matters.
_OVERHEAD_BYTES = 64 * 1024


def _digits(n: int) -> int:
    return len(str(max(int(n), 0)))


def _total(game: Game, per_state: dict[str, int], fmt: str, what: str) -> int:
    """`game`'s states times the bytes per state of `fmt`, plus headers; FormatError naming
    `what` ('solution', 'run') for a format not in `per_state`."""
    if fmt not in per_state:
        raise FormatError(f"unknown {what} format {fmt!r}")
    return game.states * per_state[fmt] + _OVERHEAD_BYTES


def solution_bytes(game: Game, fmt: str) -> int:
    """About how many bytes `solve --format FMT` writes for `game`, known before solving.

    npz: the arrays' bytes (uncompressed: compression is used only for small games); json, csv,
    text: from the characters each value takes (floats as 20), a close upper estimate.
    """
    k = game.n_dice
    j_cell = _digits(k) + 1
    per_state = {
        "npz": 9 * (k + 1) + 3 * 8,  # q float64 and optimal bool per J; p, best, gap
        "json": _FLOAT_CHARS * (k + 3) + 2 * j_cell + 2 * k + 4,  # p, q, gap; best, optimal
        "csv": _FLOAT_CHARS * (k + 2) + 2 * _digits(game.low) + 2 * j_cell + 2 * k + 2,
        "text": j_cell + _TEXT_PROB_CHARS + 2,
    }
    return _total(game, per_state, fmt, "solution")


def run_bytes(game: Game, fmt: str, games: int = 0, snapshots: int = 0) -> int:
    """About how many bytes a learner run of `games` games writes as FMT, known before learning.

    npz (`learn --out`): its win and lose tables and `snapshots` copies of them (int64, before
    compression: the file is smaller); json, csv, text (what `learn` prints): from the
    characters each value takes, counts as wide as `games`. An upper estimate.
    """
    k = game.n_dice
    j_cell, count = _digits(k) + 1, _digits(games) + 1
    per_state = {
        "npz": 2 * 8 * (k + 1) * (1 + snapshots),
        "json": 2 * count * (k + 1) + j_cell + _FLOAT_CHARS,
        "csv": 2 * count * k + 2 * _digits(game.low) + j_cell + _FLOAT_CHARS + 2,
        "text": j_cell + _TEXT_PROB_CHARS + 2,
    }
    return _total(game, per_state, fmt, "run")


def learner_run_bytes(game: Game, fmt: str, games: int = 0, snapshots: int = 0) -> int:
    """About how many bytes a run of any bundled learner writes as FMT, known before learning.

    npz (`learn --learner NAME --out`): a learner state of two (L, L, K+1) tables of 8-byte
    numbers and `snapshots` checkpoints of three LxL tables (before compression); json, csv,
    text (what `learn --learner NAME` prints), visits as wide as `games` moves per state can
    make them. An upper estimate.
    """
    k = game.n_dice
    j_cell = _digits(k) + 1
    visits = _digits(games * 2 * game.low) + 1  # a game makes at most 2L - 1 moves
    per_state = {
        "npz": 2 * 8 * (k + 1) + 3 * 8 * snapshots,
        "json": 2 * visits + j_cell + _FLOAT_CHARS,
        "csv": 2 * _digits(game.low) + j_cell + _FLOAT_CHARS + visits + 3,
        "text": j_cell + _TEXT_PROB_CHARS + 2,
    }
    return _total(game, per_state, fmt, "run")


#: Memory writing an output takes, per byte of it, when it is built whole before it is written:
#: the text (or JSON) string, its lines or pieces, its encoding (measured: `learn --format text`
#: of a 3500 x 3500 game, 135 MB, took 320 MB beside the tables).
_BUILT_WHOLE_FACTOR = 3


def output_memory_bytes(size: int, fmt: str, *, streamed: bool = False) -> int:
    """About how much memory writing an output of `size` bytes as FMT takes (beside the
    tables themselves): JSON `streamed` (printed a row at a time) a row's worth, anything built
    whole a few times its size, an .npz about its size."""
    if streamed and fmt == "json":
        return _OVERHEAD_BYTES
    return size * (1 if fmt == "npz" else _BUILT_WHOLE_FACTOR)


def available_memory_bytes() -> int | None:
    """The memory the system says is available now (MemAvailable, else free pages); None when
    it does not say."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_output_memory(what: str, need: int, hint: str = "") -> None:
    """FormatError (one line) when writing `what` would need more memory (`need` bytes, from
    output_memory_bytes) than is available: refused before the work, never killed after it."""
    available = available_memory_bytes()
    if available is not None and need > available:
        raise FormatError(
            f"{what} would need about {need / 2**30:.1f} GiB of memory to write, over the "
            f"{available / 2**30:.1f} GiB available{'; ' + hint if hint else ''}"
        )
