"""The text of `dicejack report`'s options (cli/report_options.py): --games, -m, --learner,
--param and --figure-format read into the Python values the report library takes, errors in the
text quoting the option, and the library's errors said in the command's flags."""

import shlex

import pytest

from dicejack import report
from dicejack.cli.report_options import (
    flag_names,
    parse_figure_formats,
    parse_games,
    parse_ms,
    parse_series,
)
from dicejack.report.limits import Parameter
from tests.games import TINY

GAMES = (10, 30, 100)


def spec(name: str, **params) -> report.SeriesSpec:
    return report.SeriesSpec(name, tuple(params.items()))


def test_parse_games_and_ms():
    assert parse_games("100,1000, 1e4") == (100, 1000, 10_000)
    assert parse_games("100..1000") == (100, 200, 500, 1000)
    assert parse_games("30..100") == (30, 50, 100)
    assert parse_ms(["10", "100,1000"]) == (10.0, 100.0, 1000.0)
    assert parse_ms([" 5 ", ",7,"]) == (5.0, 7.0)
    assert parse_figure_formats("png,svg,,pdf") == ("png", "svg", "pdf")


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: parse_games("100,100"), "increasing"),
        (lambda: parse_games("100,10"), "increasing"),
        (lambda: parse_games("0,10"), "positive"),
        (lambda: parse_games("-5"), "positive"),
        (lambda: parse_games("1.5"), "whole"),
        (lambda: parse_games(" , "), "^no game counts given$"),
        (lambda: parse_games("10..5"), "^game counts must be positive and increasing, got 10..5$"),
        (lambda: parse_ms(["10,-1"]), ">= 0"),
        (lambda: parse_ms(["x"]), "^M must be a number, got 'x'$"),
        (lambda: parse_ms(["5,5"]), "distinct"),
        (lambda: parse_ms([","]), "^no M given$"),
    ],
)
def test_bad_text_is_a_one_line_report_error(make, message):
    with pytest.raises(report.ReportError, match=message) as info:
        make()
    assert "\n" not in str(info.value)


def test_the_librarys_errors_are_said_in_flags():
    with pytest.raises(report.ReportError) as said:
        parse_games("1..1e13")
    assert str(said.value).startswith("--games 10,000,000,000,000 is more than the limit")
    assert said.value.parameters == ()
    with pytest.raises(report.ReportError, match="^--learner names ucb twice$"):
        parse_series(["ucb", "UCB"])
    with pytest.raises(report.ReportError, match="^-m sets the handout's M, but --learner ucb "):
        parse_series(["ucb"], [], ["5"])


def test_flag_names_says_every_parameter_as_its_flag_and_nothing_else():
    with pytest.raises(report.ReportError) as said, flag_names():
        raise report.ReportError(Parameter("ms"), " sets the handout's M, but ",
                                 Parameter("learners"), " ucb (learners.md) does not")
    assert str(said.value) == "-m sets the handout's M, but --learner ucb (learners.md) does not"
    with pytest.raises(report.ReportError) as plain, flag_names():
        report.ReportConfig(game=TINY, ms=(5.0, 5.0))
    assert str(plain.value) == "M values must be distinct, got 5, 5"
    with pytest.raises(report.ReportError, match="^--figure-format: unknown figure format"), \
            flag_names():
        report.ReportConfig(game=TINY, figure_formats=parse_figure_formats("gif"))


def test_parse_series_reads_the_text_as_series_grid_takes_its_values():
    """The command line's text gives exactly the library's series (their labels and parameters:
    tests/report/test_learners_report.py)."""
    got = parse_series(["handout,q-learning,mc-epsilon,ucb"],
                       ["epsilon_min=0.05,0.1", "q-learning.alpha=0.1", "c=2"], ["10,100"])
    assert got == report.series_grid(["handout", "q-learning", "mc-epsilon", "ucb"],
                                     {"epsilon_min": [0.05, 0.1], "q-learning.alpha": 0.1,
                                      "c": [2]}, [10, 100])
    assert len(got) == 7 and got[2].kwargs() == {"epsilon_min": 0.05, "alpha": 0.1}
    # two parameters with lists: every combination, the learner's parameter order
    both = parse_series(["q-learning"], ["alpha=0.1,0.5", "epsilon=0.5,1"])
    assert [s.label for s in both] == [
        "q-learning epsilon=0.5 alpha=0.1", "q-learning epsilon=0.5 alpha=0.5",
        "q-learning epsilon=1 alpha=0.1", "q-learning epsilon=1 alpha=0.5"]
    # the default: the handout's learner at M = 100, the classic report
    assert parse_series() == (report.SeriesSpec.handout(100),)
    assert parse_series(["thompson"])[0].label == "thompson"
    # epsilon below the default epsilon_min is fine when epsilon_min is set too
    low = parse_series(["q-learning"], ["epsilon=0.05", "epsilon_min=0.01"])
    assert low[0].kwargs() == {"epsilon": 0.05, "epsilon_min": 0.01}


