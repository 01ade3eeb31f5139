"""runtime/messages.py: one line for the user, whatever the message."""

from __future__ import annotations

from dicejack.runtime.messages import one_line


def test_one_line_messages():
    assert one_line("a\n  b\tc") == "a b c"
    assert one_line(ValueError()) == "ValueError"
    assert one_line("") == "unknown error"
    assert len(one_line("x" * 1000)) == 500
    assert one_line("abcdef", limit=3) == "abc"
