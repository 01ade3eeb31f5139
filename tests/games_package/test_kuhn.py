"""Kuhn poker (dicejack.games.kuhn): its tree counted, its payoffs by hand, its rules equal to
OpenSpiel's own ``kuhn_poker`` play by play, and its name in the registry."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dicejack.games import GameDefinitionError, make_game
from dicejack.games.information import enumerate_information
from dicejack.games.kuhn import Kuhn
from dicejack.games.registry import GAMES, INFORMATION_GAMES


def ends(game: Kuhn) -> dict[str, tuple[Fraction, object]]:
    """'KJbb' (player 0's card, player 1's, the moves) -> (chance, utility) at every end."""
    tree = enumerate_information(game)
    out = {}
    for n in tree.terminals():
        (c0, c1), history = tree.states[n]
        out["JQK"[c0] + "JQK"[c1] + history] = (tree.chance[n], tree.utility[n])
    return out


def test_tree_counted():
    tree = enumerate_information(Kuhn())
    assert tree.n_nodes == 1 + 6 * 9 and len(tree.terminals()) == 30
    keys = sorted(s.key for s in tree.decisions())
    assert keys == sorted(c + h for c in "JQK" for h in ("", "pb", "p", "b"))
    assert [len(tree.decisions(p)) for p in (0, 1)] == [6, 6]
    assert [len(s) for s in tree.sequences] == [13, 13]  # the empty sequence + 12 each
    deal = tree.infosets[0]
    assert deal.key == "" and deal.actions == ("deal",) and deal.forced
    assert sum(tree.chance[n] for n in tree.terminals() if tree.states[n][1] == "pp") == 1
    # player 0 with Q sees its card and the moves, never player 1's card
    q_pass_bet = tree.infosets[tree.index["Qpb"]]
    assert sorted(tree.states[n][0] for n in q_pass_bet.nodes) == [(1, 0), (1, 2)]


def test_payoffs_by_hand():
    table = ends(Kuhn())
    assert all(chance == Fraction(1, 6) for chance, _ in table.values())
    assert {k: u for k, (_, u) in table.items() if k.startswith("KJ")} == {
        "KJpp": 1, "KJbp": 1, "KJbb": 2, "KJpbp": -1, "KJpbb": 2}
    assert {k: u for k, (_, u) in table.items() if k.startswith("JQ")} == {
        "JQpp": -1, "JQbp": 1, "JQbb": -2, "JQpbp": -1, "JQpbb": -2}
    stakes = ends(Kuhn(ante=2, bet=Fraction(1, 2)))
    assert stakes["KJbb"][1] == Fraction(5, 2) and stakes["JQpbp"][1] == -2
    assert stakes["QKpp"][1] == -2


def openspiel_ends() -> dict[str, tuple[float, float]]:
    """The same table from OpenSpiel's kuhn_poker, walking its own tree."""
    pyspiel = pytest.importorskip("pyspiel")
    out: dict[str, tuple[float, float]] = {}

    def walk(state, chance):
        if state.is_terminal():
            cards = "".join("JQK"[int(a)] for a in state.history()[:2])
            moves = "".join("pb"[int(a)] for a in state.history()[2:])
            out[cards + moves] = (chance, state.returns()[0])
        elif state.is_chance_node():
            for action, p in state.chance_outcomes():
                walk(state.child(action), chance * p)
        else:
            for action in state.legal_actions():
                walk(state.child(action), chance)

    walk(pyspiel.load_game("kuhn_poker").new_initial_state(), 1.0)
    return out


def test_rules_equal_openspiel_play_by_play():
    theirs = openspiel_ends()
    ours = ends(Kuhn())
    assert sorted(theirs) == sorted(ours) and len(ours) == 30
    for key, (chance, utility) in ours.items():
        assert theirs[key] == pytest.approx((float(chance), float(utility)), abs=1e-15), key
    # a changed rule shows: ante 2 changes the pay at every end
    mutated = ends(Kuhn(ante=2))
    assert [k for k in ours if mutated[k][1] != theirs[k][1]] == list(ours)


def test_registered_by_name():
    assert make_game("kuhn") == Kuhn() and make_game("Kuhn", {"ante": 2}) == Kuhn(ante=2)
    assert INFORMATION_GAMES["kuhn"] is Kuhn and "kuhn" not in GAMES  # not the commands' yet
    with pytest.raises(GameDefinitionError, match="ante must be a positive whole number or "
                       "fraction up to 1000000, got 0"):
        make_game("kuhn", {"ante": 0})
    with pytest.raises(GameDefinitionError, match="bet must be a positive"):
        Kuhn(bet=1.5)
    with pytest.raises(GameDefinitionError, match="unexpected keyword argument 'cards'"):
        make_game("kuhn", {"cards": 4})
