"""Learners on one harness: the learner protocol, the bundled learners, and learn/resume.

Any object with ``name, game, seed, played, play(games), tables()`` is a :class:`Learner`
(plus ``state()`` and a classmethod ``restore(game, seed, params, state)`` to be resumable), and
:func:`learn` runs it with checkpoints into a :class:`Run` that
:func:`dicejack.compare.compare` measures against the exact solution; :func:`check_learner`
checks a learner keeps that contract. Bundled, by name (:data:`NAMES`), each compiled, seeded,
deterministic per seed however chunked, and held by tests to a plain reference loop:

  handout     the handout's counting learner (:mod:`dicejack.learners.handout`); its run
              (HandoutRun) also shows the counts
  q-learning  tabular Q-learning, target 1 - max Q of the opponent's next state
  mc-epsilon  the handout's counts and greedy B, explored epsilon-greedily
  ucb         per-state UCB1 on the counts' win rates
  thompson    per-state Thompson sampling from Beta(1 + W, 1 + L)

Modules, from the ground up (each imports only those before it): checks (LearnerError, limits),
formulas (the handout's f_J, B, p_J), playing (playing to a target in chunks), moves (the compiled
roll and count update every loop shares), base (protocol, Tables, Run, Param), harness (the one
Session every learner runs in), reference and kernels (the other learners' plain rules and loops
and their compiled twins), counting (what the counting learners share), handout/ (the handout's
learner and its run, learn/resume in the handout's terms, kernel, reference, and its extras trace
and explain), mc_epsilon, ucb, thompson, qlearning, registry (the learners by name), session (learn
and resume by name), contract (check_learner); game_learners and game_session (q-learning and
mc-exploring-starts for any protocol game of :mod:`dicejack.games`, their harness and contract
check).
May import :mod:`dicejack.games.handout_rules`, :mod:`dicejack.games`, :mod:`dicejack.solver` and
:mod:`dicejack.runtime`; nothing above.

>>> from dicejack.games.handout_rules import Game
>>> run = learn(Game(6, 15, 17, 2), "q-learning", games=1000, seed=1, epsilon=0.2)
>>> run.label
'q-learning epsilon=0.2 epsilon_min=0.1 epsilon_decay=1000 alpha=1/n q_init=0.5 seed=1 games=1000'
"""

from __future__ import annotations

from dicejack.learners.base import Learner, Param, Run, Tables
from dicejack.learners.catalogue import NAMES, help_text, make, parse_params
from dicejack.learners.checks import LearnerError
from dicejack.learners.contract import check_learner
from dicejack.learners.game_session import check_game_learner, learn_game
from dicejack.learners.session import Session, learn, resume

#: The public face (docs/design/api.md; tests/test_public_faces.py holds it): everything else
#: is imported from its module (the learner classes from their modules, the registry's table,
#: look-ups and restore from registry, the protocol games' tables and runs from
#: game_learners/game_session).
__all__ = [
    "learn",
    "resume",
    "make",
    "NAMES",
    "Learner",
    "Tables",
    "Run",
    "Session",
    "Param",
    "LearnerError",
    "check_learner",
    "parse_params",
    "help_text",
    "learn_game",
    "check_game_learner",
]