@pytest.mark.parametrize("learner_names, params, ms, message", [
    (["handout,nope"], [], [], "unknown learner 'nope'"),
    (["ucb,ucb"], [], [], "names ucb twice"),
    (["handout,ucb"], ["alpha=0.1"], [], r"no learner in --learner handout,ucb has a parameter "
                                          r"'alpha' \(q-learning has it\)"),
    (["handout"], ["zeta=1"], [], "no bundled learner has it"),
    (["handout,ucb"], ["q-learning.alpha=0.1"], [], "q-learning is not in --learner handout,ucb"),
    (["ucb"], ["ucb.alpha=0.1"], [], "learner ucb has no parameter 'alpha'; its parameters: c"),
    (["ucb"], ["c"], [], "must be key=value"),
    (["ucb"], ["c=1,,2"], [], "give a value"),
    (["ucb"], ["c=1,1"], [], "distinct"),
    (["ucb"], ["c=-1"], [], r"--param c=-1: ucb parameter c must be in"),
    (["q-learning"], ["alpha=0.1", "q-learning.alpha=0.2"], [], "alpha given twice"),
    (["handout"], ["m=5"], ["10"], r"M \(-m and --param m\) given twice"),
    (["ucb"], [], ["10"], "-m sets the handout's M"),
    (["q-learning"], ["epsilon=0.05"], [], "epsilon_min .* must be <= epsilon"),
])
def test_bad_series_text_is_one_line_report_errors(learner_names, params, ms, message):
    with pytest.raises(report.ReportError, match=message) as info:
        parse_series(learner_names, params, ms)
    assert "\n" not in str(info.value)


def test_the_command_of_a_comparison_reads_back_as_its_series():
    series = parse_series(["handout,q-learning,ucb"],
                          ["epsilon_min=0.05,0.1", "q-learning.alpha=1/n,0.1"], ["10,100"])
    cfg = report.ReportConfig(game=TINY, series=series, games=GAMES, seeds=2)
    command = cfg.command()
    assert command == (
        "dicejack report --sides 3 --low 6 --high 7 --dice 2 --learner handout,q-learning,ucb "
        "-m 10 -m 100 --param q-learning.epsilon_min=0.05,0.1 --param q-learning.alpha=1/n,0.1 "
        "--games 10,30,100 --seeds 2")
    words = shlex.split(command)[2:]
    opts = {"--learner": [], "--param": [], "-m": []}
    for key, value in zip(words[::2], words[1::2], strict=True):
        opts.setdefault(key, []).append(value)
    assert parse_series(opts["--learner"], opts["--param"], opts["-m"]) == series
    # series no command line gives (q-learning alpha=0.1 but not at epsilon_min=0.5) say so
    odd = report.ReportConfig(game=TINY, series=(spec("q-learning", alpha=0.1),
                                                 spec("q-learning", epsilon_min=0.5)))
    assert "(series set in Python: q-learning alpha=0.1; q-learning epsilon_min=0.5)" in \
        odd.command()


def parse_game_series(learners=(), params=()):
    """The series of ``report --game``: parse_series of learners of protocol games."""
    return parse_series(learners, params, (), protocol=True)


def test_game_series_parse_learners_and_parameter_lists():
    series = parse_game_series(["q-learning,counting"], ["alpha=0.1,0.5", "counting.m=10"])
    assert [s.label for s in series] == ["q-learning alpha=0.1", "q-learning alpha=0.5",
                                         "counting m=10"]
    assert all(s.protocol for s in series)
    assert [s.label for s in parse_game_series()] == ["q-learning", "mc-exploring-starts"]
    assert [s.label for s in parse_game_series([" , "])] == ["q-learning", "mc-exploring-starts"]
    with pytest.raises(report.ReportError, match="no learner 'ucb'"):
        parse_game_series(["ucb"])
    with pytest.raises(report.ReportError, match=r"^--param m=3: no learner in --learner "
                       r"q-learning has a parameter 'm' \(counting has it\)$"):
        parse_game_series(["q-learning"], ["m=3"])
    for params, message in ((["alpha=0.1,0.1"], "^--param alpha=0.1,0.1: the values must be "
                             "distinct$"),
                            (["alpha="], "^--param alpha=: give a value"),
                            (["alpha"], "^--param must be key=value"),
                            (["counting.m=1"], "^--param counting.m=1: counting is not in "
                             "--learner q-learning,mc-exploring-starts$"),
                            (["ucb.c=1"], "^--param ucb.c=1: no learner 'ucb' for another "
                             "game than the handout's; the learners: q-learning, "
                             "mc-exploring-starts, counting, cfr"),
                            (["alpha=x"], "^--param alpha=x: q-learning parameter alpha must be "
                             "a number")):
        with pytest.raises(report.ReportError, match=message):
            parse_game_series((), params)
