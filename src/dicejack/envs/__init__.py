"""The game as environments for other libraries' agents: :mod:`.gym_env` (Gymnasium, one agent
against a fixed opponent or itself; needs the ``gym`` extra). Importing this package loads none of
them, so that it never needs an optional dependency; import the module you use.

May import: :mod:`dicejack.solver`, :mod:`dicejack.game` and :mod:`dicejack.runtime`.
"""
