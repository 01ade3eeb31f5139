"""The sequence-form equilibrium (dicejack.solver.sequence_form): Kuhn poker's value -1/18 and
its known family of equilibria, an exploitability of ~0 (exactly 0 for the rounded policy), and
hand-checkable matrix games played with a hidden move."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dicejack.games.information import enumerate_information
from dicejack.games.kuhn import Kuhn
from dicejack.solver.information_policies import exploitability
from dicejack.solver.results import BaseSolution, SolverError
from dicejack.solver.sequence_form import sequence_form, solve_sequence_form
from tests.hidden_games import HiddenCoin, HiddenMatrix, deterministic_policies

TOL = 1e-9


@pytest.fixture(scope="module")
def kuhn():
    return solve_sequence_form(Kuhn())


def test_kuhn_value(kuhn):
    assert abs(kuhn.value - (-1 / 18)) <= 1e-12
    assert abs(kuhn.value_check - (-1 / 18)) <= 1e-12
    assert kuhn.exact_value == Fraction(-1, 18)
    assert exploitability(kuhn.tree, kuhn.exact_policy) == 0  # exact: an equilibrium


def test_kuhn_equilibrium_is_unexploitable_by_openspiel_too(kuhn):
    assert 0 <= kuhn.exploitability < TOL
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import exploitability as os_exploitability

    game = pyspiel.load_game("kuhn_poker")
    table = os_policy.TabularPolicy(game)
    for key, row in kuhn.policy().items():
        index = table.state_lookup[str("JQK".index(key[0])) + key[1:]]
        table.action_probability_array[index] = [row["pass"], row["bet"]]
    assert os_exploitability.exploitability(game, table) < TOL


def family_breaks(policy: dict) -> list[str]:
    """Where `policy` leaves Kuhn's known equilibria (Kuhn 1950): the first player bets J with
    some alpha in [0, 1/3], K with 3 alpha, never Q; after pass-bet calls with Q at alpha + 1/3,
    never with J, always with K (when K passes at all); the second player's strategy is unique:
    after a pass it bets K, never Q, J with 1/3; after a bet it calls K, Q with 1/3, never J."""
    bet = {k: float(row["bet"]) for k, row in policy.items()}
    alpha = bet["J"]
    wanted = {"Q": 0.0, "K": 3 * alpha, "Jpb": 0.0, "Qpb": alpha + 1 / 3,
              "Kp": 1.0, "Qp": 0.0, "Jp": 1 / 3, "Kb": 1.0, "Qb": 1 / 3, "Jb": 0.0}
    if 3 * alpha < 1 - TOL:
        wanted["Kpb"] = 1.0
    broken = [k for k, v in wanted.items() if abs(bet[k] - v) > TOL]
    return broken + ([] if -TOL <= alpha <= 1 / 3 + TOL else ["J"])


def test_kuhn_equilibrium_is_in_the_known_family(kuhn):
    assert family_breaks(kuhn.policy()) == []
    assert family_breaks(kuhn.exact_policy) == []
    # the check has teeth: another member passes, a policy off the family fails where it is off
    alpha = Fraction(1, 5)
    member = {**kuhn.exact_policy, "J": {"pass": 1 - alpha, "bet": alpha},
              "K": {"pass": 1 - 3 * alpha, "bet": 3 * alpha},
              "Qpb": {"pass": Fraction(2, 3) - alpha, "bet": alpha + Fraction(1, 3)},
              "Kpb": {"pass": 0, "bet": 1}}
    assert family_breaks(member) == [] and exploitability(kuhn.tree, member) == 0
    assert family_breaks({**member, "Qb": {"pass": 1, "bet": 0}}) == ["Qb"]
    assert family_breaks({**member, "K": {"pass": 0, "bet": 1}}) == ["K"]


def test_a_mutated_rule_moves_the_value():
    assert abs(solve_sequence_form(Kuhn(ante=2)).value - (-1 / 18)) > 1e-3
    assert solve_sequence_form(Kuhn(ante=2, bet=2)).exact_value == Fraction(-2, 18)  # scaled


@pytest.mark.parametrize(("payoffs", "value", "row_h", "column_h"), [
    (((1, -1), (-1, 1)), Fraction(0), Fraction(1, 2), Fraction(1, 2)),  # matching pennies
    (((2, -1), (-1, 1)), Fraction(1, 5), Fraction(2, 5), Fraction(2, 5)),
    (((3, -2), (-1, 4)), Fraction(1), Fraction(1, 2), Fraction(3, 5)),
])
def test_matrix_games_with_a_hidden_move(payoffs, value, row_h, column_h):
    """(ad - bc) / (a + d - b - c); H with (d - c) / ..., the column H with (d - b) / ..."""
    solution = solve_sequence_form(HiddenMatrix(payoffs))
    assert solution.exact_value == value
    assert abs(solution.value - float(value)) <= 1e-12
    assert solution.exact_policy == {"row": {"H": row_h, "T": 1 - row_h},
                                     "column": {"H": column_h, "T": 1 - column_h}}


def test_saddle_point_and_one_player():
    solution = solve_sequence_form(HiddenMatrix(((3, 2), (1, 0))))  # row H dominates; column T
    assert solution.exact_value == 2
    assert solution.exact_policy["row"] == {"H": 1, "T": 0}
    assert solution.exact_policy["column"] == {"H": 0, "T": 1}
    coin = solve_sequence_form(HiddenCoin(Fraction(2, 3)))
    assert coin.exact_value == Fraction(2, 3) and abs(coin.value - 2 / 3) <= 1e-12
    assert coin.policy() == {"guess": {"H": 1.0, "T": 0.0}} and coin.exploitability == 0


def test_matrices_of_the_hidden_matrix():
    a, e, f = sequence_form(enumerate_information(HiddenMatrix(((2, -1), (-1, 1)))))
    assert a.toarray().tolist() == [[0, 0, 0], [0, 2, -1], [0, -1, 1]]
    assert e.toarray().tolist() == [[1, 0, 0], [-1, 1, 1]]
    assert np.array_equal(e.toarray(), f.toarray())


def test_float_payoffs_give_no_exact_value():
    solution = solve_sequence_form(HiddenMatrix(((0.5, -1.0), (-1.0, 1.0))))
    assert solution.exact_value is None and solution.exact_policy is None
    unasked = solve_sequence_form(Kuhn(), exact=False)
    assert unasked.exact_value is None and abs(unasked.value + 1 / 18) <= 1e-12
    assert abs(solution.value - (0.5 - 1) / 3.5) <= 1e-12  # (ad - bc) / (a + d - b - c)


def test_three_players_refused():
    class Three(HiddenMatrix):
        num_players = 3

    with pytest.raises(Exception, match="num_players must be 1 or 2"):
        solve_sequence_form(Three())
    assert issubclass(SolverError, Exception)


class ShuffledKuhn(Kuhn):
    """Kuhn's tree with other payoffs: each end pays a whole number in -3..3 drawn from a seed."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        rng = np.random.default_rng(seed)
        object.__setattr__(self, "table", {end: int(v) for end, v in zip(
            [(c, h) for c in ((a, b) for a in range(3) for b in range(3) if a != b)
             for h in ("pp", "pbp", "pbb", "bp", "bb")], rng.integers(-3, 4, 30), strict=True)})

    def payoff(self, state):
        return self.table[state]


