"""Input detection judged by consistency, not size (docs/running.md "How programs get their
settings"): the programs of tests/students/programs/conventions/ (written from the handout,
each taking its settings its own way) are graded with no --input; each is found and named,
the one reading no input is held (never failed), and a program reading NGAMES before M is
never taken to read M first, which size alone cannot tell (the mutation below)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from dicejack.games.handout_rules import Game
from dicejack.grade import GradeConfig
from dicejack.grade import programs as pg
from dicejack.grade.programs import batch_run as pb
from dicejack.grade.programs import running as pr
from dicejack.grade.programs.languages import find_program
from dicejack.runtime import sandbox as sb

CONVENTIONS = Path(__file__).resolve().parents[2] / "students" / "programs" / "conventions"
TINY = pr.TINY

pytestmark = pytest.mark.skipif(not Path("/usr/bin/python3").exists(),
                                reason="no /usr/bin/python3")


def _runner() -> pg.Runner:
    try:
        box = sb.choose_sandbox()
    except sb.SandboxError as exc:
        pytest.skip(f"no sandbox on this machine: {exc}")
    return pg.Runner(box, sb.Limits(wall_seconds=30.0, cpu_seconds=30))


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("refs")


@pytest.fixture(scope="module")
def batch(cache, tmp_path_factory):
    out = tmp_path_factory.mktemp("out")
    config = GradeConfig(Game(TINY.sides, TINY.low, TINY.high, TINY.dice), TINY.m, TINY.games)
    plan = pg.RunPlan((pg.PlannedSetting(TINY, "assigned", 1),))
    names = sorted(p.name for p in CONVENTIONS.glob("*.py"))
    result = pg.grade_programs(config, plan, [CONVENTIONS / n for n in names], _runner(),
                               cache_dir=cache, lms_csv=out / "lms.csv")
    lms = list(csv.DictReader((out / "lms.csv").open()))
    return {s.label: s for s in result.students}, lms


@pytest.mark.parametrize(("label", "convention"), [
    ("dice_first_games_m_stdin", "stdin: {dice} {sides} {low} {high} {games} {m}"),
    ("dice_first_games_m_argv", "argv: {dice} {sides} {low} {high} {games} {m}"),
    ("argparse_long", "argv: --NSides {sides} --LTarget {low} --UTarget {high} --NDice {dice} "
                      "--M {m} --NGAMES {games}"),
    ("short_flags", "argv: -NS {sides} -LT {low} -UT {high} -ND {dice} -M {m} -NG {games}"),
    ("output_file", "argv: {sides} {low} {high} {dice} {m} {games} > output.txt"),
])
def test_each_convention_is_found_and_named(batch, label, convention):
    rows, _ = batch
    s = next(v for k, v in rows.items() if k.startswith(label))
    assert s.convention == convention, s.grade.error
    # graded (its verdict the statistics' own: a review at the 5% level now and then)
    assert s.grade.status == "ok" and "input-unknown" not in s.grade.flags, s.grade.error
    assert f"input {convention}" in s.grade.layout


def test_a_program_reading_no_input_is_held_with_a_plain_reason(batch):
    rows, lms = batch
    s = next(v for k, v in rows.items() if k.startswith("hard_coded"))
    assert s.grade.verdict == "review" and s.grade.held
    assert "input-unknown" in s.grade.flags and "ignores-settings" in s.grade.flags
    assert "--input" in s.grade.error and "whatever it is given" in s.grade.error
    line = next(r for r in lms if "hard_coded" in " ".join(r.values()))
    assert "held back" in " ".join(line.values())


def _built(name: str, tmp_path: Path) -> tuple[pr.Build, pg.Runner]:
    runner = _runner()
    folder = tmp_path / name
    folder.mkdir()
    (folder / f"{name}.py").write_bytes((CONVENTIONS / f"{name}.py").read_bytes())
    return pr.build(find_program(folder, name), runner), runner


def test_size_alone_takes_the_swapped_order_consistency_does_not(batch, cache, tmp_path):
    """The mutation: with size-only acceptance (no judge) the program reading NGAMES before M
    is taken to read M first (7 games at M 1500: tables of the right size), the wrong order
    the issue saw graded and sent to the LMS; judged by consistency, its own order wins."""
    built, runner = _built("dice_first_games_m_argv", tmp_path)
    size_only = pr.detect(built, runner)
    assert size_only.convention is not None
    assert size_only.convention.order == ("dice", "sides", "low", "high", "m", "games")
    config = GradeConfig(Game(TINY.sides, TINY.low, TINY.high, TINY.dice), TINY.m, TINY.games)
    judge = pb._tiny_judge(config, lambda _: None, cache, None, False)
    judged = pr.detect(built, runner, judge=judge)
    assert judged.convention is not None
    assert judged.convention.order == ("dice", "sides", "low", "high", "games", "m")
    assert any("inconsistent" in what for _, what in judged.tries)


def test_candidates_from_the_source_text():
    """Flag conventions and an output file are proposed from a program's literals; only
    proposals (every one is judged by running it)."""
    from dicejack.grade.programs import conventions as cv

    text = ('p.add_argument("-ND", "--n_dice"); p.add_argument("-NS", "--nsides")\n'
            '"-LT" "--ltarget" "-UT" "--utarget" "-M" "--M" "-NG" "--ngames"\n'
            'open("output.txt", "w"); open("input.txt")')
    flags = cv.flag_candidates(text)
    assert [c.template for c in flags] == [
        "--nsides {sides} --ltarget {low} --utarget {high} --n_dice {dice} --M {m} "
        "--ngames {games}",
        "-NS {sides} -LT {low} -UT {high} -ND {dice} -M {m} -NG {games}"]
    every = cv.source_candidates(text)
    assert every[:2] == flags and len(every) == 2 * (2 + len(cv.CANDIDATES))
    assert {c.output for c in every} == {"", "output.txt"}
    assert cv.flag_candidates('"--NDice" "--NSides"') == ()  # not all six: no candidate
    assert len({c.order for c in cv.CANDIDATES}) == len(cv.ORDERS)


def test_an_output_file_convention_is_parsed_and_named():
    from dicejack.grade.programs import conventions as cv
    from dicejack.grade.settings import GradeError

    c = cv.parse_convention("argv: {sides} {low} {high} {dice} {m} {games} > output.txt")
    assert c.output == "output.txt" and c.describe().endswith("> output.txt")
    assert cv.parse_convention(c.describe()) == c
    with pytest.raises(GradeError):
        cv.parse_convention("argv: {sides} {low} {high} {dice} {m} {games} > ../x")


def test_a_tie_says_what_to_pass():
    from dicejack.grade.programs import conventions as cv

    a, b = cv.CANDIDATES[0], cv.CANDIDATES[5]
    det = pr.Detection(None, (), fits=(a, b))
    assert det.reason().startswith("2 input conventions fit")
    assert f"--input '{a.describe()}' or --input '{b.describe()}'" in det.reason()


def _printout(low: int, visited: int) -> bytes:
    """Tables of size `low` with an estimate in the first `visited` states, -1 elsewhere."""
    cells = [f"{0.5:.4f}" if k < visited else "-1" for k in range(low * low)]
    best = [("2" if k < visited else "0") for k in range(low * low)]

    def rows(values: list[str]) -> str:
        return "\n".join(" ".join(values[r * low:(r + 1) * low]) for r in range(low))

    return f"Best:\n{rows(best)}\n\nProbability:\n{rows(cells)}\n".encode()


def test_states_with_data_counts_the_estimates_printed():
    assert pr.states_with_data(_printout(TINY.low, 50), TINY) == 50
    assert pr.states_with_data(_printout(TINY.low, 0), TINY) == 0
    assert pr.states_with_data(b"no tables here", TINY) == 0


def test_when_no_order_fits_the_one_that_played_its_games_is_guessed():
    """A program whose bug makes its tables inconsistent in every order (integer division, the
    last J drawn printed): the order giving 1,500 games has data in many more states than M and
    NGAMES swapped (7 games), and is guessed; close counts, or no data at all, guess nothing."""
    from dicejack.grade.programs import conventions as cv

    right = cv.parse_convention("argv: {sides} {low} {high} {dice} {m} {games}")
    lines = cv.parse_convention("stdin: {sides} | {low} | {high} | {dice} | {m} | {games}")
    swapped = cv.parse_convention("argv: {sides} {low} {high} {dice} {games} {m}")
    guess, why = pr._guess([(right, 50), (swapped, 9), (lines, 48)])
    assert guess == right and "input guessed" in why and "50 states" in why
    assert f"--input '{right.describe()}'" in why and "against 9" in why
    assert pr._guess([(swapped, 9), (right, 12)]) == (None, "")  # not GUESS_RATIO apart
    assert pr._guess([(right, 0), (swapped, 0)]) == (None, "")
    assert pr._guess([])[0] is None
    alone, why = pr._guess([(right, 40)])
    assert alone == right and "the only order" in why


def test_a_guess_is_a_detection_with_no_reason_to_refuse():
    from dicejack.grade.programs import conventions as cv

    c = cv.CANDIDATES[0]
    det = pr.Detection(c, (), guess="input guessed: ...")
    assert det.reason() == "" and det.convention == c
