"""Report settings: the defaults, game counts and M values as Python values, the command line
that reproduces a study, and bad settings as one-line report errors naming the parameter."""

from __future__ import annotations

import pytest

from dicejack import report
from dicejack.games.handout_rules import Game
from dicejack.report.limits import check_games, check_ms, series_125
from tests.games import TINY


def tiny_config(**kw) -> report.ReportConfig:
    args = dict(game=TINY, ms=(10.0, 100.0), games=(10, 30, 100), seeds=3, first_seed=4)
    args.update(kw)
    return report.ReportConfig(**args)


def test_default_study_is_the_handouts_game():
    cfg = report.ReportConfig()
    assert cfg.game == Game(6, 15, 17, 2) and cfg.ms == (100.0,) and cfg.seeds == 10
    assert cfg.games[0] == 100 and cfg.games[-1] == 10**6
    assert all(b > a for a, b in zip(cfg.games, cfg.games[1:], strict=False))
    assert cfg.seed_list == tuple(range(1, 11))


def test_games_and_ms_are_python_values_checked():
    assert check_games([100, 1000, 1e4]) == (100, 1000, 10_000)
    assert series_125(100, 1000) == (100, 200, 500, 1000)
    assert series_125(30, 100) == (30, 50, 100)
    assert check_ms((10, 100.0)) == (10.0, 100.0)


def test_command_reproduces_the_study():
    assert tiny_config().command() == (
        "dicejack report --sides 3 --low 6 --high 7 --dice 2 -m 10 -m 100 --games 10,30,100 "
        "--seeds 3 --seed 4"
    )
    assert report.ReportConfig(games=series_125(100, 1000)).command().endswith(
        "-m 100 --games 100..1000 --seeds 10"
    )


@pytest.mark.parametrize(
    "make, message, named",
    [
        (lambda: check_games((100, 100)), "^game counts must be strictly increasing", ()),
        (lambda: check_games((100, 10)), "increasing", ()),
        (lambda: check_games((0, 10)), "^game counts must be positive", ()),
        (lambda: check_games(()), "^no game counts given$", ()),
        (lambda: check_games((1.5,)), r"^games must be whole numbers, got 1\.5$", ("games",)),
        (lambda: check_games(("100",)), "^games must be whole numbers, got '100'$", ("games",)),
        (lambda: check_games("100,1000"), "^games must be a sequence of game counts",
         ("games",)),
        (lambda: check_games((10**13,)), "^games 10,000,000,000,000 is more than the limit",
         ("games",)),
        (lambda: check_ms((10, -1)), ">= 0", ()),
        (lambda: check_ms(("x",)), "^M must be a number, got 'x'$", ()),
        (lambda: check_ms((5, 5)), "distinct", ()),
        (lambda: check_ms(100), "^ms must be a sequence of numbers", ("ms",)),
        (lambda: tiny_config(seeds=0), "^seeds must be >= 1", ("seeds",)),
        (lambda: tiny_config(seeds=2.0), "^seeds must be a whole number", ("seeds",)),
        (lambda: tiny_config(seeds=20_000), "^seeds 20000 is more than the limit", ("seeds",)),
        (lambda: tiny_config(games=(5, 3)), "increasing", ()),
        (lambda: tiny_config(games=(5, 1e13)), "^games 10,000,000,000,000 is more", ("games",)),
        (lambda: tiny_config(figure_formats=("gif",)), "^figure_formats: unknown figure format",
         ("figure_formats",)),
        (lambda: tiny_config(game=(3, 6, 7, 2)), "^game must be a Game", ("game",)),
        (lambda: tiny_config(ms=None, series=("ucb",)), "^series must be SeriesSpec",
         ("series",)),
    ],
)
def test_bad_parameters_raise_report_errors_naming_them(make, message, named):
    with pytest.raises(report.ReportError, match=message) as info:
        make()
    assert info.value.parameters == named and "--" not in str(info.value)
