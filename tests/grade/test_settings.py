"""Tests of dicejack.grade.settings' words: Status and Verdict are str enums that are their value
wherever text is made (so the gradebook and the LMS outputs stay byte-identical), compare and
hash as it, and a Grade holds them however it was given them; GradeError names parameters."""

from __future__ import annotations

import csv
import io
import json

import pytest

from dicejack.grade import Grade, GradeError, Status, Verdict
from dicejack.grade.outputs.gradebook import gradebook_csv
from dicejack.grade.outputs.terminal import summary_text
from dicejack.grade.scoring.rubric import verdict_for
from dicejack.grade.settings import Parameter


@pytest.mark.parametrize("word", [*Status, *Verdict])
def test_a_word_is_its_value_as_text(word):
    buffer = io.StringIO()
    csv.writer(buffer).writerow([word])
    assert str(word) == f"{word}" == "{}".format(word) == word.value  # noqa: UP032
    assert f"{word:>8}" == f"{word.value:>8}"
    plain = io.StringIO()
    csv.writer(plain).writerow([word.value])
    assert buffer.getvalue() == plain.getvalue()
    assert json.dumps(word) == json.dumps(word.value)
    assert word == word.value and {word.value: 1}[word] == 1 and {word: 1}[word.value] == 1


def test_the_words_are_the_gradebooks():
    assert [s.value for s in Status] == ["ok", "error", "skipped"]
    assert [v.value for v in Verdict] == ["pass", "review", "fail", ""]
    assert not Verdict.NONE and Verdict.FAIL


def test_a_grade_holds_enums_however_given():
    g = Grade(submission="a.txt", status="ok", score=90.0, verdict="pass")
    assert g.status is Status.OK and g.verdict is Verdict.PASS
    skipped = Grade(submission="b.pdf", status=Status.SKIPPED, verdict="")
    assert skipped.verdict is Verdict.NONE
    with pytest.raises(ValueError):
        Grade(submission="c.txt", status="fine")


def test_enum_and_string_grades_write_the_same_bytes():
    words = [Grade(submission="a.txt", status="ok", score=91.5, verdict="review",
                   flags=("copied",)),
             Grade(submission="b.txt", status="error", verdict="fail", error="unreadable"),
             Grade(submission="c.pdf", status="skipped", verdict="", error="a document")]
    enums = [Grade(submission="a.txt", status=Status.OK, score=91.5, verdict=Verdict.REVIEW,
                   flags=("copied",)),
             Grade(submission="b.txt", status=Status.ERROR, verdict=Verdict.FAIL,
                   error="unreadable"),
             Grade(submission="c.pdf", status=Status.SKIPPED, verdict=Verdict.NONE,
                   error="a document")]
    text = gradebook_csv(words)
    assert text == gradebook_csv(enums)
    assert ",ok," in text and ",review," in text and ",skipped," in text
    assert "Status." not in text and "Verdict." not in text
    assert summary_text(words) == summary_text(enums)


def test_the_rubric_returns_verdicts():
    assert verdict_for(95.0, 0.5, ()) is Verdict.PASS
    assert verdict_for(95.0, 1e-9, ()) is Verdict.FAIL
    assert verdict_for(50.0, 0.5, ()) is Verdict.REVIEW


def test_grade_error_names_its_parameters_where_they_stand():
    exc = GradeError(Parameter("out"), " out/book.csv is also ", Parameter("lms_csv"),
                     "; give each output its own file")
    assert str(exc) == "out out/book.csv is also lms_csv; give each output its own file"
    assert exc.parameters == ("out", "lms_csv")
    flags = {"out": "--out", "lms_csv": "--lms-csv"}
    assert exc.naming(flags) == ("--out out/book.csv is also --lms-csv; give each output its "
                                 "own file")
    assert GradeError("no submissions to grade").parameters == ()


def test_library_errors_name_parameters_and_the_cli_says_flags(tmp_path):
    from dicejack.cli.grade import FLAGS, flag_names
    from dicejack.games.handout_rules import Game
    from dicejack.grade import GradeConfig, grade_files

    sub = tmp_path / "a.txt"
    sub.write_text("0 0\n0 0\n")
    config = GradeConfig(Game(4, 8, 9, 2), 100.0, 1000)
    with pytest.raises(GradeError) as lib:
        grade_files(config, [sub], keep="newest", cache_dir=False)
    assert str(lib.value) == "keep must be one of latest, best, got 'newest'"
    assert "--" not in str(lib.value)
    with pytest.raises(GradeError) as cli, flag_names():
        grade_files(config, [sub], out=tmp_path / "out", lms_csv=tmp_path / "out",
                    cache_dir=False)
    assert str(cli.value) == (f"--lms-csv {tmp_path / 'out'} is also --out; give each output "
                              "its own file")  # the path's own "out" stays as it is
    assert set(FLAGS.values()) >= {"--keep", "--html", "--lms-hold"}
