"""The classroom studies against exact truth (dicejack.report.studies*): their numbers on small
settings, the folder written byte for byte again, and `dicejack study` refusing what it must."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dicejack.cli import main
from dicejack.formats import FormatError
from dicejack.games import PeekingBlackjack
from dicejack.report import studies
from dicejack.report.studies_blackjack import (
    BlackjackStudy,
    blackjack_report,
    blackjack_study,
    find_peeking_deck,
    peek_share,
    vi_choice,
)
from dicejack.report.studies_yamslam import YamslamStudy, yamslam_report, yamslam_study
from dicejack.solver.generic import solve_game

SMALL_YAMSLAM = YamslamStudy(seeds=(1, 2), trials=(5, 20, 80), reference_trials=40)


@pytest.mark.slow
def test_blackjack_study_numbers():
    result = blackjack_study(BlackjackStudy(seeds=(1,), trials=1500, checkpoints=(500, 1500)))
    mdps = result["mdps"]
    assert mdps["smallMDP"]["value"] == Fraction(41, 6)
    assert mdps["largeMDP"]["value"] == Fraction(2133673, 60060)
    assert mdps["newThresholdMDP"]["value"] == 12
    assert mdps["largeMDP"]["states"] == 2745 and mdps["smallMDP"]["decision_states"] == 18
    assert len(result["runs"]) == 6  # three MDPs, two feature sets, one seed
    for run in result["runs"]:
        assert 0 <= run["differ"] <= run["differ_vi"]  # a non-optimal action is not VI's
        assert run["value"] <= run["optimum"] + 1e-9
    transfer = result["transfer"]
    assert transfer["value_exact"] == Fraction(41, 6) and transfer["missing_reach"] == 0
    assert transfer["value"] == pytest.approx(41 / 6)
    readme, csv, figures = blackjack_report(result, "dicejack study peeking-blackjack --out X")
    assert "41/6 = 6.833333" in readme and csv.count("\n") == 7
    assert figures[0]["file"] == "learning-large.png"


def test_vi_choice_breaks_ties_by_the_largest_name():
    sol = solve_game(PeekingBlackjack((1, 5), 2, 10, 1))
    space = sol.space
    # at 10 with two 1s left, a take busts (11 > 10): quitting is the only best action
    s = space.index[(10, None, (2, 0))]
    assert space.actions[vi_choice(sol, s)] == "Quit"
    tied = [s for s in range(space.n_states) if not space.terminal[s]
            and sum(sol.optimal[r] for r in space.rows(s)) > 1]
    for s in tied:
        names = [space.actions[r] for r in space.rows(s) if sol.optimal[r]]
        assert space.actions[vi_choice(sol, s)] == max(names)


@pytest.mark.slow
def test_the_peeking_deck():
    deck, tried = find_peeking_deck()
    assert (deck.card_values, deck.multiplicity) == ((3, 4, 17), 2) and tried > 1
    only, decisions, total = peek_share(solve_game(deck))
    assert only >= 0.1 * total and (only, decisions, total) == (6, 38, 58)


@pytest.mark.slow
def test_yamslam_study_numbers():
    result = yamslam_study(SMALL_YAMSLAM)
    assert result["value"] == Fraction(74375, 3888) and result["pairs"] == 8064
    assert result["ties"]["rolls_with_ties"] == 22
    runs = result["runs"]
    for seed in (1, 2):
        rms = [r["rms_exact"] for r in runs if r["seed"] == seed]
        assert rms[0] > rms[1] > rms[2]  # 5, 20, 80 trials a pair
        # about sigma / sqrt(N), sigma about 11.4
        assert rms[2] == pytest.approx(result["spread"] / np.sqrt(80), rel=0.1)
    for r in runs:
        assert 0 <= r["agree_exact"] <= 1 and r["agree_ref"] <= r["agree_ref_held"]
        assert r["loss"] >= -1e-9
    assert result["two_rerolls"]["value"] > result["two_rerolls"]["myopic_value"] > float(
        result["value"])
    readme, csv, figures = yamslam_report(result, "cmd")
    assert "74375/3888" in readme and [f["file"] for f in figures] == ["agreement.png", "rms.png"]


@pytest.fixture
def small_yamslam(monkeypatch):
    monkeypatch.setitem(studies.STUDIES, "yamslam",
                        lambda seeds: (yamslam_study(SMALL_YAMSLAM), yamslam_report))


@pytest.mark.slow
def test_written_twice_byte_for_byte(tmp_path, small_yamslam, monkeypatch):
    monkeypatch.chdir(tmp_path)
    files = studies.write_study("yamslam", "out")
    first = {p.name: p.read_bytes() for p in files}
    assert set(first) == {"README.md", "runs.csv", ".dicejack-study", "agreement.png", "rms.png"}
    assert b"dicejack study yamslam --out out" in first["README.md"]
    again = studies.write_study("yamslam", "out")
    assert {p.name: p.read_bytes() for p in again} == first


def test_refusals(tmp_path, capsys, monkeypatch):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    with pytest.raises(FormatError):
        studies.write_study("yamslam", mine)
    assert (mine / "notes.txt").read_text() == "mine"
    with pytest.raises(studies.StudyError, match="no study"):
        studies.write_study("poker", tmp_path / "x")
    code = main(["study", "yamslam", "--out", str(mine)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: ") and len(err.strip().splitlines()) == 1
