"""The handout's counting learner, to the letter: one home for its session and runs
(:mod:`.session`), its compiled self-play loop (:mod:`.kernel`), the plain reference loop tests hold
that loop to (:mod:`.reference`), traces of single games (:mod:`.trace`), their plain-language
explanation (:mod:`.explain`), and the adapter that puts it on the generic learner interface
(:mod:`.adapter`, the learner ``handout``). Its formulas (f_J, B, p_J) are
:mod:`dicejack.learners.formulas`, shared with the other counting learners.

May import: :mod:`dicejack.game` and the ground of :mod:`dicejack.learners` (checks, formulas,
base, playing, moves, counting); nothing above the learners.

>>> from dicejack.game import Game
>>> run = learn(Game(6, 15, 17, 2), m=100.0, games=1000, seed=1)
>>> run.games, run.win.shape
(1000, (15, 15, 3))
"""

from __future__ import annotations

from dicejack.learners.handout.adapter import Handout
from dicejack.learners.handout.session import (
    ENGINES,
    TIE_BREAKS,
    LearnRun,
    Session,
    frozen_counts,
    learn,
    resume,
)

__all__ = ["Handout", "LearnRun", "Session", "TIE_BREAKS", "ENGINES", "learn", "resume",
           "frozen_counts"]
