"""Learners on one harness: the learner protocol, the bundled learners, and learn/resume.

Any object with ``name, game, seed, played, play(games), tables()`` is a :class:`Learner`
(plus ``state()`` and a classmethod ``restore(game, seed, params, state)`` to be resumable), and
:func:`learn` runs it with checkpoints into a run: for the handout's game a :class:`Run` that
:func:`dicejack.compare.compare` measures against the exact solution, for any other protocol
game a :class:`~.game_learners.GameRun` (both :class:`~.base.LearnedRun`); :func:`resume`
continues either; :func:`check_learner` checks a learner of any game keeps that contract.
Bundled for the handout's game, by name (:data:`NAMES`), each compiled, seeded, deterministic
per seed however chunked, and held by tests to a plain reference loop:

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
and explain), mc_epsilon, ucb, thompson, qlearning, game_learners and game_kernels (q-learning,
mc-exploring-starts and counting for any other protocol game of :mod:`dicejack.games`, GameRun),
catalogue (the learners by name, which for which game), session (learn and resume of any
game), contract (check_learner).
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
from dicejack.learners.session import Session, learn, resume

#: The public face (docs/design/api.md; tests/test_public_faces.py holds it): everything else
#: is imported from its module (the learner classes from their modules, the registry's table,
#: look-ups and restore from catalogue, the protocol games' tables and runs from
#: game_learners).
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
]
