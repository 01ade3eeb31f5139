"""`grade --run`'s likely cause on the corpus (test_batch's batch): named from all of a
student's runs jointly, as the printout grader names it per file; none for a program that
passes."""

from __future__ import annotations

import pytest

from dicejack.grade.programs import wrong_m as dg
from tests.grade.programs.test_batch_run import _student, cache, corpus  # noqa: F401 - fixtures

pytestmark = [pytest.mark.slow]


def test_a_wrong_m_is_the_likely_cause(corpus):  # noqa: F811
    g = _student(corpus, "wrong_m.py").grade
    assert g.cause == "m-tenth", g.notes
    assert "M ten times too small" in g.cause_text
    assert "likely cause m-tenth" in g.notes


def test_faithful_programs_have_no_cause_when_they_pass_and_never_a_wrong_m(corpus):  # noqa: F811
    students, _ = corpus
    for name in ("learn_argv.py", "learn_stdin_lines.py", "java_stdin", "c_file", "cpp_argv"):
        if name not in students:
            continue
        g = students[name].grade
        assert g.cause not in dg.M_FACTORS, (name, g.cause)
        if g.verdict == "pass":
            assert g.cause == "" and g.cause_text == "", name


@pytest.mark.parametrize("name, slip", [("java_by_wins", "printed-by-wins"),
                                        ("c_by_plays", "printed-by-plays")])
def test_a_print_only_slip_is_named_or_no_known_bug_is(corpus, name, slip):  # noqa: F811
    g = _student(corpus, name).grade
    assert g.cause in (slip, "", "unusual"), (name, g.cause, g.notes)  # never another bug
    if g.cause:
        assert g.cause_text


def test_a_program_that_could_not_run_has_no_cause(corpus):  # noqa: F811
    g = _student(corpus, "fixed_table.py").grade
    assert g.status == "error" and g.cause == ""
