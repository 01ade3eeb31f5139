"""Grading outputs and files: correct work passes in every layout, flags, bad files become rows,
fuzzing, the CLI."""

from __future__ import annotations

import csv
import os
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicejack import grade
from dicejack.cli import main
from dicejack.grade.intake.inputs import MAX_SUBMISSION_BYTES
from dicejack.grade.outputs.explanations import plain_summary
from dicejack.grade.outputs.gradebook import GRADEBOOK_HEADER
from dicejack.grade.scoring.grading import batch_hint
from dicejack.grade.scoring.rubric import CONSISTENCY_POINTS, FLAG_DEDUCTIONS, FORMAT_POINTS, P_FAIL

from .support import CONFIG, GAME, GAMES, M, grade_of, layouts, tables, write


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_dicejacks_own_learner_passes(refs, seed):
    g = grade_of(refs, *tables(seed=seed))
    assert g.status == "ok" and g.verdict == "pass", (g.score, g.flags, g.consistency_p)
    assert g.score >= 90 and g.consistency_p >= 0.05 and g.flags == ()


def test_five_layouts_get_the_same_grade(refs, tmp_path):
    best, prob = tables(seed=5)
    texts = layouts(best, prob)
    paths = [write(tmp_path, f"{name}.txt", text) for name, text in texts.items()]
    grades = [grade.grade_file(refs, p) for p in paths]
    assert [g.status for g in grades] == ["ok"] * 5, [g.error for g in grades]
    assert len({g.layout for g in grades}) == 5
    first = grades[0]
    assert first.verdict == "pass"
    for g in grades[1:]:
        assert g.score == first.score and g.verdict == first.verdict
        assert g.consistency_p == pytest.approx(first.consistency_p, rel=1e-12)
        assert g.metrics == first.metrics


def test_a_zero_based_j_is_graded_shifted_back_like_a_transposed_table(refs):
    """Issue 32: J printed 0-based is a printing slip, corrected like a transposed table: graded
    shifted back, less the format points, review, with the score printed 1-based."""
    best, prob = tables(seed=15)
    right = grade_of(refs, best, prob)
    g = grade_of(refs, np.where(best > 0, best - 1, 0), prob)
    assert "zero-based-j" in g.flags and "data-without-policy" not in g.flags
    assert g.verdict == "review"
    assert g.score == right.score - FLAG_DEDUCTIONS["zero-based-j"]
    assert g.what_if == {"printed with J 1-based": right.score}
    assert g.consistency_p == pytest.approx(right.consistency_p)
    # both slips at once: corrected both ways, each flag once, each what-if named
    both = grade_of(refs, np.where(best > 0, best - 1, 0).T, prob.T)
    assert {"zero-based-j", "transposed"} <= set(both.flags) and both.verdict == "review"
    assert both.score == round(right.points["quality"] + right.points["consistency"], 1)
    assert both.what_if == {"printed with J 1-based": right.score - 10,
                            "printed as table[X][Y]": right.score}
    # a J of 0 beside an estimate without the 0-based shape stays data-without-policy
    odd = best.copy()
    xs, ys = np.nonzero(prob > 0)
    odd[xs[0], ys[0]] = 0
    g = grade_of(refs, odd, prob)
    assert "data-without-policy" in g.flags and "zero-based-j" not in g.flags


def test_probabilities_and_policy_out_of_range_are_flagged(refs):
    best, prob = tables(seed=16)
    bad_p = prob.copy()
    bad_p[0, 0] = 1.5
    bad_b = best.copy()
    bad_b[0, 1] = 7
    g = grade_of(refs, bad_b, bad_p)
    assert {"prob-out-of-range", "policy-out-of-range"} <= set(g.flags)
    assert g.verdict != "pass" and g.points["format"] < FORMAT_POINTS


def test_empty_tables_are_no_data(refs):
    g = grade_of(refs, np.zeros(GAME.shape), -np.ones(GAME.shape))
    assert "no-data" in g.flags and g.verdict == "fail"


