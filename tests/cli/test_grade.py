"""`dicejack grade`'s option text read into the grade library's Python values (cli/grade.py):
--lms-hold's comma lists, any case, and `none`."""

import pytest

from dicejack.cli import main
from dicejack.cli.common import UsageError
from dicejack.cli.grade import parse_hold


def test_lms_hold_text_is_the_librarys_tuple_of_reasons():
    assert parse_hold(None) is None  # not given: the library's default
    assert parse_hold(["Review,LATE", "unreadable", " late ,"]) == ("review", "late",
                                                                      "unreadable")
    assert parse_hold(["none"]) == parse_hold(["NONE"]) == ()


@pytest.mark.parametrize("values, message", [
    (["reviews"], "^--lms-hold takes review, fail, copied, late, unreadable "
                  r"\(comma-separated\), got 'reviews'$"),
    (["late,nope"], "got 'nope'$"),
    (["none,review"], "^--lms-hold none sends every grade; give it alone, or a list of review, "
                      "fail, copied, late, unreadable$"),
    (["none", "late"], "^--lms-hold none sends every grade"),
])
def test_bad_lms_hold_text_is_one_line(values, message):
    with pytest.raises(UsageError, match=message):
        parse_hold(values)


def test_bad_lms_hold_exits_2_before_any_work(tmp_path, capsys):
    sub = tmp_path / "a.txt"
    sub.write_text("0 0\n0 0\n")
    code = main(["grade", str(sub), "-m", "100", "--games", "10", "--lms-hold", "none,late"])
    err = capsys.readouterr().err
    assert code == 2 and err == ("error: --lms-hold none sends every grade; give it alone, or a "
                                 "list of review, fail, copied, late, unreadable\n")
