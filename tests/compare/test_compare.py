"""Metrics of learned tables against the truth, on hand-made tables with hand-computed answers."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from dicejack import compare, solver
from dicejack.cli import main
from dicejack.compare.metrics import STATE_CLASSES, metric_values, state_classes
from dicejack.formats.learner_runs import save_run_npz
from dicejack.formats.tables import format_table
from dicejack.games.handout_rules import Game
from dicejack.learners import formulas, handout
from tests.games import HANDOUT
from tests.games import SMALLEST as TINY

# The tiny game used for hand computation: a two-sided die (1 or 2), target exactly 2, up to 2
# dice; states <x, y> with x, y in {0, 1}.
#   J=1 shows 1 or 2 (1/2 each); J=2 totals 2, 3, 4 with 1/4, 1/2, 1/4.
#   <1,y>: J=1 wins on a 1, busts on a 2: Q=1/2; J=2 always busts: Q=0.        P* = 1/2
#   <0,1>: J=1: 1/2 win + 1/2 * (1 - P(1,1)) = 3/4; J=2: 1/4.                  P* = 3/4
#   <0,0>: J=1: 1/2 win + 1/2 * (1 - P(0,1)) = 5/8; J=2: 1/4.                  P* = 5/8
# Optimal play is always J=1. <1,0> is unreachable (the opponent has moved, so has >= 1).
# Visits with optimal play: <0,0> 1, <0,1> 1/2, <1,1> 1/4: all on-path, and all decisive.


def test_tiny_truth_matches_the_hand_computation(tiny_truth):
    t = tiny_truth
    np.testing.assert_allclose(t.solution.p, [[5 / 8, 3 / 4], [1 / 2, 1 / 2]])
    np.testing.assert_array_equal(t.solution.best, [[1, 1], [1, 1]])
    np.testing.assert_array_equal(t.reachable, [[True, True], [False, True]])
    np.testing.assert_allclose(t.visit, [[1, 1 / 2], [0, 1 / 4]])
    np.testing.assert_array_equal(t.onpath, [[True, True], [False, True]])
    np.testing.assert_array_equal(t.decisive, t.onpath)
    assert t.set_sizes()["lost"] == 0


def test_perfect_table_scores_agreement_1_regret_0_score_half(handout_truth):
    sol = handout_truth.solution
    c = compare.compare(HANDOUT, handout_truth, (sol.best, sol.p))
    for name in ("agreement_all", "agreement_reachable", "agreement_onpath",
                 "agreement_decisive", "weighted_agreement"):
        assert c.metrics[name] == 1.0, name
    for name in ("rmse_onpath", "mae_onpath", "max_error_onpath", "rmse_q_onpath",
                 "regret_decisive", "weighted_regret"):
        assert c.metrics[name] == pytest.approx(0.0, abs=1e-15), name
    assert c.score_vs_optimal == pytest.approx(0.5, abs=1e-12)
    assert c.states_with_data == HANDOUT.states
    assert c.wrong_decisive == ()
    assert list(c.metrics) == list(compare.METRIC_NAMES)


def test_any_optimal_choice_in_a_tie_counts_as_agreement(handout_truth):
    sol = handout_truth.solution
    ties = sol.optimal[:, :, 1:].sum(axis=2) > 1
    assert ties.any()
    highest = np.where(ties, HANDOUT.n_dice - np.argmax(sol.optimal[:, :, :0:-1], axis=2),
                       sol.best)
    assert (highest != sol.best).any()
    c = compare.compare(HANDOUT, handout_truth, (highest, sol.p))
    assert c.agreement_all == 1.0 and c.regret_decisive == 0.0


def test_always_the_worst_action_scores_what_the_hand_computation_says(tiny_truth):
    best = np.full(TINY.shape, 2)  # J=2 is the worse action in every state
    prob = np.zeros(TINY.shape)
    m = compare.compare(TINY, tiny_truth, (best, prob)).metrics
    for name in ("agreement_all", "agreement_reachable", "agreement_onpath",
                 "agreement_decisive", "weighted_agreement"):
        assert m[name] == 0.0, name
    # Regrets P* - Q*(s, 2): <0,0> 5/8 - 1/4, <0,1> 3/4 - 1/4, <1,1> 1/2 - 0.
    assert m["regret_decisive"] == pytest.approx((3 / 8 + 1 / 2 + 1 / 2) / 3)
    # Weighted by visits 1, 1/2, 1/4 (normalised by 7/4).
    assert m["weighted_regret"] == pytest.approx((3 / 8 + 1 / 4 + 1 / 8) / (7 / 4))
    # Estimates 0 against P* = 5/8, 3/4, 1/2 on the three on-path states.
    assert m["rmse_onpath"] == pytest.approx(math.sqrt((25 + 36 + 16) / 64 / 3))
    assert m["mae_onpath"] == pytest.approx(5 / 8)
    assert m["max_error_onpath"] == pytest.approx(3 / 4)
    # ... and against Q*(s, 2) = 1/4, 1/4, 0.
    assert m["rmse_q_onpath"] == pytest.approx(math.sqrt(1 / 24))
    # First, always-2 wins only by rolling exactly 2: 1/4. Optimal first wins 1/2 at once, else
    # the always-2 player at <0,1> busts with 3/4: 1/2 + 3/8 = 7/8. Score = (1/4 + 1/8) / 2.
    assert m["score_vs_optimal"] == pytest.approx(3 / 16)
    assert m["states_with_data"] == 4


def test_a_state_without_data_is_wrong_with_the_regret_of_a_random_j(tiny_truth):
    best = np.array([[0, 1], [1, 1]])  # <0,0> never seen
    prob = np.array([[-1, 0.75], [0.5, 0.5]])
    c = compare.compare(TINY, tiny_truth, (best, prob))
    m = c.metrics
    assert m["agreement_decisive"] == pytest.approx(2 / 3)
    # Random J at <0,0>: 5/8 - (5/8 + 1/4) / 2 = 3/16, the other two states 0.
    assert m["regret_decisive"] == pytest.approx(3 / 16 / 3)
    assert m["weighted_regret"] == pytest.approx(3 / 16 / (7 / 4))
    assert m["rmse_onpath"] == pytest.approx(0.0, abs=1e-15)  # <0,0> has no estimate
    # Learned first plays a random J at <0,0>: (5/8 + 1/4) / 2; it never moves at <0,0> second.
    assert m["score_vs_optimal"] == pytest.approx(0.5 * (7 / 16 + 1 - 5 / 8))
    assert m["states_with_data"] == 3
    (w,) = c.wrong_decisive
    assert (w.x, w.y, w.learned, w.optimal, w.estimate) == (0, 0, 0, (1,), -1.0)
    assert w.regret == pytest.approx(3 / 16)
    classes = state_classes(tiny_truth, compare.as_learned(TINY, (best, prob)))
    names = [[STATE_CLASSES[c] for c in row] for row in classes]
    assert names[0][0] == "no data" and names[1][0].startswith("unreachable")


def test_empty_sets_give_nan_not_errors(tiny_truth):
    nothing = compare.learned_from_tables(TINY, np.zeros(TINY.shape), np.full(TINY.shape, -1.0))
    m = metric_values(tiny_truth, nothing)
    assert m["agreement_all"] == 0.0 and m["states_with_data"] == 0
    assert math.isnan(m["rmse_onpath"]) and math.isnan(m["max_error_onpath"])
    # Everything is played at random: regret is that of a random J everywhere.
    assert m["regret_decisive"] == pytest.approx((3 / 16 + 1 / 4 + 1 / 4) / 3)


def test_wrong_states_are_listed_worst_regret_first(handout_truth):
    run = handout.learn(HANDOUT, 100.0, 3000, seed=5)
    c = compare.compare(HANDOUT, handout_truth, run)
    regrets = [w.regret for w in c.wrong_decisive]
    assert regrets and regrets == sorted(regrets, reverse=True)
    assert len(regrets) == round((1 - c.agreement_decisive) * c.sets["decisive"])
    text = compare.format_comparison(c)
    assert "agreement_decisive" in text and "worst regret first" in text
    json.dumps(c.as_dict(), allow_nan=False)
    # In Python the text says how Python gets them all (not the command line's option).
    short = compare.format_comparison(c, limit=2).splitlines()
    assert short[-1] == f"... and {len(regrets) - 2} more (limit=None for all)."
    assert "--format" not in compare.format_comparison(c, limit=2)
    assert len(compare.format_comparison(c, limit=None).splitlines()) == len(short) + len(
        regrets) - 3
    # the handout's own run, named as learners.Run names a run
    assert c.source == "handout m=100 tie_break=lowest seed=5 games=3000"


def test_counts_go_through_the_learners_pure_function(handout_truth):
    run = handout.learn(HANDOUT, 100.0, 2000, seed=2)
    learned = compare.as_learned(HANDOUT, run)
    best, prob = formulas.learned_tables(run.win, run.lose)
    np.testing.assert_array_equal(learned.best, best)
    np.testing.assert_array_equal(learned.probability, prob)
    assert compare.compare(HANDOUT, handout_truth, run).metrics == metric_values(
        handout_truth, learned
    )
    # The same run as a Solution instead of a prepared Truth: same numbers.
    assert compare.compare(HANDOUT, handout_truth.solution, run).metrics == metric_values(
        handout_truth, learned
    )


def test_score_is_the_exact_evaluation_of_the_greedy_policy(handout_truth):
    run = handout.learn(HANDOUT, 100.0, 1000, seed=9)
    learned = compare.as_learned(HANDOUT, run)
    greedy = compare.greedy_distribution(handout_truth, learned)
    sol = handout_truth.solution
    first, second = solver.evaluate(HANDOUT, greedy, sol), solver.evaluate(HANDOUT, sol, greedy)
    expect = 0.5 * (first + 1 - second)
    assert metric_values(handout_truth, learned)["score_vs_optimal"] == expect


def test_tables_from_another_game_are_refused(handout_truth):
    with pytest.raises(compare.CompareError, match="another game"):
        compare.compare(HANDOUT, handout_truth, (np.ones((10, 10)), np.zeros((10, 10))))
    run = handout.learn(TINY, 10.0, 10, seed=1)
    with pytest.raises(compare.CompareError, match="another game"):
        compare.compare(HANDOUT, handout_truth, run)


# ------------------------------------------------------------------------------ the command
def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_compare_command_on_a_run_file(tmp_path, capsys):
    path = tmp_path / "run.npz"
    save_run_npz(path, handout.learn(HANDOUT, 100.0, 5000, seed=1))
    code, out, err = run_cli(capsys, "compare", str(path))
    assert code == 0, err
    assert "agreement_decisive" in out and "P*(0,0) = 0.576273" in out
    # the file and what it holds: not "run m=100"
    assert out.splitlines()[0] == (
        f"learned: {path}: handout m=100 tie_break=lowest seed=1 games=5000")
    assert out.splitlines()[-1].endswith("more (--format json for all).")
    code, out, _ = run_cli(capsys, "compare", str(path), "--format", "json")
    data = json.loads(out)
    assert list(data["metrics"]) == list(compare.METRIC_NAMES)
    assert data["wrong_decisive"][0]["regret"] >= data["wrong_decisive"][-1]["regret"]
    code, _, err = run_cli(capsys, "compare", str(path), "--low", "14")
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1


def test_the_solvers_printed_tables_fed_back_through_compare_are_perfect(tmp_path, capsys):
    code, out, _ = run_cli(capsys, "solve", "--sides", "4", "--low", "9", "--high", "10",
                           "--dice", "3")
    assert code == 0
    path = tmp_path / "TABLES.txt"
    path.write_text(out)
    code, out, err = run_cli(capsys, "compare", str(path), "--sides", "4", "--low", "9",
                             "--high", "10", "--dice", "3", "--format", "json")
    assert code == 0, err
    m = json.loads(out)["metrics"]
    assert m["agreement_all"] == 1.0 and m["regret_decisive"] == 0.0
    assert m["score_vs_optimal"] == pytest.approx(0.5, abs=1e-12)
    assert m["rmse_onpath"] < 1e-4  # printed with 4 decimals


def test_compare_command_bad_input(tmp_path, capsys):
    code, _, err = run_cli(capsys, "compare", str(tmp_path / "missing.txt"))
    assert code == 2 and err.startswith("error: ")
    junk = tmp_path / "junk.txt"
    junk.write_text("1 2 3\n")
    code, _, err = run_cli(capsys, "compare", str(junk))
    assert code == 2 and "cannot read two 15x15 tables" in err


# ------------------------------------------------------------------- what users have at hand
def test_raw_count_tables_are_accepted(handout_truth):
    run = handout.learn(HANDOUT, 100.0, 2000, seed=4)
    expected = compare.compare(HANDOUT, handout_truth, run).metrics
    assert compare.compare(HANDOUT, handout_truth, (run.win, run.lose)).metrics == expected
    lists = (run.win.tolist(), run.lose.tolist())
    assert compare.compare(HANDOUT, handout_truth, lists).metrics == expected
    best, prob = formulas.learned_tables(run.win, run.lose)
    assert compare.compare(HANDOUT, handout_truth, (best, prob)).metrics == expected
    for bad in [(run.win, prob), (best, run.lose), (run.win[0], run.lose[0, 0])]:
        with pytest.raises(compare.CompareError, match=r"\(best, probability\), each 15x15, "
                           r"or the counts \(win, lose\), each of shape \(15, 15, 3\)"):
            compare.compare(HANDOUT, handout_truth, bad)
    with pytest.raises(compare.CompareError, match="another game"):
        compare.compare(HANDOUT, handout_truth, (run.win[:10, :10], run.lose[:10, :10]))


# ------------------------------------ slips in printed tables (their rules: tests/test_hints.py)
def test_compare_command_names_the_size_it_found_and_the_slips(tmp_path, capsys):
    game = Game(6, 10, 12, 2)
    sol = solver.solve(game)
    grid = (format_table(sol.best, "Best number of dice:", kind="int") + "\n"
            + format_table(sol.p, "Win probability:"))
    path = tmp_path / "tables.txt"  # no params header, as a student's program prints
    path.write_text(grid)
    code, out, err = run_cli(capsys, "compare", str(path))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "cannot read two 15x15 tables" in err
    assert err.rstrip().endswith("the tables are 10x10: LTarget=10? try --low 10 --high <UTarget>")
    code, out, err = run_cli(capsys, "compare", str(path), "--low", "10", "--high", "12")
    assert code == 0 and err == "" and "agreement_decisive" in out
    path.write_text(format_table(sol.best.T, "Best number of dice:", kind="int") + "\n"
                    + format_table(sol.p.T, "Win probability:"))
    code, out, err = run_cli(capsys, "compare", str(path), "--low", "10", "--high", "12",
                             "--format", "json")
    assert code == 0 and json.loads(out)["params"]["low"] == 10
    assert err.startswith("hint: the tables look transposed") and err.count("\n") == 1
    path.write_text(format_table(sol.best - 1, "Best number of dice:", kind="int") + "\n"
                    + format_table(sol.p, "Win probability:"))
    code, out, err = run_cli(capsys, "compare", str(path), "--low", "10", "--high", "12")
    assert code == 0 and err.startswith("hint: J looks 0-based (0..1 printed for 1..2 dice)")


def test_a_learners_checkpoint_is_compared_like_its_arrays():
    from dicejack import learners

    game = Game(4, 8, 9, 2)
    run = learners.learn(game, "ucb", games=2_000, seed=3, checkpoints=[500])
    snap = run.snapshots[500]
    direct = compare.compare(game, None, snap)
    arrays = compare.compare(game, None, (snap.best, snap.probability))
    assert direct.as_dict() == arrays.as_dict()
    assert compare.compare(game, None, run).as_dict() != direct.as_dict()
