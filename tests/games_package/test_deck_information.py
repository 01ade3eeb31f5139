"""The deck divide-the-dollar game between two players with hidden hands (DeckDuel, issue 47):
its tree counted exactly and refused past the limit; a one-round deck solved by hand (value 0,
uniform play 1/9, exploitability 1/18); the sequence form's value equal to a brute force over
pure strategies (a matrix game solved by its own LP); every fixed, uniform and random
observation policy's value against the study's uniform opponent equal to the one-player exact
evaluator's (solver.deck_evaluation, an independent implementation); the commands take it."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from dicejack.cli import main
from dicejack.games.deck_dollar import DeckDollar, fixed_policy, uniform_policy
from dicejack.games.deck_information import (
    DeckDuel,
    count_histories,
    observation_policy,
    study_uniform,
)
from dicejack.games.information import HISTORIES_LIMIT, enumerate_information
from dicejack.games.protocol import GameDefinitionError
from dicejack.games.registry import INFORMATION_GAMES, make_game
from dicejack.solver import information_policies as ip
from dicejack.solver.deck_evaluation import evaluate_deck_policy
from dicejack.solver.sequence_form import solve_sequence_form

SMALL = [DeckDuel((1, 2, 1), 1), DeckDuel((2, 2, 2), 1), DeckDuel((2, 3, 2), 2),
         DeckDuel((2, 3, 2), 2, passing=False), DeckDuel((3, 2, 3), 3, passing=False)]


def test_the_tree_is_counted_exactly():
    sizes = {g.label(): g.histories for g in SMALL}
    assert sizes == {
        "deck-duel counts=1,2,1 hand_size=1 rounds=2 passing=True": 74,
        "deck-duel counts=2,2,2 hand_size=1 rounds=3 passing=True": 923,
        "deck-duel counts=2,3,2 hand_size=2 rounds=2 passing=True": 1161,
        "deck-duel counts=2,3,2 hand_size=2 rounds=2 passing=False": 987,
        "deck-duel counts=3,2,3 hand_size=3 rounds=2 passing=False": 1395,
    }
    for game in SMALL:
        assert enumerate_information(game).n_nodes == game.histories


def test_the_studys_deck_is_refused_in_one_line_with_the_size_and_the_limit():
    with pytest.raises(GameDefinitionError) as info:
        DeckDuel((16, 28, 16), 5)
    text = str(info.value)
    assert "\n" not in text and "more than 1,000,000 histories" in text
    assert "23,108,656 already within its first 3 rounds" in text
    assert count_histories(DeckDollar((16, 28, 16), 5), HISTORIES_LIMIT) == (23_108_656, 3)
    assert count_histories(DeckDollar((2, 3, 2), 2), 1000) == (1161, 2)  # cut at round 2


def test_registered_with_counts_as_text():
    assert INFORMATION_GAMES["deck-duel"] is DeckDuel
    game = make_game("deck-duel", {"counts": "2,3,2", "hand_size": 2, "passing": "false"})
    assert game == DeckDuel((2, 3, 2), 2, passing=False) and game.rounds == 2
    with pytest.raises(GameDefinitionError, match="passing must be true or false"):
        make_game("deck-duel", {"passing": "maybe"})


def test_one_round_solved_by_hand():
    """Deck 1/4, 1/2, 1/2, 3/4, hands of one, one round: player 0 leads its card; player 1
    decides only when the two sum above 1: spoil (a draw) or pass (player 0 scores). Deals with
    a sum at most 1 are symmetric (+1 and -1 alike likely): value 0. Uniform play passes 1/3 of
    the time in the deals (1/2, 3/4) and (3/4, 1/2), 1/6 each: player 0 wins 1/9."""
    game = DeckDuel((1, 2, 1), 1, rounds=1)
    tree = enumerate_information(game)
    assert [s.actions for s in tree.decisions()] == [("small_spoil+median", "large_max")] * 2
    sol = solve_sequence_form(game)
    assert sol.exact_value == 0
    uniform = study_uniform(tree)
    assert ip.expected_payoff(tree, uniform) == Fraction(1, 9)
    assert ip.exploitability(tree, uniform) == Fraction(1, 18)  # (1/9 + 0) / 2


def _pure_strategies(tree, player):
    sets = tree.decisions(player)
    for choice in itertools.product(*(s.actions for s in sets)):
        yield {s.key: {a: 1} for s, a in zip(sets, choice, strict=True)}


def _matrix_game_value(matrix):
    """max_x min_j x . M[:, j] by scipy's linprog: an LP of its own, not the sequence form."""
    from scipy.optimize import linprog

    m, n = matrix.shape
    c = np.zeros(m + 1)
    c[-1] = -1.0  # maximise v
    a_ub = np.hstack([-matrix.T, np.ones((n, 1))])  # v - x . M[:, j] <= 0
    a_eq = np.hstack([np.ones((1, m)), np.zeros((1, 1))])
    res = linprog(c, A_ub=a_ub, b_ub=np.zeros(n), A_eq=a_eq, b_eq=[1.0],
                  bounds=[(0, None)] * m + [(None, None)], method="highs")
    return -res.fun


