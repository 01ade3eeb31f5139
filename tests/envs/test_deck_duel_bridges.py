"""The deck divide-the-dollar game between two players (DeckDuel) through the one bridge, as
Kuhn poker is (test_information_bridges.py): OpenSpiel's own exploitability of the uniform policy
and of CFR's average policy after 20 iterations on `load(DeckDuel(...))` equal dicejack's exact
ones to 1e-12; OpenSpiel's random simulation passes; PettingZoo's api_test passes."""

from __future__ import annotations

import contextlib
import io

import pytest

from dicejack.games.deck_information import DeckDuel
from dicejack.solver import information_policies as ip

#: (Decks where every deal leads to a decision: the bridge refuses a play that ends before
#: anyone decides, e.g. counts 1,2,1 or 2,3,2 with hands of one or two.)
GAMES = [DeckDuel((2, 2, 2), 2), DeckDuel((3, 2, 3), 3, passing=False)]


@pytest.fixture(scope="module")
def spiel():
    pyspiel = pytest.importorskip("pyspiel")
    import dicejack.envs.openspiel as dos

    return pyspiel, dos


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.label())
def test_openspiels_exploitability_equals_ours(spiel, game):
    pyspiel, dos = spiel
    from open_spiel.python import policy as policy_lib
    from open_spiel.python.algorithms import cfr, exploitability

    os_game = dos.load(game)
    kind = os_game.get_type()
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    theirs = exploitability.exploitability(os_game, policy_lib.UniformRandomPolicy(os_game))
    ours = ip.exploitability(game, ip.uniform_policy(game))
    assert ours > 0 and abs(float(ours) - theirs) <= 1e-12
    solver = cfr.CFRPlusSolver(os_game)
    for _ in range(20):
        solver.evaluate_and_update_policy()
    average = solver.average_policy()
    theirs = exploitability.exploitability(os_game, average)
    ours = float(ip.exploitability(game, dos.information_policy(os_game, average)))
    assert 0 < theirs < 0.05 and abs(ours - theirs) <= 1e-12
    pyspiel.random_sim_test(os_game, num_sims=10, serialize=False, verbose=False)


def test_pettingzoo_api_test_passes():
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test

    from dicejack.envs import dicejack_v0

    with contextlib.redirect_stdout(io.StringIO()):
        api_test(dicejack_v0.env(game=GAMES[1]), num_cycles=200)
