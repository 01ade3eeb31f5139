"""The hidden-information extension of the protocol (dicejack.games.information): the tree of
plays of small games counted by hand, and every broken promise named in one line."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import pytest

from dicejack.games import GameDefinitionError, Piglet, enumerate_game
from dicejack.games.information import (
    InformationGame,
    enumerate_information,
    is_information_game,
)
from tests.hidden_games import HiddenCoin, HiddenMatrix


def test_hidden_matrix_tree_counted_by_hand():
    tree = enumerate_information(HiddenMatrix())
    # root, H, T, then four ends
    assert tree.n_nodes == 7 and len(tree.terminals()) == 4
    assert [(s.player, s.key, s.actions, len(s.nodes)) for s in tree.infosets] == [
        (0, "row", ("H", "T"), 1), (1, "column", ("H", "T"), 2)]
    # player 1 acts at both of player 0's moves: one key, two histories, no own move before
    assert tree.infosets[1].parent == 0 and tree.infosets[1].sequences == (1, 2)
    assert tree.sequences == ((None, (0, 0), (0, 1)), (None, (1, 0), (1, 1)))
    ends = {tree.states[n]: (tree.utility[n], tree.own[n]) for n in tree.terminals()}
    assert ends == {("H", "H"): (1, (1, 1)), ("H", "T"): (-1, (1, 2)),
                    ("T", "H"): (-1, (2, 1)), ("T", "T"): (1, (2, 2))}
    assert isinstance(HiddenMatrix(), InformationGame) and is_information_game(HiddenMatrix())
    assert not is_information_game(Piglet(goal=2))


def test_chance_reach_is_exact_and_forced_moves_have_no_sequence():
    tree = enumerate_information(HiddenCoin(Fraction(2, 3)))
    toss = tree.infosets[tree.index["before"]]
    assert toss.forced and toss.sequences == () and len(tree.decisions()) == 1
    assert sorted(tree.chance[n] for n in tree.terminals()) == [
        Fraction(1, 3), Fraction(1, 3), Fraction(2, 3), Fraction(2, 3)]
    assert tree.sequences == ((None, (1, 0), (1, 1)),)


@dataclass(frozen=True)
class Broken(HiddenMatrix):
    """HiddenMatrix with one promise broken, chosen by `fault`."""

    fault: str = ""

    def outcomes(self, state: Any, action: Any) -> list[tuple[Any, Any]]:
        nxt = (*state, action)
        if self.fault == "float":
            return [(nxt, 1.0)]
        if self.fault == "sum":
            return [(nxt, Fraction(1, 2))]
        if self.fault == "twice":
            return [(nxt, Fraction(1, 2)), (nxt, Fraction(1, 2))]
        if self.fault == "cycle" and state == ("H",):
            return [((), 1)]
        return [(nxt, 1)]

    def actions(self, state: Any) -> tuple[str, ...]:
        if self.fault == "actions" and state == ("T",):
            return ("H",)
        return ("H", "T")

    def information_state(self, state: Any, player: int) -> Any:
        if self.fault == "shared":
            return "same"
        if self.fault == "unhashable":
            return ["row"]
        if self.fault == "raises" and player == 1:
            raise KeyError("boom")
        return super().information_state(state, player)


@pytest.mark.parametrize(("fault", "message"), [
    ("float", r"outcome probability 1\.0 at \(\), action 'H' is not exact: give a "
              r"fractions\.Fraction"),
    ("sum", r"the probabilities at \(\), action 'H' sum to 1/2, not 1"),
    ("twice", r"successor \('H',\) appears twice at \(\), action 'H'"),
    ("cycle", r"state \(\) repeats along a play; a game with hidden information must be a "
              r"finite tree"),
    ("actions", r"information state 'column' has actions \['H', 'T'\] and \['H'\] "
                r"\(at \('T',\)\)"),
    ("shared", r"information state 'same' is player 0's and player 1's"),
    ("unhashable", r"information states must be hashable, got \['row'\]"),
    ("raises", r"^game hidden-matrix: KeyError at state \('H',\): 'boom'$"),
])
def test_every_broken_promise_is_one_line(fault, message):
    with pytest.raises(GameDefinitionError, match=message) as info:
        enumerate_information(Broken(fault=fault))
    assert "\n" not in str(info.value)


@dataclass(frozen=True)
class Forgetful(HiddenMatrix):
    """Player 0 moves twice and forgets its first move: imperfect recall."""

    def is_terminal(self, state: Any) -> bool:
        return len(state) == 3

    def payoff(self, state: Any) -> Any:
        return 1 if state[0] == state[2] else -1

    def player(self, state: Any) -> int:
        return 1 if len(state) == 1 else 0

    def information_state(self, state: Any, player: int) -> str:
        return "first" if not state else ("column" if player == 1 else "second")


def test_imperfect_recall_is_refused():
    with pytest.raises(GameDefinitionError, match=r"player 0 reaches information state 'second' "
                       r"after different moves of its own .*perfect recall"):
        enumerate_information(Forgetful())


def test_limits_players_and_plain_games():
    with pytest.raises(GameDefinitionError, match="more than 5 histories; too large"):
        enumerate_information(HiddenMatrix(), limit=5)
    assert enumerate_information(HiddenMatrix(), limit=7).n_nodes == 7
    with pytest.raises(GameDefinitionError, match="has no information_state"):
        enumerate_information(Piglet(goal=2))

    @dataclass(frozen=True)
    class Third(HiddenMatrix):
        def player(self, state: Any) -> int:
            return 2 if state else 0

    with pytest.raises(GameDefinitionError, match=r"player at \('H',\) is 2, not 0 or 1"):
        enumerate_information(Third())


def test_the_perfect_information_path_refuses_hidden_games():
    """enumerate_game (every perfect-information solver and learner) would let players see
    the hidden cards: it says so instead of answering the wrong game."""
    with pytest.raises(GameDefinitionError, match="game hidden-matrix has hidden information"):
        enumerate_game(HiddenMatrix())
