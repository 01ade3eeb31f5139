"""The handout's counting learner, to the letter: the learner and its run (:mod:`.learner`),
learn and resume in the handout's terms (:mod:`.session`), its compiled self-play loop
(:mod:`.kernel`), the plain reference loop tests hold that loop to (:mod:`.reference`), and its
extras: traces of single games (:mod:`.trace`) and their plain-language explanation
(:mod:`.explain`). It runs in the harness (:class:`dicejack.learners.harness.Session`) like every
other learner; its run is a :class:`dicejack.learners.Run`. Its formulas (f_J, B, p_J) are
:mod:`dicejack.learners.formulas`, shared with the other counting learners.

May import: :mod:`dicejack.games.handout_rules` and the ground of :mod:`dicejack.learners`
(checks, formulas, base, playing, harness, moves, counting); nothing above the learners.

>>> from dicejack.games.handout_rules import Game
>>> run = learn(Game(6, 15, 17, 2), m=100.0, games=1000, seed=1)
>>> run.games, run.win.shape
(1000, (15, 15, 3))
"""

from __future__ import annotations

from dicejack.learners.handout.learner import ENGINES, TIE_BREAKS, Handout, HandoutRun
from dicejack.learners.handout.learning import learn, resume

__all__ = ["Handout", "HandoutRun", "TIE_BREAKS", "ENGINES", "learn", "resume"]
