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
    gym_plays,
    gym_variants,
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
            plays = single_plays(lambda a=agent, o=opponent: single_agent(
                dicejack_v0.env(game=game), a, o))
            assert digest(plays) == RECORDED[f"single {game.label()} {agent} {name}"]


@pytest.mark.parametrize("name", sorted(PROTOCOL))
def test_protocol_games_through_the_one_environment_play_as_before(name):
    game = PROTOCOL[name]
    assert digest(aec_plays(lambda: dicejack_v0.env(game=game))) == RECORDED[f"aec {name}"]
    policy = solve_game(game).policy()
    for agent in dicejack_v0.env(game=game).possible_agents:
        plays = single_plays(lambda a=agent: single_agent(dicejack_v0.env(game=game), a,
                                                          policy))
        assert digest(plays) == RECORDED[f"single {name} {agent}"]


@pytest.mark.parametrize("game", HANDOUT_GAMES, ids=Game.label)
def test_the_handouts_game_through_the_one_openspiel_game_plays_as_before(game):
    import dicejack.envs.openspiel as dos

    os_game = dos.load(game)
    assert os_game.get_type().short_name == "python_dicejack"
    assert digest(openspiel_plays(os_game)) == RECORDED[f"openspiel {game.label()}"]


@pytest.mark.parametrize("name", sorted(PROTOCOL))
def test_protocol_games_through_the_one_openspiel_game_play_as_before(name):
    import dicejack.envs.openspiel as dos

    assert digest(openspiel_plays(dos.load(PROTOCOL[name]))) == RECORDED[f"openspiel {name}"]


@pytest.mark.parametrize("game", [Game(3, 10, 20, 2), Game(6, 15, 17, 2), Game(4, 12, 14, 3)],
                         ids=Game.label)
def test_openspiels_value_iteration_on_the_handouts_game_is_unchanged(game):
    from open_spiel.python.algorithms import value_iteration

    import dicejack.envs.openspiel as dos

    values = value_iteration.value_iteration(dos.load(game), depth_limit=-1, threshold=1e-12,
                                             cyclic_game=True)
    assert digest(sorted(values.items())) == RECORDED[f"value_iteration {game.label()}"]


@pytest.mark.parametrize("game", [Game(2, 4, 5, 2), Game(3, 4, 5, 2), Game(2, 4, 4, 3)],
                         ids=Game.label)
def test_openspiels_exploitability_on_the_handouts_game_is_unchanged(game):
    from open_spiel.python import policy as policy_lib
    from open_spiel.python.algorithms import exploitability

    import dicejack.envs.openspiel as dos

    os_game = dos.load(game)
    uniform = policy_lib.UniformRandomPolicy(os_game)
    assert {"openspiel": exploitability.exploitability(os_game, uniform),
            "dicejack": dos.exploitability(os_game, uniform)} == RECORDED[
        f"exploitability {game.label()}"]


def test_the_handouts_exploitability_bridge_is_unchanged():
    import dicejack.envs.openspiel as dos

    os_game = dos.load(Game(6, 15, 17, 2))
    assert dos.exploitability(os_game, dos.tabular_policy(os_game)) == RECORDED[
        "exploitability handout tabular uniform"]["dicejack"]


@pytest.mark.parametrize("game", HANDOUT_GAMES, ids=Game.label)
def test_the_handouts_gymnasium_environment_plays_as_before(game):
    """DiceJackEnv, every opponent kind and option, seeded random actions: as recorded."""
    from dicejack.envs.gym_env import DiceJackEnv

    sol = solver.solve(game)
    for name, kwargs in gym_variants(game, sol).items():
        kwargs = dict(kwargs)
        if isinstance(kwargs["opponent"], str) and kwargs["opponent"] == "distribution":
            kwargs["opponent"] = solver.optimal_distribution(sol)
        if isinstance(kwargs["opponent"], str) and kwargs["opponent"] == "callable":
            kwargs["opponent"] = lambda x, y, rng: 1 + int(rng.random() < 0.5)
        plays = gym_plays(lambda kw=kwargs: DiceJackEnv(game, **kw))
        assert digest(plays) == RECORDED[f"gym {game.label()} {name}"], name