def test_bad_files_get_rows_and_the_batch_goes_on(refs, tmp_path):
    best, prob = tables(seed=17)
    good = layouts(best, prob)["labelled"]
    files = {
        "good.txt": good,
        "empty.txt": "",
        "blank.txt": "\n \n\t\n",
        "truncated.txt": good[: len(good) * 2 // 3],
        "garbage.txt": "Segmentation fault (core dumped)\n",
        "binary.bin": bytes(range(256)) * 40,
        "wrong-game.txt": layouts(np.ones((5, 5), int), np.full((5, 5), 0.5))["grid"],
    }
    paths = [write(tmp_path, name, text) for name, text in files.items()]
    big = tmp_path / "huge.txt"
    with open(big, "wb") as fh:
        fh.truncate(MAX_SUBMISSION_BYTES + 1)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    empty = tmp_path / "empty-folder"
    empty.mkdir()
    paths += [big, fifo, empty]
    out = tmp_path / "book.csv"
    with pytest.raises(grade.GradeError, match=r"^no such file or folder: .*missing\.txt$"):
        grade.grade_files(CONFIG, [*paths, tmp_path / "missing.txt"], out=out, cache_dir=False)
    assert not out.exists()  # refused before any work
    _, grades = grade.grade_files(CONFIG, paths, out=out, cache_dir=False)
    status = {Path(g.submission).name: g.status for g in grades}
    assert status.pop("good.txt") == "ok"
    assert set(status.values()) == {"error"}
    for g in grades[1:]:
        assert g.error and "\n" not in g.error and g.verdict == "fail" and g.score == 0
    assert "10 MiB" in grades[paths.index(big)].error
    assert "holds no files" in grades[paths.index(empty)].error
    with open(out, newline="") as fh:
        rows = list(csv.reader(fh))
    assert tuple(rows[0]) == GRADEBOOK_HEADER
    assert len(rows) == 1 + len(paths)
    assert [r[1] for r in rows[1:]].count("ok") == 1


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.one_of(
    st.binary(max_size=2000),
    st.text(max_size=2000),
    st.text(alphabet="0123456789.-,; []\n\t|:eEnaN", max_size=3000),
))
def test_fuzz_no_input_crashes_grading(data):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sub.txt"
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8", "replace"))
        g = grade.grade_file(_fuzz_refs(), path)
        assert g.status in ("ok", "error") and "internal error" not in g.error
        assert sorted(os.listdir(tmp)) == ["sub.txt"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cut=st.integers(0, 10_000), junk=st.text(max_size=40), where=st.integers(0, 10_000))
def test_fuzz_damaged_real_submissions(cut, junk, where):
    text = _fuzz_text()
    text = text[: cut % (len(text) + 1)]
    at = where % (len(text) + 1)
    text = text[:at] + junk + text[at:]
    g = grade.grade_file(_fuzz_refs(), _fuzz_file(text))
    assert g.status in ("ok", "error") and "internal error" not in g.error


_FUZZ: dict[str, object] = {}


def _fuzz_refs() -> grade.References:
    if "refs" not in _FUZZ:
        _FUZZ["refs"] = grade.reference_runs(CONFIG, cache_dir=False)
    return _FUZZ["refs"]  # type: ignore[return-value]


def _fuzz_text() -> str:
    if "text" not in _FUZZ:
        _FUZZ["text"] = layouts(*tables(seed=18))["labelled"]
    return _FUZZ["text"]  # type: ignore[return-value]


def _fuzz_file(text: str) -> Path:
    if "dir" not in _FUZZ:
        _FUZZ["dir"] = tempfile.mkdtemp(prefix="dicejack-fuzz-")
    path = Path(_FUZZ["dir"]) / "sub.txt"  # type: ignore[arg-type]
    path.write_text(text, encoding="utf-8", errors="replace")
    return path


