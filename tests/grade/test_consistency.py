"""The consistency statistic: calibrated on held-out runs, nominal false alarms, power against
wrong play."""

from __future__ import annotations

from bisect import bisect_right

import numpy as np
import pytest

from dicejack import grade
from dicejack.games.handout_rules import Game
from dicejack.grade.evidence.calibration import calibration
from dicejack.grade.evidence.consistency import consistency
from dicejack.grade.evidence.references import reference_tie_break
from dicejack.learners import formulas

from .support import CONFIG, GAME, GAMES, M, grade_of, tables


def test_null_is_the_held_out_calibration_runs(refs):
    c = CONFIG.calibration
    cal = calibration(refs)
    assert cal.null.shape == (c,) and np.all(np.isfinite(cal.null))
    mean, sd, n = cal.null_fit
    assert n == c and mean == pytest.approx(np.log(cal.null).mean())
    assert sd == pytest.approx(np.log(cal.null).std(ddof=1))
    # calibration run 0 is a faithful run at the seed after the references', scored like a
    # submission
    assert CONFIG.calibration_seeds[0] == CONFIG.seed + CONFIG.references
    tie = reference_tie_break(CONFIG.references)
    best, prob = tables(seed=CONFIG.calibration_seeds[0], tie_break=tie)
    np.testing.assert_array_equal(refs.held_best[0], best)
    own = consistency(refs, best, prob)
    assert own.statistic == pytest.approx(cal.null[0])
    # the references themselves are not in the null
    assert not np.any(np.isin(CONFIG.calibration_seeds, CONFIG.seeds))


def test_null_at_printed_precision_is_its_own_leave_one_out(refs):
    cal = calibration(refs)
    null2 = cal.null_at(2)
    assert null2.shape == cal.null.shape and not np.array_equal(null2, cal.null)
    best, prob = tables(seed=24)
    g = grade_of(refs, best, np.where(prob >= 0, np.round(prob, 2), -1.0))
    assert g.decimals == 2 and g.consistency.null_mean == pytest.approx(null2.mean())


@pytest.mark.slow
def test_false_alarm_rate_is_nominal_on_fresh_seeds():
    """10 reference sets x 60 fresh correct runs: P(p < 0.05) and P(p < 0.01) near nominal."""
    ps = []
    for s in range(10):
        cfg = grade.GradeConfig(GAME, M, GAMES, seed=10_000 + 100 * s)
        refs = grade.reference_runs(cfg, cache_dir=False)
        for seed in range(50_000 + 60 * s, 50_000 + 60 * (s + 1)):
            best, prob = tables(seed=seed)
            ps.append(consistency(refs, best, prob).p_value)
    ps = np.array(ps)
    assert abs(np.mean(ps < 0.05) - 0.05) <= 0.02, np.mean(ps < 0.05)
    assert np.mean(ps < 0.01) <= 0.025


def test_transposed_tables_are_graded_transposed_back_less_the_format_points(refs):
    # A correct program that prints table[Y][X] made a printing slip, not an algorithm error:
    # it loses the format part (10 points) and goes to review, but keeps quality and
    # consistency (it used to score as printed: a fail near 0 / 100).
    best, prob = tables(seed=9)
    g = grade_of(refs, best.T, prob.T)
    straight = grade_of(refs, best, prob)
    assert "transposed" in g.flags and g.verdict == "review"
    assert g.points == {**straight.points, "format": 0.0}
    assert g.score == pytest.approx(straight.score - 10.0)
    assert g.consistency_p == straight.consistency_p and g.metrics == straight.metrics
    np.testing.assert_array_equal(g.policy, straight.policy)  # graded the right way round
    assert g.what_if == {"printed as table[X][Y]": straight.score}
    as_printed = grade.grade_tables(refs, best.T, prob.T, what_if=False)
    assert as_printed.what_if == {} and as_printed.score == g.score


def test_greedy_play_the_wrong_m_is_flagged(refs):
    g = grade_of(refs, *tables(m=0.0, seed=10))
    assert g.verdict == "fail" and g.consistency_p < 1e-3 and "inconsistent" in g.flags


def test_m_ten_times_too_small_is_flagged(refs):
    g = grade_of(refs, *tables(m=M / 10, seed=11))
    assert g.consistency_p < 0.05 and g.verdict != "pass"


def test_uniform_random_play_is_flagged(refs):
    g = grade_of(refs, *tables(m=1e12, seed=12))  # p_J = 1/K whatever the counts
    assert g.consistency_p < 0.05 and g.verdict != "pass"


def _learn_variant(game: Game, m: float, games: int, seed: int, wrong: bool):
    """The handout's learner in plain Python; `wrong` drops the (1 - p_B) factor from p_J."""
    rng = np.random.default_rng(seed)
    k, low, high = game.n_dice, game.low, game.high
    win = np.zeros(game.table_shape, dtype=np.int64).tolist()
    lose = np.zeros(game.table_shape, dtype=np.int64).tolist()
    cdf = game.sum_cdf_table.tolist()
    for _ in range(games):
        a = b = mover = 0
        moves = []
        while True:
            w, lo = win[a][b], lose[a][b]
            t = sum(w) + sum(lo)
            f = [0.0] * (k + 1)
            best = 1
            for j in range(1, k + 1):
                d = w[j] + lo[j]
                f[j] = w[j] / d if d else 0.5
                if f[j] > f[best]:
                    best = j
            pb = (t * f[best] + m) / (t * f[best] + k * m)
            g = sum(f[j] for j in range(1, k + 1) if j != best)
            rest = 1.0 if wrong else 1.0 - pb
            p = [0.0] + [pb if j == best else rest * (t * f[j] + m) / (g * t + (k - 1) * m)
                         for j in range(1, k + 1)]
            x, j, u = rng.random(), k, 0.0
            for i in range(1, k):
                u += p[i]
                if x < u:
                    j = i
                    break
            total = bisect_right(cdf[j], rng.random())
            moves.append((a, b, j))
            if a + total > high or a + total >= low:
                winner = mover if a + total <= high else 1 - mover
                break
            a, b, mover = b, a + total, 1 - mover
        for i, (x, y, j) in enumerate(moves):
            (win if i % 2 == winner else lose)[x][y][j] += 1
    return formulas.learned_tables(np.array(win), np.array(lose))


def test_python_variant_matches_the_learner():
    best, prob = _learn_variant(GAME, M, 300, 13, wrong=False)
    b2, p2 = tables(seed=13, games=300)
    np.testing.assert_array_equal(best, b2)
    np.testing.assert_array_equal(prob, p2)


def test_wrong_p_j_formula_is_flagged(refs):
    g = grade_of(refs, *_learn_variant(GAME, M, GAMES, 14, wrong=True))
    assert g.consistency_p < 1e-3 and g.verdict == "fail"
