"""The game as environments for other libraries' agents: :mod:`.gym_env` (Gymnasium, one agent
against a fixed opponent or itself; the ``gym`` extra) and :mod:`.dicejack_v0` (PettingZoo's AEC
API, two agents, as PettingZoo's classic games; the ``pettingzoo`` extra):
``from dicejack.envs import dicejack_v0``. Importing this package loads none of them, so that it
never needs an optional dependency; import the module you use. (The OpenSpiel game is
:mod:`dicejack.openspiel`, beside this package in the same layer.)

May import: :mod:`dicejack.compare`, :mod:`dicejack.solver`, :mod:`dicejack.game` and
:mod:`dicejack.runtime`.
"""
