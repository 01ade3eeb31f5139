"""CFR, CFR+ and outcome-sampling MCCFR (dicejack.learners.cfr): the compiled kernels equal
their plain reference table for table (and draw for draw); on Kuhn poker the average policy's
exact exploitability at fixed checkpoints (values measured once, monotone, CFR+ and CFR below
1e-3 within a few thousand iterations), equal to OpenSpiel's own CFRSolver / CFRPlusSolver
average policy to 1e-9, and outcome sampling to OpenSpiel's OutcomeSamplingSolver made to sample
the same plays; planted bugs fail those checks; the learner contract; known equilibria of small
games."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dicejack.games.kuhn import Kuhn
from dicejack.learners import cfr_reference, check_learner, learn, resume
from dicejack.learners.cfr import CFR, CFR_LEARNERS, exploitability_curve
from dicejack.learners.checks import LearnerError
from dicejack.solver.information_policies import expected_payoff, exploitability
from tests.hidden_games import HiddenCoin, HiddenMatrix

GAMES = [Kuhn(), Kuhn(ante=2, bet=3), HiddenMatrix(((3, -1), (-2, 4))), HiddenCoin()]
KEYS = ("average", "current", "regret", "cumulative")

#: Exploitability of the average policy on Kuhn poker (ante 1, bet 1) at checkpoints, measured
#: with this module's learner (OpenSpiel's rule, which the OpenSpiel test below holds it to).
MEASURED = {
    "cfr+": {1: 0.4583333333333333, 10: 0.03268709066834477, 100: 0.0011944041011116568,
             300: 0.00043340090280585136, 1000: 8.736532252074519e-05,
             2000: 4.3648619373351516e-05, 3000: 3.923119368380579e-05},
    "cfr": {1: 0.4583333333333333, 10: 0.06869879381715757, 100: 0.008225977315915622,
            300: 0.003033960616151063, 1000: 0.00093761664699403,
            2000: 0.0005392433667919388, 3000: 0.0004186306704800566},
}


def no_reach_in_the_average(monkeypatch) -> None:
    """Plant a bug in the reference: the average's sums weigh the policy by 1, not by the
    player's own reach (regrets untouched)."""
    original = cfr_reference.value_pass

    def mutant(p, weight, arrays, tables, reach, value, row_value):
        ones = [1.0] * len(reach[0])
        return original(p, weight, arrays, tables,
                        [ones if i == p else reach[i] for i in range(3)], value, row_value)

    monkeypatch.setattr(cfr_reference, "value_pass", mutant)


def curve(variant: str, engine: str = "numba") -> dict[int, float]:
    marks = sorted(MEASURED[variant])
    run = learn(Kuhn(), CFR(Kuhn(), 0, engine=engine, variant=variant), marks[-1],
                     checkpoints=marks[:-1])
    return exploitability_curve(run)


# ------------------------------------------------------------------ compiled = reference
@pytest.mark.parametrize("variant", ["cfr+", "cfr"])
@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_the_kernel_equals_the_reference(game, variant):
    fast = CFR(game, 1, variant=variant)
    for step in (1, 36, 40):  # chunks: 77 in all
        fast.play(step)
    plain = CFR(game, 1, engine="python", variant=variant)
    plain.play(77)
    a, b = fast.tables(), plain.tables()
    for key in KEYS:
        assert np.array_equal(getattr(a, key), getattr(b, key)), key
    assert a.equals(b)
    assert (fast.played, fast.moves) == (plain.played, plain.moves)
    assert plain.moves == 77 * plain.per_iteration
    assert a.policy() == b.policy()


def test_a_planted_bug_in_the_reference_breaks_the_equality(monkeypatch):
    no_reach_in_the_average(monkeypatch)
    fast, plain = CFR(Kuhn(), 1), CFR(Kuhn(), 1, engine="python")
    fast.play(20)
    plain.play(20)
    assert not np.array_equal(fast.tables().average, plain.tables().average)
    assert np.array_equal(fast.tables().regret, plain.tables().regret)  # only the average


# ------------------------------------------------------------------------- Kuhn poker
@pytest.mark.parametrize("variant", ["cfr+", "cfr"])
def test_kuhn_exploitability_at_checkpoints(variant):
    got = curve(variant)
    assert list(got) == sorted(MEASURED[variant])
    for t, value in MEASURED[variant].items():
        assert got[t] == pytest.approx(value, rel=1e-9, abs=1e-15), t
    values = list(got.values())
    assert all(b < a for a, b in zip(values, values[1:], strict=False))  # monotone here
    assert got[3000] < 1e-3
    assert got[1000 if variant == "cfr+" else 3000] < 1e-3
    assert got[100] < (2e-3 if variant == "cfr+" else 1e-2)


def test_the_kuhn_average_policy_plays_near_the_value():
    learner = CFR(Kuhn(), 0)
    learner.play(3000)
    value = expected_payoff(learner.tree, learner.policy())
    assert abs(value - (-1 / 18)) < 1e-4


