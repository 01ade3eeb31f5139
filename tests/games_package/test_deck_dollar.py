"""The deck divide-the-dollar game (dicejack.games.deck_dollar): its play rule held to a literal
transliteration of the quoted code's ``play_action`` (written here, dead branch and all), its
observation table to the code's ``ravel_multi_index`` numbering, its parameters checked, and
the compiled simulation to its plain reference, draw by draw."""

from __future__ import annotations

from itertools import combinations_with_replacement

import numpy as np
import pytest

from dicejack.games.deck_dollar import (
    NO_CARD,
    PASS,
    TRUE_STATE_INDEX,
    DeckDollar,
    fixed_policy,
    observation,
    play_position,
    policy_table,
    simulate,
    uniform_policy,
)
from dicejack.games.protocol import GameDefinitionError

CARDS = [0.25, 0.50, 0.75]


def code_play_action(card_showing, player, action, hand_size, passing=True):
    """The quoted code's play_action, line for line (numpy arrays as lists); with
    passing=False its fallback tests ``len(player)-1-c == 0`` (the evident intent) instead of
    the dead ``len(player)-c == 0``. Returns (card_showing, player, value)."""
    num_cards, value = 3, 0
    if card_showing == num_cards:
        if action == 0:
            value, card_showing, player = CARDS[player[0]], player[0], player[1:]
        elif action == 2:
            value, card_showing, player = CARDS[player[-1]], player[-1], player[:-1]
        else:
            k = hand_size // 2
            value, card_showing, player = CARDS[player[k]], player[k], player[:k] + player[k + 1:]
    else:
        if action == 0:
            for c, pcard in enumerate(player):
                if CARDS[pcard] + CARDS[card_showing] > 1.0:
                    value, player = CARDS[player[c]], player[:c] + player[c + 1:]
                    break
                elif c == len(player) - 1:
                    value, player = CARDS[player[-1]], player[:-1]
        elif action == 2:
            for c, pcard in enumerate(player[::-1]):
                if CARDS[pcard] + CARDS[card_showing] <= 1.0:
                    k = len(player) - 1 - c
                    value, player = CARDS[player[k]], player[:k] + player[k + 1:]
                    break
                elif (len(player) - c == 0) if passing else (len(player) - 1 - c == 0):
                    value, player = CARDS[player[0]], player[1:]
        else:
            k = hand_size // 2
            value, player = CARDS[player[k]], player[:k] + player[k + 1:]
    return card_showing, player, value


def hands(most):
    for n in range(1, most + 1):
        yield from (list(h) for h in combinations_with_replacement(range(3), n))


@pytest.mark.parametrize("passing", [True, False])
@pytest.mark.parametrize("hand_size", [2, 3, 5])
def test_play_position_is_the_codes_play_action(passing, hand_size):
    game = DeckDollar((9, 9, 9), hand_size, passing=passing)
    checked = 0
    for hand in hands(hand_size + 3):
        if len(hand) <= hand_size // 2:
            continue
        for showing in range(4):
            for action in range(3):
                _, rest, value = code_play_action(showing, hand, action, hand_size, passing)
                pos = play_position(hand, showing, action, game)
                if pos == PASS:
                    assert value == 0 and rest == hand
                else:
                    assert CARDS[hand[pos]] == value and hand[:pos] + hand[pos + 1:] == rest
                checked += 1
    assert checked > 400


def test_the_dead_branch_passes_and_the_intent_plays_the_smallest():
    hand = [1, 1, 2]  # 1/2, 1/2, 3/4 against a 3/4 showing: no card keeps the sum at most 1
    assert play_position(hand, 2, 2, DeckDollar((5, 5, 5), 3)) == PASS
    assert play_position(hand, 2, 2, DeckDollar((5, 5, 5), 3, passing=False)) == 0
    assert play_position(hand, 2, 0, DeckDollar((5, 5, 5), 3)) == 0  # 1/2 spoils 3/4
    assert play_position([0, 0, 1], 1, 0, DeckDollar((5, 5, 5), 3)) == 2  # cannot spoil: largest
    assert play_position([0, 1, 2, 2], 1, 2, DeckDollar((5, 5, 5), 3)) == 1  # largest that fits


def test_observations_are_the_codes_numbering():
    valid = [(cs, s, m, hi) for cs in range(4) for s in range(3) for m in range(3)
             for hi in range(3) if s <= m <= hi]
    assert len(valid) == 40
    for number, (cs, s, m, hi) in enumerate(valid):
        assert TRUE_STATE_INDEX[int(np.ravel_multi_index([cs, s, m, hi], (4, 3, 3, 3)))] == number
    assert sum(i >= 0 for i in TRUE_STATE_INDEX) == 40 and len(TRUE_STATE_INDEX) == 108
    game = DeckDollar()
    assert observation([0, 0, 1, 2, 2], NO_CARD, game) == 34  # the README's [3, 0, 1, 2]
    assert observation([0, 1, 1, 1, 2, 2], 0, game) == 4  # grown hand: index 2 is still "median"


def test_the_studys_deck_and_bad_parameters():
    game = DeckDollar()
    assert (game.deck_size, game.hand_size, game.rounds, game.passing) == (60, 5, 26, True)
    assert DeckDollar((2, 3, 2), 2).rounds == 2 and DeckDollar((2, 2, 2), 3).rounds == 1
    for bad in [dict(counts=(1, 2)), dict(counts=(1, -1, 2)), dict(hand_size=0),
                dict(counts=(2, 2, 1), hand_size=3), dict(rounds=27), dict(rounds=0)]:
        with pytest.raises(GameDefinitionError):
            DeckDollar(**bad)


def test_policy_tables():
    assert np.array_equal(fixed_policy(1)[:, 1], np.ones(40))
    assert np.array_equal(policy_table(np.arange(40) % 3)[4], [0.0, 1.0, 0.0])
    for bad in [np.zeros(39, dtype=int), np.full(40, 3), np.zeros((40, 3)), -uniform_policy()]:
        with pytest.raises(GameDefinitionError):
            policy_table(bad)


@pytest.mark.parametrize("passing", [True, False])
def test_compiled_simulation_is_its_reference_draw_by_draw(passing):
    game = DeckDollar((5, 8, 5), 4, passing=passing)
    mixed = np.random.default_rng(3).dirichlet(np.ones(3), size=40)
    for policy in (fixed_policy(2), mixed):
        fast = simulate(game, policy, 3000, np.random.default_rng(11))
        slow = simulate(game, policy, 3000, np.random.default_rng(11), compiled=False)
        assert fast == slow and fast.wins + fast.draws + fast.losses == 3000
        assert fast != simulate(game, policy, 3000, np.random.default_rng(12))
