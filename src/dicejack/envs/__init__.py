"""Every game as environments for other libraries' agents, one path each: :mod:`.dicejack_v0`
(PettingZoo's AEC API, as PettingZoo's classic games; the ``pettingzoo`` extra): the handout's
game by default or any protocol game of :mod:`dicejack.games` (Pig, Piglet, the user's own),
``from dicejack.envs import dicejack_v0``; :func:`single_agent`: one agent of it against a fixed
policy as a Gymnasium environment (:mod:`.aec_single`; sb3-contrib's MaskablePPO learns on it);
the OpenSpiel game of every game, :mod:`dicejack.envs.openspiel` (the ``openspiel`` extra). Each
reads the game through its :mod:`.bridge`. :mod:`.gym_env` is the handout's Gymnasium
environment with its own opponents and self-play (the ``gym`` extra). Importing this package
loads none of them, so that it never needs an optional dependency; import the module you use.

May import: :mod:`dicejack.compare`, :mod:`dicejack.solver`, :mod:`dicejack.games` and
:mod:`dicejack.runtime`.
"""

from __future__ import annotations

import typing

#: The public face (docs/design/api.md; tests/test_public_faces.py holds it); the environments
#: themselves are the modules (``from dicejack.envs import dicejack_v0``).
__all__ = ["single_agent"]


def single_agent(env: typing.Any, agent: str, opponent: typing.Any) -> typing.Any:
    """`agent` ("player_0" or "player_1") of the dicejack_v0 AEC environment `env` (any game)
    against `opponent`, a fixed policy (the handout's game: any policy the solver takes, a
    Solution, a table of J, a distribution, a callable (x, y) -> J; a protocol game: weights per
    (state, action) row, e.g. ``solve(game).policy()``), as a ``gymnasium.Env`` with
    ``action_masks()``; see :mod:`dicejack.envs.aec_single` (needs pettingzoo)."""
    from dicejack.envs.aec_single import SingleAgentEnv

    return SingleAgentEnv(env, agent, opponent)
