"""Policies of games with hidden information (dicejack.solver.information_policies): best
responses against brute force over every deterministic policy, exploitability equal to
OpenSpiel's on its own kuhn_poker, exact with Fractions, and bad policies named."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dicejack.games.information import enumerate_information
from dicejack.games.kuhn import Kuhn
from dicejack.solver.information_policies import (
    best_response,
    expected_payoff,
    exploitability,
    nash_conv,
    uniform_policy,
)
from dicejack.solver.solution import SolverError
from tests.hidden_games import HiddenCoin, HiddenMatrix, deterministic_policies

KUHN = enumerate_information(Kuhn())


def random_policy(tree, seed: int, exact: bool = False) -> dict:
    """Random action probabilities at every decision key (Fractions of 1/12 when exact)."""
    rng = np.random.default_rng(seed)
    out = {}
    for s in tree.decisions():
        if exact:
            k = int(rng.integers(0, 13))
            out[s.key] = dict(zip(s.actions, (Fraction(k, 12), Fraction(12 - k, 12)),
                                  strict=True))
        else:
            w = rng.random(len(s.actions))
            out[s.key] = dict(zip(s.actions, w / w.sum(), strict=True))
    return out


def openspiel_policy(game, policy: dict):
    """Our Kuhn policy (keys 'Jpb') as OpenSpiel's TabularPolicy (keys '0pb')."""
    from open_spiel.python import policy as os_policy

    table = os_policy.TabularPolicy(game)
    keys = {str("JQK".index(key[0])) + key[1:]: row for key, row in policy.items()}
    assert sorted(keys) == sorted(table.state_lookup)  # every one of OpenSpiel's 12 keys
    for key, row in keys.items():
        table.action_probability_array[table.state_lookup[key]] = [float(row["pass"]),
                                                                   float(row["bet"])]
    return table


def openspiel_exploitability(policy: dict) -> float:
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import exploitability as os_exploitability

    game = pyspiel.load_game("kuhn_poker")
    return os_exploitability.exploitability(game, openspiel_policy(game, policy))


def test_uniform_exploitability_equals_openspiel():
    uniform = uniform_policy(KUHN)
    ours = exploitability(KUHN, uniform)
    assert ours == Fraction(11, 24)  # exact: Fractions in, Fractions out
    assert abs(float(ours) - openspiel_exploitability(uniform)) <= 1e-12
    floats = {k: {a: float(p) for a, p in row.items()} for k, row in uniform.items()}
    assert abs(exploitability(Kuhn(), floats) - openspiel_exploitability(uniform)) <= 1e-12


@pytest.mark.parametrize("seed", range(5))
def test_random_policies_exploitability_equals_openspiel(seed):
    policy = random_policy(KUHN, seed)
    assert abs(exploitability(KUHN, policy) - openspiel_exploitability(policy)) <= 1e-12


@pytest.mark.parametrize("mutated", [Kuhn(ante=2), Kuhn(bet=2)])
def test_a_mutated_rule_breaks_the_openspiel_comparison(mutated):
    """The comparison has teeth: the same policies on a game with another stake disagree."""
    for policy in (uniform_policy(KUHN), random_policy(KUHN, 7)):
        gap = abs(float(exploitability(mutated, policy)) - openspiel_exploitability(policy))
        assert gap > 0.05, gap


def openspiel_best_response_values(policy: dict) -> list[float]:
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import best_response as os_best_response

    game = pyspiel.load_game("kuhn_poker")
    table = openspiel_policy(game, policy)
    root = game.new_initial_state()
    return [os_best_response.BestResponsePolicy(game, p, table).value(root) for p in (0, 1)]


@pytest.mark.parametrize("seed", range(3))
def test_each_best_response_value_equals_openspiel(seed):
    policy = random_policy(KUHN, seed)
    ours = [best_response(KUHN, policy, p).value for p in (0, 1)]
    assert ours == pytest.approx(openspiel_best_response_values(policy), abs=1e-12)


@pytest.mark.parametrize("player", [0, 1])
@pytest.mark.parametrize("seed", [0, 1])
def test_best_response_is_the_best_deterministic_policy_by_brute_force(player, seed):
    """64 deterministic policies a player on Kuhn, each evaluated exactly against a fixed
    exact policy of the other: the best of them is the best response's value, and the
    response's own policy earns it."""
    fixed = random_policy(KUHN, seed, exact=True)
    sign = 1 if player == 0 else -1
    other = {k: v for k, v in fixed.items() if KUHN.infosets[KUHN.index[k]].player != player}
    earned = [sign * expected_payoff(KUHN, {**other, **mine})
              for mine in deterministic_policies(KUHN, player)]
    assert len(earned) == 64
    response = best_response(KUHN, fixed, player)
    assert response.value == max(earned) and isinstance(response.value, Fraction)
    picked = {k: {a: int(a == c) for a in ("pass", "bet")} for k, c in response.policy.items()}
    assert sorted(picked) == sorted(s.key for s in KUHN.decisions(player))
    assert sign * expected_payoff(KUHN, {**other, **picked}) == response.value


def test_hand_checkable_games():
    matrix = HiddenMatrix(((2, -1), (-1, 1)))
    uniform = uniform_policy(matrix)
    assert expected_payoff(matrix, uniform) == Fraction(1, 4)
    # against a uniform column, H earns 1/2, T earns 0; against a uniform row, H costs 1/2,
    # T costs 0 (player 1's own payoff: 0)
    assert best_response(matrix, uniform, 0).value == Fraction(1, 2)
    assert best_response(matrix, uniform, 0).policy == {"row": "H"}
    assert best_response(matrix, uniform, 1).value == 0
    assert best_response(matrix, uniform, 1).policy == {"column": "T"}
    assert nash_conv(matrix, uniform) == Fraction(1, 2)
    assert exploitability(matrix, uniform) == Fraction(1, 4)
    coin = HiddenCoin(Fraction(2, 3))
    assert best_response(coin, {}, 0).value == Fraction(2, 3)
    assert nash_conv(coin, uniform_policy(coin)) == Fraction(1, 6)
    # player 1 plays its equilibrium (2/5 H): every row earns the value 1/5
    column = {"column": {"H": Fraction(2, 5), "T": Fraction(3, 5)}}
    assert best_response(matrix, column, 0).value == Fraction(1, 5)


@pytest.mark.parametrize(("policy", "message"), [
    ({}, r"the policy gives nothing at information state 'row' \(player 0\)"),
    ({"row": [1]}, r"policy at 'row': 1 probabilities for 2 actions \('H', 'T'\)"),
    ({"row": {"X": 1}}, r"policy at 'row': 'X' is not an action there"),
    ({"row": [Fraction(1, 2), Fraction(1, 3)]}, r"policy at 'row': the probabilities sum to "
                                                r"5/6, not 1"),
    ({"row": [1.5, -0.5]}, r"policy at 'row': probability -0.5 is not a number >= 0"),
    ({"row": [0.5, 0.5 + 1e-6]}, r"sum to 1.000001, not 1"),
    ({"row": 7}, r"give a mapping action -> probability or a list of 2 probabilities"),
])
def test_bad_policies_are_named(policy, message):
    with pytest.raises(SolverError, match=message):
        exploitability(HiddenMatrix(), {"column": [0.5, 0.5], **policy})


def test_only_the_other_players_part_is_read_and_unknown_keys_are_ignored():
    assert best_response(HiddenMatrix(), {"column": [1, 0], "elsewhere": 3}, 0).value == 1
    with pytest.raises(SolverError, match="player 2: the game's players are 0, 1"):
        best_response(HiddenMatrix(), {}, 2)