def test_no_reach_weighting_fails_the_checkpoints(monkeypatch):
    no_reach_in_the_average(monkeypatch)
    got = curve("cfr", engine="python")
    assert got[1000] > 1e-3  # measured 0.00108: the correct rule is below 1e-3 here
    assert got[1000] != pytest.approx(MEASURED["cfr"][1000], rel=1e-9)


# ---------------------------------------------------------------- against OpenSpiel's CFR
def openspiel_average(variant: str, iterations: int) -> dict[str, list[float]]:
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import cfr as os_cfr

    game = pyspiel.load_game("kuhn_poker")
    solver = (os_cfr.CFRPlusSolver if variant == "cfr+" else os_cfr.CFRSolver)(game)
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    table = solver.average_policy()
    return {key: list(table.action_probability_array[i]) for key, i in
            table.state_lookup.items()}


def gap_to_openspiel(learner: CFR, variant: str, iterations: int) -> float:
    theirs = openspiel_average(variant, iterations)
    learner.play(iterations)
    ours = {str("JQK".index(key[0])) + key[1:]: [row["pass"], row["bet"]]
            for key, row in learner.policy().items()}
    assert sorted(ours) == sorted(theirs)  # OpenSpiel's 12 keys
    return max(abs(a - b) for key in ours for a, b in zip(ours[key], theirs[key], strict=True))


@pytest.mark.parametrize("engine", ["numba", "python"])
@pytest.mark.parametrize("variant", ["cfr+", "cfr"])
def test_the_average_policy_equals_openspiels(variant, engine):
    assert gap_to_openspiel(CFR(Kuhn(), 0, engine=engine, variant=variant), variant, 50) <= 1e-9


@pytest.mark.parametrize("variant", ["cfr+", "cfr"])
def test_planted_bugs_fail_the_openspiel_comparison(variant, monkeypatch):
    other = "cfr" if variant == "cfr+" else "cfr+"  # the other variant's rule
    assert gap_to_openspiel(CFR(Kuhn(), 0, variant=other), variant, 50) > 1e-3
    no_reach_in_the_average(monkeypatch)
    assert gap_to_openspiel(CFR(Kuhn(), 0, engine="python", variant=variant), variant, 50) > 1e-3


# ------------------------------------------------------------- the contract, small games
def test_the_learner_contract():
    check_learner(CFR(Kuhn(), 3), games=40)
    check_learner(CFR(Kuhn(), 3, variant="cfr"), games=40)
    half = learn(Kuhn(), CFR, 30, seed=1, checkpoints=[10])
    whole = learn(Kuhn(), CFR, 60, seed=1)
    assert resume(half, 60).final.equals(whole.final)
    assert sorted(half.snapshots) == [10] and half.moves == 30 * 12


def test_a_matrix_game_goes_to_its_mixed_equilibrium():
    # a, b, c, d = 3, -1, -2, 4: value 10/10 = 1, rows H 6/10, columns H 5/10
    learner = CFR(HiddenMatrix(((3, -1), (-2, 4))), 0)
    learner.play(2000)
    policy = learner.policy()
    assert policy["row"]["H"] == pytest.approx(0.6, abs=2e-3)
    assert policy["column"]["H"] == pytest.approx(0.5, abs=2e-3)
    assert exploitability(learner.tree, policy) < 3e-3  # payoffs span 7; measured 0.00186


def test_one_player_learns_the_likelier_side():
    learner = CFR(HiddenCoin(Fraction(2, 3)), 0)
    learner.play(200)
    assert learner.policy()["guess"]["H"] > 0.99
    assert learner.policy().keys() == {"guess"}  # the forced toss is no decision


def test_bad_input_is_a_learner_error():
    with pytest.raises(LearnerError, match="variant"):
        CFR(Kuhn(), 0, variant="cfr++")
    with pytest.raises(LearnerError, match="engine"):
        CFR(Kuhn(), 0, engine="c")
    with pytest.raises(LearnerError, match="information_state"):
        from dicejack.games import Pig

        CFR(Pig(goal=10), 0)
    with pytest.raises(LearnerError, match="iterations"):
        CFR(Kuhn(), 0).play(-1)
    with pytest.raises(LearnerError, match="which"):
        CFR(Kuhn(), 0).tables().policy("best")
    assert CFR_LEARNERS == {"cfr": CFR}


# ------------------------------------------------------------ outcome-sampling MCCFR
#: Exploitability of outcome sampling's average policy on Kuhn poker, seed 0 (measured).
SAMPLED = {100: 0.21710663708335892, 1000: 0.07884259353368211, 10000: 0.022781524492103605,
           100000: 0.011377579596435483, 1000000: 0.004245171486354324}
OS = "outcome-sampling"


