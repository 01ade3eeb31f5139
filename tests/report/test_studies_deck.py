"""The deck divide-the-dollar study (report/studies_deck.py, studies_deck_report.py): its numbers
on small decks against the exact evaluator, the folder written by `dicejack study` byte for byte
again."""

from __future__ import annotations

import numpy as np
import pytest

from dicejack.cli import main
from dicejack.games.deck_dollar import DeckDollar, observation
from dicejack.learners import learn
from dicejack.learners.deck_fsm import DeckFSM
from dicejack.report import studies, studies_deck
from dicejack.report.studies_deck import SEARCH_ACTIONS, SERIES, DeckStudy, deck_study
from dicejack.report.studies_deck_duel import deck_duel_curves
from dicejack.report.studies_deck_report import deck_report, interval, observation_label
from dicejack.solver.deck_evaluation import evaluate_deck_policy, full_information_bound
from dicejack.solver.deck_fsm_evaluation import FsmPlayer, evaluate_fsm, simulate_fsm

SMALL = DeckStudy(seeds=(1, 2), games=3000, checkpoints=(10, 300), counts=(6, 10, 6),
                  small_counts=(4, 6, 4), small_hand=3, simulated_games=2000,
                  duel_counts=(2, 2, 2), duel_checkpoints=(10, 100))


#: The FSM series at the small study: 100 games a scoring round (checkpoint 10 is the first
#: random machine; 300 is after 2 generations, 3000 after 29).
SMALL_FSM = {"n_states": 2, "population": 4, "machine_games": 25}


@pytest.fixture(scope="module")
def small_result():
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(studies_deck, "FSM_PARAMS", SMALL_FSM)
        return deck_study(SMALL)


def test_the_small_studys_numbers(small_result):
    study, code_small, intent_small = small_result["settings"]
    assert study["game"] == DeckDollar((6, 10, 6), 5, passing=False)
    assert study["baselines"]["uniform"].expected == pytest.approx(-0.061031395709901626,
                                                                   abs=1e-12)
    assert study["baselines"]["always largest"].expected == pytest.approx(0.299871181392,
                                                                          abs=1e-12)
    assert study["bound"] == pytest.approx(0.870258999014, abs=1e-12)
    assert study["search"] is None  # the committed search is for the study's own deck only
    assert code_small["game"].passing and not intent_small["game"].passing
    assert code_small["search"]["value"].expected == pytest.approx(0.642037699710, abs=1e-12)
    assert code_small["bound"] == pytest.approx(0.676958882779, abs=1e-12)
    assert intent_small["search"]["value"].expected == pytest.approx(0.549241469876, abs=1e-12)
    for setting in small_result["settings"]:
        runs = setting["runs"]
        assert len(runs) == 3 * 2 * 3  # three series, two seeds, checkpoints 10, 300, 3000
        assert {r["games"] for r in runs} == {10, 300, 3000}
        for r in runs:
            assert r["expected"] <= setting["bound"]
            assert (r["window"] is None) == (r["series"] == "fsm") == (r["met"] is None)
            assert r["series"] == "fsm" or sum(r["window"]) > 0
            assert r["win"] + r["draw"] + r["loss"] == pytest.approx(1, abs=1e-12)
        for (series, seed), policy in setting["finals"].items():
            final = next(r for r in runs if r["series"] == series and r["seed"] == seed
                         and r["games"] == 3000)
            if series == "fsm":
                assert isinstance(policy, FsmPlayer)
                assert final["expected"] == evaluate_fsm(setting["game"], policy).expected
                continue
            assert final["expected"] == evaluate_deck_policy(setting["game"], policy).expected
            assert sum(r["window"][0] for r in runs if r["series"] == series
                       and r["seed"] == seed) <= 3000
    code = small_result["code"]
    assert code["game"] == DeckDollar((6, 10, 6), 5, passing=True)
    assert len(code["tallies"]) == 6 and all(t.games == 2000 for t in code["tallies"].values())
    assert code["windows"][("fsm", 1)] is None
    # the code's own setting: its bound exact (the lean bound equals the dense one) and above
    # every simulated policy
    assert code["bound"] == full_information_bound(code["game"], lean=False)
    for t in [*code["tallies"].values(), *code["baselines"].values()]:
        assert t.mean - t.half_width <= code["bound"]


def test_the_two_player_curves(small_result):
    """CFR+ and outcome sampling on the duel's deck: the equilibrium's value exact, CFR+'s
    exploitability falling, its value against the uniform opponent at most the best reply's,
    each equal to deck_duel_curves run alone."""
    cfr_plus, sampling = small_result["duel"]
    assert (cfr_plus.variant, sampling.variant) == ("cfr+", "outcome-sampling")
    assert cfr_plus.equilibrium_value == 0 and cfr_plus.iterations == (10, 100)
    assert cfr_plus.exploitability[0][1] < cfr_plus.exploitability[0][0]
    assert max(cfr_plus.value_vs_uniform[0]) <= cfr_plus.best_vs_uniform + 1e-12
    alone = deck_duel_curves(DeckDollar((2, 2, 2), 2), (1, 2), (10, 100), "outcome-sampling")
    np.testing.assert_array_equal(alone.per_seed_exploitability,
                                  sampling.per_seed_exploitability)


