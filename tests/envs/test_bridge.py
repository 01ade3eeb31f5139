"""dicejack.envs.bridge: every game as the bridges play it. The handout's own encoding (totals
drawn by roll_total, scores, +1 / -1) is the same game as its protocol form (HandoutGame's
enumeration: every successor and its exact probability, state by state); a protocol game's
bridge is its enumeration; and the one environment, the one single-agent view and the one
OpenSpiel game take any game through it."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dicejack.envs.bridge import Bridge, HandoutBridge, bridge_of
from dicejack.games import HandoutGame, PeekingBlackjack, Pig, enumerate_game
from dicejack.games.handout_rules import HANDOUT_GAME, Game
from dicejack.runtime.messages import DicejackError
from tests.games import HAND_SIZED, SMALL


def test_bridge_of_gives_the_handouts_encoding_to_the_handouts_game_in_either_form():
    assert isinstance(bridge_of(HANDOUT_GAME), HandoutBridge)
    assert isinstance(bridge_of(HandoutGame(4, 8, 9, 2)), HandoutBridge)
    assert bridge_of(HandoutGame(4, 8, 9, 2)).game == SMALL
    pig = bridge_of(Pig(goal=10))
    assert type(pig) is Bridge and pig.action_labels == ["roll", "hold"]
    assert bridge_of(pig) is pig


@pytest.mark.parametrize("game", [HAND_SIZED, SMALL, Game(2, 6, 6, 3)], ids=Game.label)
def test_the_handouts_encoding_is_the_game_of_its_enumeration(game):
    """Every reachable decision state, every J: the totals' probabilities, summed per successor,
    are the enumerated successors' exact probabilities (a win or a bust is the enumeration's
    terminal state of the winner)."""
    bridge = HandoutBridge(game)
    space = enumerate_game(HandoutGame.from_game(game), exact=True)
    checked = 0
    for s, state in enumerate(space.states):
        if space.terminal[s]:
            continue
        token = (state[0], state[1], state[2], None)
        for row in space.rows(s):
            a = space.actions[row] - 1
            ours: dict = {}
            for total, p in bridge.chance(token, a):
                nxt = bridge.after(token, a, total)
                key = ("win", nxt[3]) if nxt[3] is not None else (nxt[0], nxt[1], nxt[2])
                ours[key] = ours.get(key, 0.0) + p
            theirs = {space.states[i]: p for i, p in space.exact_rows[row]}
            assert set(ours) == set(theirs)
            for key, p in theirs.items():
                assert ours[key] == pytest.approx(float(p), abs=1e-15)
            checked += 1
    assert checked == space.n_rows


def test_the_handouts_draw_is_the_one_roll_rule_and_its_end_pays_plus_minus_one():
    from dicejack.games.handout_rules import roll_total

    bridge = HandoutBridge(HANDOUT_GAME)
    cdf = HANDOUT_GAME.sum_cdf_table
    for u in np.linspace(0, 1, 101, endpoint=False):
        assert bridge.draw(bridge.initial, 1, float(u)) == roll_total(cdf[2], float(u))
    won = bridge.after((14, 3, 0, None), 0, 1)  # 15: player 0 lands in the target
    bust = bridge.after((3, 16, 1, None), 0, 2)  # 18: player 1 passes UTarget
    assert (won, bridge.end(won), bridge.seats(bridge.end(won))) == ((14, 3, 0, 0), 1, [1.0, -1.0])
    assert (bridge.end(bust), bridge.seats(0)) == (1, [0.0, 0.0])  # never -0.0
    assert bridge.observation((5, 9, 1, None), 1).tolist() == [9, 5]


def test_a_protocol_games_bridge_is_its_enumeration_rewards_and_bounds():
    from dicejack.games.bounds import game_bounds

    game = PeekingBlackjack()
    bridge = bridge_of(game)
    space = enumerate_game(game)
    assert bridge.space.n_states == space.n_states and bridge.bounds == game_bounds(space)
    peek = bridge.action_labels.index("Peek")
    assert bridge.reward(0, peek) == -1 and bridge.paid
    outcomes = bridge.chance(0, peek)
    assert sum(Fraction(p).limit_denominator(100) for _, p in outcomes) == 1
    # one uniform picks the outcome whose interval holds it
    edges = np.cumsum([p for _, p in outcomes])
    for k, edge in enumerate(edges[:-1]):
        assert bridge.draw(0, peek, float(edge) - 1e-12) == k
        assert bridge.draw(0, peek, float(edge) + 1e-12) == k + 1


def test_a_fixed_policy_is_checked_where_the_bridge_reads_it():
    with pytest.raises(DicejackError, match="weights >= 0 per"):
        bridge_of(Pig(goal=6)).opponent_draw([1.0, 2.0])
    with pytest.raises(DicejackError, match="bad opponent"):
        HandoutBridge(SMALL).opponent_draw(np.zeros(SMALL.shape, dtype=int))
    cum, ids = HandoutBridge(SMALL).opponent_draw(np.full(SMALL.shape, 2))((3, 5, 1, None))
    assert cum.tolist() == [0.0, 1.0] and ids.tolist() == [0, 1]


def test_the_one_environment_and_the_one_openspiel_game_take_every_game():
    pytest.importorskip("pettingzoo")
    pyspiel = pytest.importorskip("pyspiel")
    import dicejack.envs.openspiel as dos
    from dicejack.envs import dicejack_v0
    from dicejack.envs.openspiel_game import DicejackGame

    for game in (HANDOUT_GAME, HandoutGame(), Pig(goal=6), PeekingBlackjack()):
        raw = dicejack_v0.raw_env(game=game)
        assert type(raw) is dicejack_v0.raw_env and raw.metadata["name"] == "dicejack_v0"
        assert isinstance(dos.load(game), DicejackGame)
    assert dicejack_v0.raw_env().bridge.handout  # the handout's game is the default
    assert dos.load().get_type().short_name == "python_dicejack" == pyspiel.load_game(
        "python_dicejack").get_type().short_name
