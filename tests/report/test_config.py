"""Report settings: the defaults, game counts and M values read from text, the command line
that reproduces a study, and bad settings as one-line report errors."""

from __future__ import annotations

import pytest

from dicejack import report
from dicejack.game import Game
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


def test_parse_games_and_ms():
    assert report.parse_games("100,1000, 1e4") == (100, 1000, 10_000)
    assert report.parse_games("100..1000") == (100, 200, 500, 1000)
    assert report.parse_games("30..100") == (30, 50, 100)
    assert report.parse_ms(["10", "100,1000"]) == (10.0, 100.0, 1000.0)


def test_command_reproduces_the_study():
    assert tiny_config().command() == (
        "dicejack report --sides 3 --low 6 --high 7 --dice 2 -m 10 -m 100 --games 10,30,100 "
        "--seeds 3 --seed 4"
    )
    assert report.ReportConfig(games=report.parse_games("100..1000")).command().endswith(
        "-m 100 --games 100..1000 --seeds 10"
    )


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: report.parse_games("100,100"), "increasing"),
        (lambda: report.parse_games("100,10"), "increasing"),
        (lambda: report.parse_games("0,10"), "positive"),
        (lambda: report.parse_games("-5"), "positive"),
        (lambda: report.parse_games("1.5"), "whole"),
        (lambda: report.parse_ms(["10,-1"]), ">= 0"),
        (lambda: report.parse_ms(["x"]), "number"),
        (lambda: report.parse_ms(["5,5"]), "distinct"),
        (lambda: tiny_config(seeds=0), "seeds must be >= 1"),
        (lambda: tiny_config(games=(5, 3)), "increasing"),
    ],
)
def test_bad_parameters_raise_report_errors(make, message):
    with pytest.raises(report.ReportError, match=message):
        make()
