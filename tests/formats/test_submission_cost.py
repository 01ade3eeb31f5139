"""Tests of what reading a submission costs (issue 39): counted in lines tokenized and characters
read, never in seconds. Hostile shapes (one number per line, long lines, brackets) cost about
what a normal output of their size costs; the fast path for narrow rows reads as the slow one."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicejack.formats import FormatError
from dicejack.formats.submission import find_table_size, read_submission_text, reader, scanner
from dicejack.formats.submission.scanner import Scanner
from dicejack.formats.tables import format_table

LOW, DICE = 15, 2


def _tables(low: int = LOW) -> str:
    rng = np.random.default_rng(3)
    policy = rng.integers(1, DICE + 1, (low, low))
    prob = np.round(rng.uniform(0.01, 0.99, (low, low)), 4)
    return (format_table(policy, "Best number of dice:", kind="int") + "\n"
            + format_table(prob, "Win probability:") + "\n")


@pytest.fixture
def tokenized(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The lines the scanner tokenizes, recorded."""
    lines: list[str] = []
    real = scanner.tokenize

    def counting(line: str):
        lines.append(line)
        return real(line)

    monkeypatch.setattr(scanner, "tokenize", counting)
    return lines


def test_one_number_per_line_is_counted_not_tokenized(tokenized: list[str]) -> None:
    """200,000 lines of one number (or three, or `[0.5]`) before the tables: none tokenized."""
    noise = "".join(f"{i % 97}.{i % 13}\n" for i in range(100_000))
    noise += "1 2 3\n[0.5]\n[1, 2]\n\n" * 25_000
    sub = read_submission_text(noise + _tables(), LOW, DICE)
    assert sub.policy.shape == (LOW, LOW)
    assert len(tokenized) <= 2 * LOW + 10  # the tables' lines and headings only


def test_a_minus_one_per_line_still_reads_both_ways(tokenized: list[str]) -> None:
    """`-1` may be a no-data cell (a combined reading): such lines take the slow path."""
    with pytest.raises(FormatError):
        read_submission_text("-1\n" * 50, LOW, DICE)
    assert len(tokenized) == 50


def _state(s: Scanner) -> tuple:
    blocks = [(b.layout, b.heading, b.line, b.combined, b.flags, b.notes,
               [[tuple(c) for c in row] for row in b.rows]) for b in s.blocks]
    return (repr(blocks), s.blocks_dropped, s.other_shapes, s.summarised_line, s.paragraph,
            s.run_count, s.run_key, s.run_heading, s.headings, len(s.run))


NARROW_LINES = ["1", "0.5", " 2  3 ", "1 2 3", "1,2", "[1]", "[0.5, 0.25]", "-1", "1 -1",
                "-0.5", "1e3", "", "   "]
OTHER_LINES = ["Policy:", "Win probability:", "2:0.5 n/a", "1 2 3 4", "0 1", "[[1, 2],",
               " [3, 4]]", "x", "...", "3 | 1 2", "1 2 3 4 5 6"]


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(st.sampled_from(NARROW_LINES + OTHER_LINES), max_size=60),
       low=st.integers(1, 5))
def test_the_narrow_row_path_reads_as_the_token_path(lines: list[str], low: int) -> None:
    """Counting narrow rows leaves the scanner exactly as reading them token by token does."""
    fast, slow = Scanner(low, 2), Scanner(low, 2)
    slow.narrow_widths = frozenset()  # every line tokenized
    for number, line in enumerate(lines, start=1):
        fast.feed_line(number, line)
        slow.feed_line(number, line)
        assert _state(fast) == _state(slow), line
    fast.finish()
    slow.finish()
    assert _state(fast) == _state(slow)


def test_find_table_size_reads_within_its_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """A MiB of rows: the hint's tries read an eighth of it at first and a sixteenth more at
    most, not all of it several times (main read the whole text six times); a MiB of one number
    per line (no row of two values) is not read again at all."""
    read: list[int] = []
    real = reader._read_text

    def counting(text, low, n_dice):
        read.append(len(text))
        return real(text, low, n_dice)

    monkeypatch.setattr(reader, "_read_text", counting)
    text = "0.1 0.2 0.3 0.4 0.5\n" * 2**16
    find_table_size(text, DICE)  # 5, as it happens: two 5 x 5 tables of such rows read
    assert read and sum(read) <= len(text) // 8 + len(text) // 16
    read.clear()
    assert find_table_size("1\n" * 2**19, DICE) is None
    assert read == []


def test_find_table_size_still_finds_tables_after_a_long_trace() -> None:
    """The tries read the text's tail: tables printed last are found behind 1 MiB of trace."""
    trace = "Player A rolls 2 dice, which come up 1 and 5. A total: 6.\n" * 18_000
    assert find_table_size(trace + _tables(10), DICE) == 10


def _work(text: str, monkeypatch: pytest.MonkeyPatch) -> int:
    """Tokens the scanner handles reading `text` (a read's unit of work)."""
    count = [0]
    real = scanner.tokenize

    def counting(line: str):
        tokens = real(line)
        count[0] += len(tokens) + 1
        return tokens

    monkeypatch.setattr(scanner, "tokenize", counting)
    try:
        read_submission_text(text, LOW, DICE)
    except FormatError:
        pass
    return count[0]


@pytest.mark.parametrize("unit", ["0.1 0.2 0.3 0.4\n", "[[[[[[1]]]]]]\n", "- " * 50 + "\n",
                                  "Policy:\n", "1,"])
def test_work_grows_linearly_with_the_text(unit: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Twice the text, twice the work (within 10%), and at most one unit per character."""
    small = _work(unit * 20_000, monkeypatch)
    large = _work(unit * 40_000, monkeypatch)
    assert 0 < large <= 2.2 * small
    assert large <= len(unit) * 40_000 + 40_000