def planted_in_sampling(monkeypatch, bug: str) -> None:
    """Plant a bug in the reference's sampled update: "reach", the average's sums not weighed
    by the player's own reach; "importance", nothing divided by the sampling probability."""
    original = cfr_reference.sampled_update

    def mutant(tables, first, last, a, child, estimate, mine, theirs, sampled):
        if bug == "reach":
            mine = 1.0
        else:
            sampled = 1.0
        original(tables, first, last, a, child, estimate, mine, theirs, sampled)

    monkeypatch.setattr(cfr_reference, "sampled_update", mutant)


@pytest.mark.parametrize("seed", [0, 5])
@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_sampling_kernel_equals_the_reference(game, seed):
    fast = CFR(game, seed, variant=OS, exploration=0.4)
    for step in (1, 150, 149):
        fast.play(step)
    plain = CFR(game, seed, engine="python", variant=OS, exploration=0.4)
    plain.play(300)
    a, b = fast.tables(), plain.tables()
    for key in KEYS:
        assert np.array_equal(getattr(a, key), getattr(b, key)), key
    assert (fast.played, fast.moves) == (plain.played, plain.moves)
    assert fast.rng.random() == plain.rng.random()  # the same draws, to the last


def test_sampling_depends_on_the_seed_alone():
    runs = [CFR(Kuhn(), seed, variant=OS) for seed in (3, 3, 4)]
    for learner in runs:
        learner.play(500)
    assert runs[0].tables().equals(runs[1].tables())
    assert not runs[0].tables().equals(runs[2].tables())


def test_sampling_kuhn_exploitability_at_checkpoints():
    marks = sorted(SAMPLED)
    run = learn(Kuhn(), CFR, marks[-1], seed=0, checkpoints=marks[:-1], variant=OS)
    got = exploitability_curve(run)
    for t, value in SAMPLED.items():
        assert got[t] == pytest.approx(value, rel=1e-9, abs=1e-15), t
    values = list(got.values())
    assert all(b < a for a, b in zip(values, values[1:], strict=False))
    assert got[marks[-1]] < 5e-3  # sampled: far slower than CFR+ per iteration


@pytest.mark.parametrize("bug", ["reach", "importance"])
def test_planted_bugs_in_sampling_fail(bug, monkeypatch):
    planted_in_sampling(monkeypatch, bug)
    fast, plain = CFR(Kuhn(), 0, variant=OS), CFR(Kuhn(), 0, engine="python", variant=OS)
    fast.play(200)
    plain.play(200)
    assert not np.array_equal(fast.tables().average, plain.tables().average)
    run = learn(Kuhn(), CFR(Kuhn(), 0, engine="python", variant=OS), 10_000,
                     checkpoints=[100, 1000])
    got = exploitability_curve(run)
    assert any(got[t] != pytest.approx(SAMPLED[t], rel=1e-6) for t in got)


def test_sampling_keeps_the_learner_contract():
    check_learner(CFR(Kuhn(), 11, variant=OS), games=60)
    half = learn(Kuhn(), CFR, 300, seed=2, variant=OS)
    whole = learn(Kuhn(), CFR, 700, seed=2, variant=OS)
    assert resume(half, 700).final.equals(whole.final)


@pytest.mark.parametrize("iterations", [5, 400])
def test_sampling_equals_openspiels_outcome_sampling_on_the_same_plays(monkeypatch, iterations):
    """OpenSpiel's OutcomeSamplingSolver made to sample the plays ours sampled (its
    np.random.choice scripted from our picks; its deal is two chance moves, ours one): the same
    average policy to 1e-9 (measured: 0.0)."""
    pytest.importorskip("pyspiel")
    import pyspiel
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import outcome_sampling_mccfr as os_mccfr

    deals = [(a, b) for a in range(3) for b in range(3) if a != b]  # Kuhn's order
    script: list[tuple[int, int]] = []  # (options, index) as OpenSpiel will draw them
    original = cfr_reference.pick

    def recording(u, weights):
        i = original(u, weights)
        if len(weights) == 6:  # the deal: OpenSpiel's first card of 3, then one of the 2 left
            a, b = deals[i]
            script.extend([(3, a), (2, b if b < a else b - 1)])
        else:
            script.append((len(weights), i))
        return i

    monkeypatch.setattr(cfr_reference, "pick", recording)
    ours = CFR(Kuhn(), 9, engine="python", variant=OS)
    ours.play(iterations)
    monkeypatch.undo()

    def scripted(options, p=None):
        n, i = script.pop(0)
        assert len(options) == n
        return options[i]

    game = pyspiel.load_game("kuhn_poker")
    solver = os_mccfr.OutcomeSamplingSolver(game)
    monkeypatch.setattr(np.random, "choice", scripted)
    for _ in range(iterations):
        solver.iteration()
    monkeypatch.undo()
    assert script == []
    table = os_policy.tabular_policy_from_callable(game, solver.average_policy())
    gap = max(abs(row[a] - table.action_probability_array[
        table.state_lookup[str("JQK".index(key[0])) + key[1:]]][i])
        for key, row in ours.policy().items() for i, a in enumerate(("pass", "bet")))
    assert gap <= 1e-9
