"""compare.hidden_information: a learned policy of Kuhn poker against the exact equilibrium,
exact where the numbers are (the uniform policy: exploitability 11/24, NashConv 11/12, as
OpenSpiel's), its payoff in each seat held to an evaluator of the rules written here; and
`dicejack compare --game kuhn` on a saved run and on a run learned now, text and JSON."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from dicejack import solver
from dicejack.cli import main
from dicejack.compare.hidden_information import (
    HIDDEN_METRIC_NAMES,
    compare_hidden,
    hidden_metrics,
)
from dicejack.compare.truth import CompareError
from dicejack.formats.learner_runs import save_learner_run
from dicejack.games.kuhn import Kuhn
from dicejack.learners import learn
from dicejack.solver.information_policies import uniform_policy

CARDS = "JQK"


def kuhn_value(first, second) -> Fraction:
    """Player 0's expected payoff at ante 1, bet 1, from the rules alone: `first` (player 0)
    and `second` (player 1) give P(bet) at each key (card letter + history)."""
    def bet(policy, key):
        return Fraction(policy[key]["bet"])

    def play(c0, c1, history):
        if history in ("pp", "bb", "pbb"):
            pot = 1 if history == "pp" else 2
            return pot if c0 > c1 else -pot
        if history == "bp":
            return 1
        if history == "pbp":
            return -1
        mover = len(history) % 2
        policy, card = (first, c0) if mover == 0 else (second, c1)
        b = bet(policy, CARDS[card] + history)
        return (1 - b) * play(c0, c1, history + "p") + b * play(c0, c1, history + "b")

    return sum((Fraction(1, 6) * play(c0, c1, "") for c0 in range(3) for c1 in range(3)
                if c0 != c1), Fraction(0))


@pytest.fixture(scope="module")
def kuhn():
    return solver.solve(Kuhn())


def test_the_uniform_policy_exactly(kuhn):
    uniform = uniform_policy(Kuhn())
    m = hidden_metrics(kuhn, uniform)
    assert tuple(m) == HIDDEN_METRIC_NAMES
    assert all(isinstance(v, Fraction) for v in m.values())
    assert m["exploitability"] == Fraction(11, 24) and m["nash_conv"] == Fraction(11, 12)
    assert m["game_value"] == Fraction(-1, 18)
    eq = kuhn.exact_policy
    assert m["value_first"] == kuhn_value(uniform, eq) == Fraction(-1, 6)
    assert m["value_second"] == kuhn_value(eq, uniform) == Fraction(1, 18)
    assert m["value_self_play"] == kuhn_value(uniform, uniform) == Fraction(1, 8)
    assert m["loss_first"] == Fraction(1, 9) and m["loss_second"] == Fraction(1, 9)
    assert m["score_vs_optimal"] == Fraction(-2, 9)
    floats = hidden_metrics(kuhn, {k: {a: float(p) for a, p in v.items()}
                                   for k, v in uniform.items()})
    for key in m:
        assert isinstance(floats[key], float) or key == "game_value"
        assert abs(floats[key] - m[key]) <= 1e-12, key


def test_the_equilibrium_and_a_learned_policy(kuhn):
    m = hidden_metrics(kuhn, kuhn.exact_policy)
    assert m["exploitability"] == 0 and m["loss_first"] == 0 and m["loss_second"] == 0
    assert m["value_first"] == m["value_second"] == m["value_self_play"] == Fraction(-1, 18)
    run = learn(Kuhn(), "cfr", 1000, seed=1)
    policy = run.final.policy()
    got = hidden_metrics(kuhn, policy)
    assert 0 < got["exploitability"] < 1e-4  # 8.7e-5 at 1,000 iterations of CFR+
    assert got["nash_conv"] == pytest.approx(2 * got["exploitability"], abs=1e-15)
    exact = {k: {a: Fraction(p) for a, p in v.items()} for k, v in policy.items()}
    assert abs(got["value_first"] - kuhn_value(exact, kuhn.exact_policy)) <= 1e-15
    assert abs(got["value_second"] - kuhn_value(kuhn.exact_policy, exact)) <= 1e-15
    assert got["loss_first"] >= 0 and got["loss_second"] >= 0


def test_a_policy_missing_a_key_is_one_line(kuhn):
    policy = dict(uniform_policy(Kuhn()))
    del policy["Qb"]
    with pytest.raises(CompareError, match="gives nothing at information state 'Qb'") as info:
        hidden_metrics(kuhn, policy)
    assert "\n" not in str(info.value)


def test_the_record_and_its_text(kuhn):
    result = compare_hidden(kuhn, uniform_policy(Kuhn()), "uniform")
    doc = result.as_dict()
    assert doc["game"] == "kuhn" and doc["params"] == {"ante": 1, "bet": 1}
    assert doc["decision_keys"] == 12 and doc["metrics"]["exploitability"] == 11 / 24
    assert doc["metrics_exact"]["exploitability"] == "11/24"
    text = result.text()
    assert text.startswith("learned: uniform\ngame: kuhn ante=1 bet=1 (hidden information)")
    assert "  exploitability       0.458333333333 (11/24)\n" in text
    assert "  loss_first           0.111111111111 (1/9)\n" in text


def test_cli_compare_kuhn_a_saved_run_and_a_learned_one(tmp_path, capsys, kuhn):
    run = learn(Kuhn(), "cfr", 500, seed=2, variant="outcome-sampling")
    save_learner_run(tmp_path / "k.npz", run)
    assert main(["compare", "--game", "kuhn", str(tmp_path / "k.npz"), "--format",
                 "json"]) == 0
    saved = json.loads(capsys.readouterr().out)
    want = hidden_metrics(kuhn, run.final.policy())
    assert saved["metrics"] == {k: float(v) for k, v in want.items()}
    assert saved["source"].startswith(f"{tmp_path / 'k.npz'}: cfr variant=outcome-sampling")
    assert main(["compare", "--game", "kuhn", "--learner", "cfr", "--param",
                 "variant=outcome-sampling", "--games", "500", "--seed", "2", "--format",
                 "json"]) == 0
    assert json.loads(capsys.readouterr().out)["metrics"] == saved["metrics"]
    assert main(["compare", "--game", "kuhn", str(tmp_path / "k.npz")]) == 0
    out = capsys.readouterr().out
    assert f"  exploitability       {float(want['exploitability']):.12g}\n" in out


@pytest.mark.parametrize("args, message", [
    (["--game", "kuhn", "--learner", "q-learning"], "no learner 'q-learning' for games with "
     "hidden information"),
    (["--game", "kuhn", "--sides", "4", "--learner", "cfr"], "--sides does not apply"),
    (["--game", "kuhn"], "give SOURCE"),
])
def test_cli_compare_kuhn_refusals(args, message, capsys):
    assert main(["compare", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_cli_compare_refuses_a_run_of_another_game(tmp_path, capsys):
    save_learner_run(tmp_path / "k.npz", learn(Kuhn(), "cfr", 10, seed=1))
    assert main(["compare", "--game", "pig", str(tmp_path / "k.npz")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a run of kuhn ante=1 bet=1, not of pig" in err
