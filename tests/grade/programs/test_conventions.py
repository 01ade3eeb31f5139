"""Input conventions: the course's, parsed; the common ones, rendered."""

import pytest

from dicejack.grade import GradeError
from dicejack.grade.programs import conventions as cv

S = cv.Settings(6, 15, 17, 2, 100.0, 100_000)


def test_argv_in_the_handouts_order():
    c = cv.parse_convention("argv: {sides} {low} {high} {dice} {m} {games}")
    assert c.render(S) == (["6", "15", "17", "2", "100", "100000"], b"", {})
    assert not c.takes_seed


def test_stdin_lines_and_a_seed():
    c = cv.parse_convention("stdin: {dice} {sides} | {low} {high} | {m} {games} {seed}")
    assert c.render(S, seed=7) == ([], b"2 6\n15 17\n100 100000 7\n", {})
    assert c.takes_seed


def test_a_named_input_file_and_a_fractional_m():
    c = cv.parse_convention("file params.txt: {sides} {low} {high} {dice} {m} {games}")
    s = cv.Settings(6, 15, 17, 2, 0.5, 10)
    assert c.render(s) == ([], b"", {"params.txt": b"6 15 17 2 0.5 10\n"})
    assert cv.parse_convention("file: {sides} {low} {high} {dice} {m} {games}").file == (
        "input.txt")


@pytest.mark.parametrize("spec, message", [
    ("{sides} {low}", "must start with"),
    ("env: {sides}", "must start with"),
    ("argv: {sides} {low} {high} {dice} {m}", "lacks {games}"),
    ("argv: {sides} {low} {high} {dice} {m} {games} {x}", "unknown placeholder {x}"),
    ("file ../up.txt: {sides} {low} {high} {dice} {m} {games}", "plain file name"),
])
def test_bad_specs_are_one_line_errors(spec, message):
    with pytest.raises(GradeError, match=message.replace("{", r"\{").replace("}", r"\}")):
        cv.parse_convention(spec)


def test_the_candidates_cover_both_orders_and_every_place():
    kinds = {(c.kind, c.template.split()[0]) for c in cv.CANDIDATES}
    assert kinds == {(k, f) for k in ("argv", "stdin", "file")
                     for f in ("{sides}", "{dice}")}
    assert len(set(cv.CANDIDATES)) == len(cv.CANDIDATES)