def normal_form_value(game) -> float:
    """The value by the normal form, independently: every deterministic policy of each player
    (64 each on Kuhn's tree), the 64 x 64 matrix of exact payoffs, its matrix-game LP."""
    from scipy.optimize import linprog

    from dicejack.solver.information_policies import expected_payoff

    tree = enumerate_information(game)
    rows, columns = (list(deterministic_policies(tree, p)) for p in (0, 1))
    matrix = np.array([[float(expected_payoff(tree, {**r, **c})) for c in columns] for r in rows])
    n, m = matrix.shape  # max v s.t. x'M >= v, sum x = 1, x >= 0
    res = linprog(np.r_[np.zeros(n), -1.0], A_ub=np.c_[-matrix.T, np.ones(m)],
                  b_ub=np.zeros(m), A_eq=np.r_[np.ones(n), 0.0][None, :], b_eq=[1.0],
                  bounds=[(0, None)] * n + [(None, None)], method="highs")
    return -res.fun


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_value_equals_the_normal_form_value(seed):
    game = ShuffledKuhn(seed)
    solution = solve_sequence_form(game)
    assert abs(solution.value - normal_form_value(game)) <= 1e-9
    assert solution.exploitability < TOL
    assert solution.exact_value is None or abs(float(solution.exact_value) - solution.value) < TOL


def test_kuhn_value_equals_the_normal_form_value():
    assert abs(normal_form_value(Kuhn()) - (-1 / 18)) <= 1e-12


def test_the_one_solver_entry_solves_a_game_with_hidden_information():
    from dicejack.solver import solve

    sol = solve(Kuhn())
    assert isinstance(sol, BaseSolution) and sol.method == "sequence-form"
    assert sol.exact_value == sol.value_exact == Fraction(-1, 18)
    with pytest.raises(SolverError, match="hidden information"):
        solve(Kuhn(), method="value-iteration")


def test_the_base_face_without_an_exact_value_and_for_one_player():
    """No exact value: value_exact and error_bound None, the residual the two programmes'
    optima apart; a one-player game has the same face and refuses the per-state one."""
    solution = solve_sequence_form(HiddenMatrix(((0.5, -1.0), (-1.0, 1.0))))
    assert solution.value_exact is None and solution.error_bound is None
    assert solution.residual == abs(solution.value - solution.value_check) <= 1e-12
    assert solution.sweeps >= 1  # HiGHS's iterations over the two programmes (here 4)
    coin = solve_sequence_form(HiddenCoin(Fraction(2, 3)))  # presolve alone: 0 iterations
    assert coin.sweeps == 0 and coin.value_exact == Fraction(2, 3) and coin.error_bound <= 1e-15
    assert coin.policy() == coin.behaviour
    with pytest.raises(SolverError, match="^hidden-coin heads=2/3 has hidden information"):
        coin.value_of(coin.tree.states[0])