def test_the_fsm_series_is_the_learner_valued_exactly(small_result):
    """The fsm rows: the exact value of DeckFSM's greedy machine at each checkpoint, run on
    the harness with the series' settings (checkpoint 10: the first random machine)."""
    study = small_result["settings"][0]
    game = study["game"]
    for seed in SMALL.seeds:
        run = learn(game, DeckFSM, 3000, seed, checkpoints=[10, 300], **SMALL_FSM)
        rows = {r["games"]: r for r in study["runs"] if r["series"] == "fsm"
                and r["seed"] == seed}
        assert run.snapshots[10].rounds == 0 and run.snapshots[300].rounds == 3
        for n, tables in ((10, run.snapshots[10]), (300, run.snapshots[300]),
                          (3000, run.final)):
            assert rows[n]["expected"] == evaluate_fsm(game, tables.best).expected
        assert rows[10]["expected"] == evaluate_fsm(game, DeckFSM(game, seed, **SMALL_FSM)
                                                    .policy()).expected
        final = study["finals"][("fsm", seed)]
        assert study["simulated"][("fsm", seed)] == simulate_fsm(
            game, final, SMALL.simulated_games, np.random.default_rng([seed, 4748]))
    assert small_result["fsm_params"] == SMALL_FSM


def test_the_report(small_result):
    readme, csv, figures = deck_report(small_result, "dicejack study deck-divide-dollar --out X")
    assert "| uniform | -0.061031395710 |" in readme
    assert "| full information (upper bound) | 0.676958882779 |" in readme
    assert "`dicejack study deck-divide-dollar --out X`" in readme
    assert readme.count("| lead: ") == 10 and "players (the study's other method)" not in readme
    assert "## The evolved FSM players" in readme and "of 4 evolved" in readme
    bound = small_result["code"]["bound"]
    assert f"| full information (upper bound), exact | | | {bound:.12f} | |" in readme
    assert "## Two players, each seeing only its own hand: deck-duel counts=2,2,2" in readme
    assert "| 100 | " in readme and "cfr+: exploitability" in readme
    assert readme.count("```") == 2 * len(SMALL.seeds) and "| evolved FSM players: value |" \
        in readme
    rows = csv.strip().splitlines()
    assert len(rows) == 1 + 3 * 18 and rows[0].startswith("setting,passing,series,seed,games")
    assert sum(",fsm," in r for r in rows) == 3 * 6
    assert [f["file"] for f in figures] == ["learning-study-deck.png", "learning-small-code.png",
                                           "learning-small-intent.png", "win-rate.png"]
    # the learners' curves are mean and 95% interval over seeds, the references dashed
    curve = figures[0]["curves"][0]
    assert curve.label.startswith(SERIES["mc-code"][0]) and len(curve.x) == 3
    assert sum(c.dashed for c in figures[0]["curves"]) == 5  # four baselines and the bound


def test_interval_and_labels():
    mean, low, high = interval([1.0, 2.0, 3.0])
    assert mean == 2.0 and high - mean == pytest.approx(4.302652729911275 / np.sqrt(3))
    assert interval([0.5]) == (0.5, 0.5, 0.5)
    game = DeckDollar()
    assert observation_label(observation([0, 0, 1, 2, 2], 3, game)) == "lead: ¼ ½ ¾"
    assert observation_label(observation([1, 1, 1, 2, 2], 2, game)) == "¾: ½ ½ ¾"


def test_the_committed_search_policy():
    """SEARCH_ACTIONS is the 40 actions local search found at the study's deck (intent rules),
    worth exactly 0.720259339339 there (benchmarks/bench_deck_evaluation.py --search)."""
    assert len(SEARCH_ACTIONS) == 40 and set(SEARCH_ACTIONS) <= set("012")
    value = evaluate_deck_policy(DeckDollar(passing=False), [int(c) for c in SEARCH_ACTIONS])
    assert value.expected == pytest.approx(0.720259339339, abs=1e-12)


@pytest.mark.slow
def test_written_twice_byte_for_byte(tmp_path, monkeypatch, capsys):
    tiny = DeckStudy(seeds=(1,), games=200, checkpoints=(20,), counts=(4, 6, 4),
                     small_counts=(3, 5, 3), hand_size=3, small_hand=3, simulated_games=200,
                     duel_counts=(1, 2, 1), duel_hand=1, duel_checkpoints=(10,))
    monkeypatch.setitem(studies.STUDIES, "deck-divide-dollar",
                        lambda seeds: (deck_study(tiny), deck_report))
    monkeypatch.chdir(tmp_path)
    assert main(["study", "deck-divide-dollar", "--out", "out"]) == 0
    first = {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()}
    assert set(first) == {"README.md", "runs.csv", ".dicejack-study", "learning-study-deck.png",
                          "learning-small-code.png", "learning-small-intent.png", "win-rate.png"}
    assert b"dicejack study deck-divide-dollar --out out" in first["README.md"]
    again = studies.write_study("deck-divide-dollar", "out")
    assert {p.name: p.read_bytes() for p in again} == first
