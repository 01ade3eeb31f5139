"""The game as environments for other libraries' agents: :mod:`.gym_env` (Gymnasium, one agent
against a fixed opponent or itself; the ``gym`` extra) and :mod:`.dicejack_v0` (PettingZoo's AEC
API, two agents, as PettingZoo's classic games; the ``pettingzoo`` extra):
``from dicejack.envs import dicejack_v0``; :mod:`.protocol_v0` (any protocol game of
:mod:`dicejack.games`, e.g. Pig, as a PettingZoo AEC environment: :func:`protocol_env`).
Importing this package loads none of them, so that it
never needs an optional dependency; import the module you use. The OpenSpiel game is
:mod:`dicejack.envs.openspiel` (the ``openspiel`` extra).

:func:`single_agent` turns one agent of the PettingZoo environment, against a fixed policy, into
a Gymnasium environment (:mod:`.aec_single`; sb3-contrib's MaskablePPO learns on it).

May import: :mod:`dicejack.compare`, :mod:`dicejack.solver`, :mod:`dicejack.games.handout_rules` and
:mod:`dicejack.runtime`.
"""

from __future__ import annotations

import typing

#: The public face (docs/design/api.md; tests/test_public_faces.py holds it); the environments
#: themselves are the modules (``from dicejack.envs import dicejack_v0``).
__all__ = ["single_agent", "protocol_env", "protocol_single_agent"]


def single_agent(env: typing.Any, agent: str, opponent: typing.Any) -> typing.Any:
    """`agent` ("player_0" or "player_1") of the dicejack_v0 AEC environment `env` against
    `opponent` (any policy the solver takes: a Solution, a table of J, a distribution, a
    callable (x, y) -> J) as a ``gymnasium.Env`` with ``action_masks()``; see
    :mod:`dicejack.envs.aec_single` (needs pettingzoo)."""
    from dicejack.envs.aec_single import SingleAgentEnv

    return SingleAgentEnv(env, agent, opponent)


def protocol_env(game: typing.Any, **kwargs: typing.Any) -> typing.Any:
    """Protocol game `game` (Pig, Piglet, the user's) as a PettingZoo AEC environment, wrapped
    as PettingZoo's classic games are (:mod:`dicejack.envs.protocol_v0`; needs pettingzoo)."""
    from dicejack.envs import protocol_v0

    return protocol_v0.env(game=game, **kwargs)


def protocol_single_agent(env: typing.Any, agent: str, opponent: typing.Any) -> typing.Any:
    """`agent` of a :func:`protocol_env` environment against `opponent` (weights per (state,
    action) row of the enumerated game, e.g. ``solve(game).policy()``) as a
    ``gymnasium.Env`` with ``action_masks()`` (:mod:`dicejack.envs.protocol_single`)."""
    from dicejack.envs.protocol_single import ProtocolSingleAgentEnv

    return ProtocolSingleAgentEnv(env, agent, opponent)