@pytest.mark.parametrize("game", [DeckDuel((1, 2, 1), 1), DeckDuel((2, 1, 1), 1),
                                  DeckDuel((2, 2, 2), 2, rounds=1),
                                  DeckDuel((0, 3, 2), 2, rounds=1),
                                  DeckDuel((1, 2, 1), 1, rounds=1)],
                         ids=lambda g: g.label())
def test_the_sequence_form_value_is_the_brute_force_over_pure_strategies(game):
    tree = enumerate_information(game)
    rows = list(_pure_strategies(tree, 0))
    cols = list(_pure_strategies(tree, 1))
    assert len(rows) * len(cols) <= 4096
    matrix = np.array([[float(ip.expected_payoff(tree, {**r, **c})) for c in cols]
                       for r in rows])
    sol = solve_sequence_form(game)
    assert abs(_matrix_game_value(matrix) - sol.value) <= 1e-9
    assert sol.exact_value == 0 and abs(float(ip.exploitability(tree, sol.policy()))) <= 1e-9


@pytest.mark.parametrize("game", SMALL, ids=lambda g: g.label())
def test_observation_policies_agree_with_the_one_player_exact_evaluator(game):
    tree = enumerate_information(game)
    rng = np.random.default_rng(47)
    opponent = study_uniform(tree, 1)
    for policy in (fixed_policy(0), fixed_policy(1), fixed_policy(2), uniform_policy(),
                   rng.dirichlet(np.ones(3), size=40)):
        ours = float(ip.expected_payoff(tree, {**observation_policy(tree, policy), **opponent}))
        theirs = evaluate_deck_policy(game.deck, policy, compiled=False).expected
        assert abs(ours - theirs) <= 1e-12


def test_known_exact_values():
    tree = enumerate_information(DeckDuel((1, 2, 1), 1))
    assert ip.expected_payoff(tree, study_uniform(tree)) == Fraction(-5, 324)
    tree = enumerate_information(DeckDuel((2, 3, 2), 2))
    assert ip.expected_payoff(tree, study_uniform(tree)) == Fraction(184, 2835)
    br = ip.best_response(tree, study_uniform(tree, 1), 0)
    assert br.value == Fraction(65, 189)  # the most seat 0 wins against uniform play


# ------------------------------------------------------------------------------ the commands
GAME = ["--game", "deck-duel", "--game-param", "counts=2,3,2", "--game-param", "hand_size=2"]


def test_solve_learn_take_a_small_deck_and_refuse_the_studys(capsys):
    assert main(["solve", *GAME]) == 0
    out = capsys.readouterr().out
    assert "value for player 0: 0 (exactly 0)" in out or "(exactly 0)" in out
    assert main(["learn", *GAME, "--games", "200", "--format", "json"]) == 0
    capsys.readouterr()
    big = ["--game", "deck-duel", "--game-param", "counts=16,28,16", "--game-param",
           "hand_size=5"]
    for command in (["solve"], ["learn", "--games", "10"]):
        assert main([*command, *big]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and err.startswith("error: deck-duel counts=16,28,16")
        assert "more than 1,000,000 histories" in err


def test_report_takes_a_small_deck(capsys, tmp_path):
    out = tmp_path / "rep"
    assert main(["report", "--game", "deck-duel", "--game-param", "counts=2,2,2",
                 "--game-param", "hand_size=2", "--games", "10,100", "--seeds", "2",
                 "--out", str(out)]) == 0
    text = (out / "report.md").read_text()
    assert "526 nodes in its tree of plays, 98 information sets" in text
    assert "deck-duel counts=2,2,2 hand_size=2 rounds=2 passing=True" in text


def test_a_zero_value_is_printed_as_zero_not_minus_zero(capsys):
    """HiGHS can return -0.0 for a value of 0; the solution's value is +0.0 (solve prints 0)."""
    sol = solve_sequence_form(make_game("deck-duel"))
    assert sol.value == 0 and np.copysign(1.0, sol.value) == 1.0
    assert main(["solve", "--game", "deck-duel"]) == 0
    assert "value for player 0: 0 (exactly 0)" in capsys.readouterr().out