def test_output_paths_are_checked_before_any_work(tmp_path):
    x = write(tmp_path, "x.txt", "a submission\n")
    with pytest.raises(grade.GradeError, match="folder"):
        grade.grade_files(CONFIG, [x], out=tmp_path, cache_dir=False)
    with pytest.raises(grade.GradeError, match="does not exist"):
        grade.grade_files(CONFIG, [x], out=tmp_path / "no" / "book.csv", cache_dir=False)
    (tmp_path / "file").write_text("")
    with pytest.raises(grade.GradeError, match="not a folder"):
        grade.grade_files(CONFIG, [x], reports=tmp_path / "file", cache_dir=False)


def test_cli_grade_writes_the_gradebook_and_reports(tmp_path, capsys):
    best, prob = tables(seed=20)
    a = write(tmp_path, "a.txt", layouts(best, prob)["csv"])
    b = write(tmp_path, "b.txt", "nothing here\n")
    out, reports = tmp_path / "g.csv", tmp_path / "r"
    code = main(["grade", str(a), str(b), "--sides", "4", "--low", "8", "--high", "9", "--dice",
                 "2", "-m", "100", "--games", str(GAMES), "--out", str(out), "--reports",
                 str(reports), "--cache", str(tmp_path / "cache")])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "a.txt" in captured.out and "pass" in captured.out
    assert "1 fail (1 of them could not be graded)" in captured.out
    assert out.read_text().splitlines()[0] == ",".join(GRADEBOOK_HEADER)
    assert (reports / "a.txt.md").is_file() and (reports / "b.txt.md").is_file()


@pytest.mark.parametrize("args, message", [
    (["-m", "100", "--games", "0"], "games"),
    (["-m", "-3", "--games", "10"], "M must be"),
    (["-m", "100", "--games", "10", "--references", "2"], "references"),
    (["-m", "100", "--games", "10", "--workers", "0"], "workers"),
    (["--games", "10"], "-m"),
])
def test_cli_grade_bad_settings_exit_2(capsys, tmp_path, args, message):
    code = main(["grade", str(tmp_path / "x.txt"), "--out", str(tmp_path / "g.csv"), *args])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1 and message in err
    assert not (tmp_path / "g.csv").exists()


def test_a_batch_of_another_size_gets_one_hint_and_a_nonzero_exit(tmp_path, capsys):
    """Every file holds 10x10 tables while the grader was told LTarget=8: one hint at the top
    with the command to re-run, and exit 1 because nothing could be graded."""
    from dicejack.games.handout_rules import Game
    from dicejack.learners import formulas, handout

    other = Game(GAME.n_sides, 10, 11, GAME.n_dice)
    for seed in range(3):
        run = handout.learn(other, M, 2_000, seed)
        write(tmp_path, f"s{seed}.txt", layouts(*formulas.learned_tables(run.win, run.lose))[
            "labelled"])
    args = ["grade", str(tmp_path), "--sides", str(GAME.n_sides), "--low", str(GAME.low),
            "--high", str(GAME.high), "--dice", str(GAME.n_dice), "-m", f"{M:g}", "--games",
            str(GAMES), "--out", str(tmp_path.parent / f"{tmp_path.name}.csv"), "--cache",
            str(tmp_path.parent / "cache")]
    code = main(args)
    err = capsys.readouterr().err
    hints = [line for line in err.splitlines() if line.startswith("hint: ")]
    assert hints == ["hint: 3 of 3 files hold 10x10 tables, not 8x8: LTarget=10? re-run with "
                     "--low 10 --high <UTarget> (the settings the class was given)"]
    assert code == 1 and "error: none of the 3 files could be graded" in err
    refs, grades = grade.grade_files(CONFIG, [tmp_path], cache_dir=False)
    assert [g.table_size for g in grades] == [10, 10, 10]
    assert batch_hint(refs, grades[:1]) == (  # one file: spoken to as one student
        "the file holds 10x10 tables, not 8x8: LTarget=10? re-run with --low 10 --high "
        "<UTarget> (the settings you were given)")
    assert batch_hint(refs, grades).endswith("(the settings the class was given)")


