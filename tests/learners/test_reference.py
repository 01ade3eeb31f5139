"""The rules of the bundled learners, by hand: each rule on its own (table-driven), then whole
games of the reference loops on the tiny game with scripted random numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dicejack.games import handout_rules as game
from dicejack.learners import formulas
from dicejack.learners import reference as ref
from tests.games import HAND_SIZED as TINY

from .support import ScriptedRng


# ------------------------------------------------------------------------------------ rules
@pytest.mark.parametrize(
    "games, eps, eps_min, decay, expected",
    [
        (0, 1.0, 0.1, 1000.0, 1.0),
        (1000, 1.0, 0.1, 1000.0, 0.5),  # halves after epsilon_decay games
        (3000, 1.0, 0.1, 1000.0, 0.25),
        (9000, 1.0, 0.1, 1000.0, 0.1),
        (10**6, 1.0, 0.1, 1000.0, 0.1),  # the floor
        (10**6, 0.3, 0.0, math.inf, 0.3),  # no decay
        (5, 0.0, 0.0, 10.0, 0.0),  # pure greedy
    ],
)
def test_epsilon_schedule(games, eps, eps_min, decay, expected):
    assert ref.epsilon_at(games, eps, eps_min, decay) == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize(
    "u, eps, k, greedy, expected",
    [
        (0.7, 0.5, 2, 1, 1),  # u >= eps: greedy
        (0.1, 0.5, 2, 1, 1),  # u/eps = 0.2: the first of two
        (0.3, 0.5, 2, 1, 2),  # u/eps = 0.6: the second
        (0.49999, 0.5, 3, 1, 3),
        (0.0, 1e-300, 4, 2, 1),
        (0.5, 0.0, 2, 2, 2),  # eps 0: never explores
        (math.nextafter(1.0, 0.0), 1.0, 2, 1, 2),  # u/eps just below 1
    ],
)
def test_epsilon_greedy(u, eps, k, greedy, expected):
    assert ref.epsilon_greedy(u, eps, k, greedy) == expected


def test_epsilon_greedy_is_uniform_when_exploring():
    rng = np.random.default_rng(3)
    picks = [ref.epsilon_greedy(rng.random(), 0.6, 3, 1) for _ in range(30_000)]
    counts = np.bincount(picks, minlength=4)[1:]
    # J = 1 gets the greedy share 0.4 plus 0.6/3; J = 2, 3 get 0.2 each.
    assert np.allclose(counts / 30_000, [0.6, 0.2, 0.2], atol=0.015)


@pytest.mark.parametrize(
    "row, k, expected",
    [([0, 0.5, 0.5], 2, 1), ([0, 0.2, 0.7, 0.7], 3, 2), ([0, 1.0], 1, 1), ([0, 0.3, 0.1], 2, 1)],
)
def test_lowest_argmax(row, k, expected):
    assert ref.lowest_argmax(row, k) == expected


def test_the_reference_loops_use_the_one_estimate_and_the_one_roll():
    """f_J and B come from the handout's formulas, the roll total from the game's rule (clamped
    to the largest total), not from copies of them."""
    assert ref.estimates is formulas.estimates and ref.roll_total is game.roll_total
    assert formulas.estimates([0, 3, 0, 1], [0, 1, 0, 3], 3)[0] == [0.0, 0.75, 0.5, 0.25]
    row = TINY.sum_cdf_table[2].tolist()  # totals 2, 3, 4 with 1/4, 1/2, 1/4
    assert row == [0.0, 0.0, 0.25, 0.75, 1.0]
    assert [game.roll_total(row, x) for x in (0.0, 0.2499, 0.25, 0.74, 0.75, 0.9999)] == [
        2, 2, 3, 3, 4, 4]


@pytest.mark.parametrize(
    "win, lose, c, expected",
    [
        ([0, 0, 0], [0, 0, 0], 1.4, 1),  # nothing tried: the lowest J
        ([0, 5, 0], [0, 1, 0], 1.4, 2),  # J = 2 untried
        ([0, 0, 0, 0], [0, 1, 0, 0], 0.0, 2),  # the lowest untried, whatever c
        # n = 6, n_1 = 4, n_2 = 2: 0.75 + c*sqrt(ln 6/4) against 0.5 + c*sqrt(ln 6/2)
        ([0, 3, 1], [0, 1, 1], math.sqrt(2), 2),  # 1.6965 < 1.8386
        ([0, 3, 1], [0, 1, 1], 0.5, 1),  # 1.0847 > 0.9733
        ([0, 3, 1], [0, 1, 1], 0.0, 1),  # plain greedy on win rates
        ([0, 1, 2], [0, 1, 2], 1.0, 1),  # equal rates, J = 1 has fewer tries: bonus larger
        ([0, 2, 1], [0, 2, 1], 0.0, 1),  # exact tie: the lowest J
    ],
)
def test_ucb_choice(win, lose, c, expected):
    assert ref.ucb_choice(win, lose, len(win) - 1, c) == expected


def test_gamma_draw_by_hand():
    d, c = ref.gamma_constants(0)  # Gamma(1): d = 2/3, c = 1/sqrt(6)
    assert d == pytest.approx(2 / 3) and c == pytest.approx(1 / math.sqrt(6))
    # x = 0: v = 1, accepted by the squeeze: the draw is d.
    assert ref.gamma_draw(ScriptedRng([0.5], [0.0]), d, c) == d
    # x = -3: v = 1 - 3c < 0, so a new normal (0.6) is drawn before the uniform.
    rng = ScriptedRng([0.1], [-3.0, 0.6])
    assert ref.gamma_draw(rng, d, c) == pytest.approx(d * (1 + 0.6 * c) ** 3) and rng.used_up()
    # x = 2, u = 0.9: the squeeze 1 - 0.0331*16 = 0.47 fails, and so does the log test
    # (log 0.9 = -0.105 against 2 + d (1 - v + log v) = -0.136); x = 0, u = 0.5 is accepted.
    rng = ScriptedRng([0.9, 0.5], [2.0, 0.0])
    assert ref.gamma_draw(rng, d, c) == d and rng.used_up()
    # x = 2, u = 0.3: squeeze fails, log test (-1.20 < -0.136) accepts.
    v = (1 + 2 * c) ** 3
    assert ref.gamma_draw(ScriptedRng([0.3], [2.0]), d, c) == pytest.approx(d * v)


@pytest.mark.parametrize("count", [0, 1, 4, 300])
def test_gamma_draw_follows_the_gamma_distribution(count):
    rng = np.random.default_rng(count)
    d, c = ref.gamma_constants(count)
    draws = [ref.gamma_draw(rng, d, c) for _ in range(4000)]
    assert stats.kstest(draws, stats.gamma(1 + count).cdf).pvalue > 1e-3


def test_thompson_choice_by_hand():
    # Every normal 0 and uniform 0.5: each Gamma draw is its d, so b_J = d_w / (d_w + d_l).
    k = 3
    win, lose = [0, 2, 5, 1], [0, 2, 1, 4]
    rng = ScriptedRng([0.5] * 6, [0.0] * 6)  # two Gamma draws per J: win side, then lose side
    assert ref.thompson_choice(rng, win, lose, k) == 2 and rng.used_up()
    # K = 1 draws nothing.
    assert ref.thompson_choice(ScriptedRng(), [0, 9], [0, 9], 1) == 1


def test_thompson_choice_matches_beta_probabilities():
    # W = (2, 0), L = (0, 2): J = 1 is picked with probability P(Beta(3, 1) > Beta(1, 3)).
    rng = np.random.default_rng(5)
    picks = [ref.thompson_choice(rng, [0, 2, 0], [0, 0, 2], 2) for _ in range(4000)]
    exact = stats.beta(3, 1).expect(lambda t: stats.beta(1, 3).cdf(t))
    assert abs(picks.count(1) / 4000 - exact) < 0.025


@pytest.mark.parametrize(
    "new, expected",
    [(5, 0.0), (3, 1.0), (4, 1.0), (2, 1.0 - 0.8), (1, 1.0 - 0.5)],  # bust, win, win, go on
)
def test_q_target(new, expected):
    q = np.full((3, 3, 3), 0.5).tolist()
    q[1][2] = [0.0, 0.8, 0.3]  # the opponent's next state <1, 2>: max Q = 0.8
    q[1][1] = [0.0, 0.2, 0.5]
    assert ref.q_target(q, 1, new, 3, 4, 2) == pytest.approx(expected)


@pytest.mark.parametrize(
    "old, target, count, alpha, expected",
    [
        (0.5, 1.0, 1, None, 1.0),  # the first target replaces q_init
        (1.0, 0.0, 2, None, 0.5),  # the mean of 1 and 0
        (0.5, 0.0, 3, None, 1 / 3),
        (0.5, 1.0, 7, 0.1, 0.55),
        (0.2, 0.2, 9, 0.5, 0.2),
    ],
)
def test_q_step(old, target, count, alpha, expected):
    assert ref.q_step(old, target, count, alpha) == pytest.approx(expected)


# ----------------------------------------------------------------- whole games by hand
def empty(game=TINY, dtype=np.int64):
    return np.zeros(game.table_shape, dtype)


#: Two games on TINY, as (u for J, x for the roll) per move. With epsilon = 1, J = 1 + int(2u).
#: Game 1: A <0,0> J1 rolls 1; B <0,1> J1 rolls 1; A <1,1> J1 rolls 2 -> 3, A wins.
#: Game 2: A <0,0> J1 rolls 1; B <0,1> J1 rolls 1; A <1,1> J2 rolls 4 -> 5, A busts.
Q_SCRIPT = [0.2, 0.3, 0.4, 0.1, 0.3, 0.9, 0.1, 0.4, 0.45, 0.2, 0.9, 0.8]


@pytest.mark.parametrize(
    "alpha, cells",
    [
        # 1/N: Q(1,1,1) = 1 (win); then B's move into <1,1> has target 1 - 1 = 0, so Q(0,1,1)
        # = mean(0.5, 0) = 0.25; A's bust gives Q(1,1,2) = 0; A's first move always sees 0.5.
        (None, {(0, 0, 1): 0.5, (0, 1, 1): 0.25, (1, 1, 1): 1.0, (1, 1, 2): 0.0}),
        # alpha = 0.25: Q(1,1,1) = 0.625; Q(0,1,1) = 0.5 + 0.25 (0.375 - 0.5) = 0.46875;
        # Q(1,1,2) = 0.5 + 0.25 (0 - 0.5) = 0.375.
        (0.25, {(0, 0, 1): 0.5, (0, 1, 1): 0.46875, (1, 1, 1): 0.625, (1, 1, 2): 0.375}),
    ],
)
def test_q_learning_two_games_by_hand(alpha, cells):
    q = np.zeros(TINY.table_shape)
    q[..., 1:] = 0.5
    visits = empty()
    counters = np.zeros(2, np.int64)
    rng = ScriptedRng(Q_SCRIPT)
    ref.q_self_play(q, visits, counters, TINY.sum_cdf_table, TINY.low, TINY.high, 1.0, 1.0,
                    1000.0, alpha, 2, rng)
    assert rng.used_up() and counters.tolist() == [2, 6]
    expected = np.zeros(TINY.table_shape)
    expected[..., 1:] = 0.5
    for cell, value in cells.items():
        expected[cell] = value
    assert np.array_equal(q, expected)
    assert {tuple(map(int, c)): int(visits[tuple(c)]) for c in np.argwhere(visits)} == {
        (0, 0, 1): 2, (0, 1, 1): 2, (1, 1, 1): 1, (1, 1, 2): 1}


def test_mc_epsilon_two_games_by_hand():
    # epsilon 0.5 throughout: u < 0.5 explores (J = 1 + int(4u)), else B = argmax f (f = 0.5
    # without data, lowest J on ties).
    script = [
        0.7, 0.3,  # A <0,0>: greedy B = 1, rolls 1
        0.3, 0.1,  # B <0,1>: explores J = 2, rolls 2 (x < 1/4)
        0.9, 0.9,  # A <1,2>: greedy J = 1, rolls 2 -> 3: A wins
        0.6, 0.6,  # A <0,0>: f = (1, 0.5), greedy 1, rolls 2
        0.2, 0.95,  # B <0,2>: explores J = 1 + int(0.8) = 1, rolls 2
        0.99, 0.1,  # A <2,2>: greedy 1, rolls 1 -> 3: A wins
    ]
    win, lose, counters = empty(), empty(), np.zeros(2, np.int64)
    rng = ScriptedRng(script)
    ref.count_self_play("mc-epsilon", win, lose, counters, TINY.sum_cdf_table, TINY.low,
                        TINY.high, (0.5, 0.5, 1000.0), 2, rng)
    assert rng.used_up() and counters.tolist() == [2, 6]
    cells = {("W", *map(int, c)): int(win[tuple(c)]) for c in np.argwhere(win)}
    cells |= {("L", *map(int, c)): int(lose[tuple(c)]) for c in np.argwhere(lose)}
    assert cells == {("W", 0, 0, 1): 2, ("W", 1, 2, 1): 1, ("W", 2, 2, 1): 1,
                     ("L", 0, 1, 2): 1, ("L", 0, 2, 1): 1}


def test_ucb_games_by_hand():
    # UCB draws only the rolls. <0,0>: J = 1 first, then J = 2, then by the bonus.
    script = [
        0.6,  # A <0,0> J1 rolls 2
        0.6,  # B <0,2> J1 rolls 2
        0.9,  # A <2,2> J1 rolls 2 -> 4: A wins
        0.5,  # A <0,0> J2 (untried) rolls 3 (x in [1/4, 3/4)) -> 3: A wins
        0.1,  # A <0,0>: both J won once: f = 1, 1, equal bonus: J = 1; rolls 1
        0.1,  # B <0,1> J1 rolls 1
        0.1,  # A <1,1> J1 rolls 1
        0.1,  # B <1,2> J1 rolls 1 -> 2
        0.1,  # A <2,2> J2 (untried) rolls 2 -> 4: A wins
    ]
    win, lose, counters = empty(), empty(), np.zeros(2, np.int64)
    rng = ScriptedRng(script)
    ref.count_self_play("ucb", win, lose, counters, TINY.sum_cdf_table, TINY.low, TINY.high,
                        (1.0,), 3, rng)
    assert rng.used_up() and counters.tolist() == [3, 9]
    assert win[0, 0].tolist() == [0, 2, 1] and lose[0, 0].tolist() == [0, 0, 0]
    assert win[2, 2].tolist() == [0, 1, 1] and win[1, 1, 1] == 1
    assert lose[0, 2, 1] == 1 and lose[0, 1, 1] == 1 and lose[1, 2, 1] == 1
    assert win.sum() + lose.sum() == 9


def test_thompson_game_by_hand():
    # With all normals 0 and uniforms 0.5 every Beta draw is d_w / (d_w + d_l): with no data
    # J = 1 and J = 2 tie (the lowest wins), so every move rolls 1 die; the rolls decide.
    script_u = []
    moves = [0.6, 0.6, 0.9]  # A <0,0> rolls 2; B <0,2> rolls 2; A <2,2> rolls 2 -> 4 wins
    for x in moves:
        script_u += [0.5] * 4 + [x]  # four Gamma uniforms, then the roll
    win, lose, counters = empty(), empty(), np.zeros(2, np.int64)
    rng = ScriptedRng(script_u, [0.0] * 12)
    ref.count_self_play("thompson", win, lose, counters, TINY.sum_cdf_table, TINY.low,
                        TINY.high, (), 1, rng)
    assert rng.used_up() and counters.tolist() == [1, 3]
    assert win[0, 0, 1] == 1 and lose[0, 2, 1] == 1 and win[2, 2, 1] == 1
