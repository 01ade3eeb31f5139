"""The learner interface: tables, runs, parameter specifications and the shared checks."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from dicejack.learners import base
from dicejack.learners.base import LearnerError, Param, Run, Tables
from dicejack.runtime.messages import DicejackError
from tests.games import HAND_SIZED as TINY
from tests.games import HANDOUT


def tiny_tables(**change):
    parts = {
        "best": np.array([[1, 2, 0], [0, 1, 1], [2, 2, 2]]),
        "probability": np.array([[0.5, 0.25, -1], [-1, 1.0, 0.0], [0.1, 0.2, 0.3]]),
        "visits": np.array([[4, 2, 0], [0, 1, 1], [3, 3, 3]]),
    }
    parts.update(change)
    return parts["best"], parts["probability"], parts["visits"]


def test_tables_checked_copies_and_freezes():
    best, prob, visits = tiny_tables()
    t = Tables.checked(TINY, (best, prob, visits))
    best[0, 0] = 2
    assert t.best[0, 0] == 1 and not t.best.flags.writeable and not t.visits.flags.writeable
    assert t.best.dtype == np.int64 and t.probability.dtype == np.float64
    assert Tables.checked(TINY, t).equals(t)
    b, p, v = t
    assert b is t.best and p is t.probability and v is t.visits


@pytest.mark.parametrize(
    "change, message",
    [
        ({"best": np.zeros((2, 2), int)}, "best table has shape"),
        ({"best": np.full((3, 3), 3)}, "outside 0..2"),
        ({"best": np.full((3, 3), 1.0)}, "not integers"),
        ({"probability": np.full((3, 3), 1.5)}, r"outside \[0, 1\]"),
        ({"probability": np.full((3, 3), np.nan)}, r"outside \[0, 1\]"),
        ({"probability": np.full((3, 3), "x")}, "not float"),
        ({"probability": np.full((3, 3), 0.5)}, "no data"),
        ({"visits": np.full((3, 3), -1)}, "negative"),
    ],
)
def test_bad_tables_are_one_line_errors(change, message):
    with pytest.raises(LearnerError, match=message):
        Tables.checked(TINY, tiny_tables(**change))
    with pytest.raises(LearnerError, match="Tables"):
        Tables.checked(TINY, "not tables")


def test_empty_tables():
    t = Tables.empty(HANDOUT)
    assert t.best.shape == HANDOUT.shape and not t.best.any() and (t.probability == -1).all()


def test_run_tables_label_and_visits():
    t = Tables.checked(TINY, tiny_tables())
    run = Run(name="q-learning", params={"epsilon": 0.25, "alpha": None}, game=TINY, games=10,
              seed=3, final=t)
    assert run.tables[0] is t.best and run.tables[1] is t.probability and run.visits is t.visits
    assert run.label == "q-learning epsilon=0.25 alpha=1/n seed=3 games=10"
    assert run.best_dice() is t.best and run.win_probability() is t.probability


@pytest.mark.parametrize(
    "spec, text, expected",
    [
        (Param("a", 1.0, "", low=0.0, high=1.0), "0.25", 0.25),
        (Param("a", 1.0, "", low=0.0, high=1.0), " 1 ", 1.0),
        (Param("a", 1.0, "", low=0.0, low_open=True, allow_inf=True), "inf", math.inf),
        (Param("a", None, "", low=0.0, high=1.0, low_open=True, none="1/n"), "1/n", None),
        (Param("a", None, "", low=0.0, high=1.0, low_open=True, none="1/n"), "None", None),
        (Param("t", "x", "", kind="choice", choices=("x", "y")), "y", "y"),
    ],
)
def test_param_parse(spec, text, expected):
    assert spec.parse("L", text) == expected


@pytest.mark.parametrize(
    "spec, value, message",
    [
        (Param("a", 1.0, "", low=0.0, high=1.0), "abc",
         "L parameter a must be a number, got 'abc'"),
        (Param("a", 1.0, "", low=0.0, high=1.0), "1.5", r"must be in \[0, 1\], got 1.5"),
        (Param("a", 1.0, "", low=0.0, high=1.0), "nan", r"must be in \[0, 1\]"),
        (Param("a", 1.0, "", low=0.0), "inf", r"must be in \[0, inf\)"),
        (Param("a", 1.0, "", low=0.0, low_open=True, allow_inf=True), "0", r"\(0, inf\]"),
        (Param("a", 1.0, "", low=0.0), "1e-310", "subnormal"),
        (Param("a", None, "", low=0.0, high=1.0, low_open=True, none="1/n"), "x",
         "must be a number or 1/n"),
        (Param("t", "x", "", kind="choice", choices=("x", "y")), "z", "one of x, y; got 'z'"),
    ],
)
def test_param_parse_errors(spec, value, message):
    with pytest.raises(LearnerError, match=message) as info:
        spec.parse("L", value)
    assert "\n" not in str(info.value) and isinstance(info.value, DicejackError)


@pytest.mark.parametrize("value", [True, "0.5", [0.5], None])
def test_param_check_refuses_non_numbers(value):
    with pytest.raises(LearnerError, match="must be a number"):
        Param("a", 1.0, "", low=0.0).check("L", value)


def test_param_describe():
    assert base.EPSILON_PARAMS[2].describe() == (
        "epsilon_decay: games until epsilon halves (inf: no decay) ((0, inf]; default 1000)"
    )


def test_check_params_fills_defaults_and_checks_across():
    specs = base.EPSILON_PARAMS
    assert base.check_params("x", specs, {"epsilon": 0.5}) == {
        "epsilon": 0.5, "epsilon_min": 0.1, "epsilon_decay": 1000.0}
    with pytest.raises(LearnerError, match="x has no parameter 'eps'; its parameters: epsilon,"):
        base.check_params("x", specs, {"eps": 0.5})
    with pytest.raises(LearnerError,
                       match=r"epsilon_min \(0.1, its default\) must be <= epsilon \(0.05\); set"):
        base.check_params("x", specs, {"epsilon": 0.05})
    with pytest.raises(LearnerError, match="its parameters: none"):
        base.check_params("y", (), {"c": 1})


@pytest.mark.parametrize("seed, message", [(-1, "0..2"), (2**63, "0..2"), (1.5, "whole"),
                                           (True, "whole")])
def test_check_seed(seed, message):
    with pytest.raises(LearnerError, match=message):
        base.check_seed(seed)
    assert base.check_seed(7) == 7 and 0 <= base.check_seed(None) < 2**63


def test_check_count_and_sizes():
    with pytest.raises(LearnerError, match="games must be >= 0"):
        base.check_count("games", -1)
    with pytest.raises(LearnerError, match="whole number"):
        base.check_count("games", 2.0)
    from dicejack.games.handout_rules import Game

    with pytest.raises(LearnerError, match="too large"):
        base.check_learner_size(Game(2, 20_000, 20_000, 1), 7, "thompson")
    with pytest.raises(LearnerError, match="game must be a Game"):
        base.check_learner_size("game", 1, "ucb")


def test_roll_tables():
    """The CDF is the game's; the guide only gives the kernels a start inside each row (their
    exactness is held by the reference tests, which search with bisect)."""
    cdf, guide = base.roll_tables(HANDOUT)
    assert np.array_equal(cdf, HANDOUT.sum_cdf_table) and cdf.flags.c_contiguous
    assert guide.dtype == np.int64 and guide.shape[0] == 3
    assert guide.min() >= 0 and guide.max() <= cdf.shape[1] - 1


def test_generator_text_round_trip_and_errors():
    rng = np.random.default_rng(9)
    rng.random()
    again = base.generator_from_text(base.rng_state_text(rng))
    assert again.random() == rng.random()
    bad = [1, "{", json.dumps({"bit_generator": "MT19937"}), "x" * 5000,
           json.dumps({"bit_generator": "PCG64", "state": {"state": -1, "inc": 1},
                       "has_uint32": 0, "uinteger": 0})]
    for text in bad:
        with pytest.raises(LearnerError, match="PCG64"):
            base.generator_from_text(text)


def test_state_helpers():
    state = {"a": np.zeros((2, 2), np.int64), "n": np.array(3), "m": -1, "f": 1.5}
    assert base.state_array(state, "a", (2, 2), "iu").shape == (2, 2)
    assert base.state_int(state, "n") == 3
    for key, message in (("m", "whole number"), ("f", "whole number"), ("z", "has no 'z'")):
        with pytest.raises(LearnerError, match=message):
            base.state_int(state, key)
    with pytest.raises(LearnerError, match=r"shape \(2, 2\)"):
        base.state_array(state, "a", (3, 3), "iu")
    with pytest.raises(LearnerError, match="has no 'b'"):
        base.state_array(state, "b", (2, 2), "iu")