def test_a_mostly_transposed_batch_is_hinted(refs):
    best, prob = tables(seed=31)
    grades = [grade_of(refs, best.T, prob.T, submission=f"t{i}") for i in range(2)]
    grades.append(grade_of(refs, best, prob, submission="fine"))
    assert "transposed" in grades[0].flags
    assert batch_hint(refs, grades).startswith(
        "2 of 3 files fit markedly better transposed")
    assert batch_hint(refs, grades[1:]) == ""
    # one file checked alone: its report names its slip; nothing is said of a class
    assert batch_hint(refs, grades[:1]) == ""
    shifted = grade_of(refs, np.where(best > 0, best - 1, 0), prob, submission="z")
    assert "zero-based-j" in shifted.flags and batch_hint(refs, [shifted]) == ""
    assert "the class may have been shown 0-based J" in batch_hint(refs, [shifted, shifted])


def test_a_chance_review_never_lowers_the_score(refs, monkeypatch):
    """Issue 32: a faithful output pushed into review by consistency evidence below the fail
    level (a p-value forced low) keeps the score it gets without that evidence; the student's
    summary says the score stands and why a person will look. Only p < P_FAIL costs points."""
    import dataclasses

    from dicejack.grade.scoring import grading

    best, prob = tables(seed=3)
    clean = grade_of(refs, best, prob)
    assert clean.verdict == "pass"
    real = grading.consistency

    def forced(p):
        def fake(*args, **kwargs):
            return dataclasses.replace(real(*args, **kwargs), p_value=p)
        return fake

    monkeypatch.setattr(grading, "consistency", forced(0.002))
    g = grade_of(refs, best, prob)
    assert g.verdict == "review" and "inconsistent" in g.flags
    assert g.score == clean.score and g.points == clean.points
    text = plain_summary(g)
    assert "Your score stands; a person will look because" in text and "0.002" in text
    assert "Your score stands" not in plain_summary(clean)
    monkeypatch.setattr(grading, "consistency", forced(P_FAIL / 10))
    failed = grade_of(refs, best, prob)
    assert failed.verdict == "fail" and failed.points["consistency"] == 0
    assert failed.score == clean.score - CONSISTENCY_POINTS


def test_a_print_rule_review_never_lowers_the_score(refs, monkeypatch):
    """A print-rule flag (forced) sends a faithful output to review with its score unchanged."""
    import dataclasses

    from dicejack.grade.scoring import grading

    best, prob = tables(seed=4)
    clean = grade_of(refs, best, prob)
    real = grading.print_check
    monkeypatch.setattr(grading, "print_check", lambda *a, **k: dataclasses.replace(
        real(*a, **k), flag="printed-by-plays"))
    g = grade_of(refs, best, prob)
    assert g.verdict == "review" and "printed-by-plays" in g.flags
    assert g.score == clean.score
    assert "print-rule check" in plain_summary(g)


@pytest.mark.parametrize("name", ["solution.py", "Main.java", "dice.C", "notebook.ipynb"])
def test_the_self_check_names_a_source_file_as_source_code(tmp_path, capsys, name):
    """Issue 32: one source file given alone is refused in one line (exit 2) saying what to
    give instead, never read as a table."""
    src = tmp_path / name
    src.write_text("import numpy as np\nprint(np.zeros((8, 8)))\n")
    code = main(["grade", str(src), "--sides", str(GAME.n_sides), "--low", str(GAME.low),
                 "--high", str(GAME.high), "--dice", str(GAME.n_dice), "-m", f"{M:g}",
                 "--games", str(GAMES), "--cache", str(tmp_path / "cache")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith("error: ")
    assert "is source code" in err and "output.txt" in err and name in err
    doc = tmp_path / "report.pdf"
    doc.write_bytes(b"%PDF-1.4")
    code = main(["grade", str(doc), "-m", f"{M:g}", "--games", str(GAMES)])
    err = capsys.readouterr().err
    assert code == 2 and "a document" in err and ".txt" in err
