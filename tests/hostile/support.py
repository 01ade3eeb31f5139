"""Shared material of the hostile-input tests: a real submission's text (dicejack's own learner
on the small game, printed as the handout prints it)."""

from __future__ import annotations

import numpy as np

from dicejack.formats.tables import format_table
from dicejack.learners import formulas, handout
from tests.games import SMALL as GAME


def submission_text(seed: int) -> str:
    run = handout.learn(GAME, 100.0, 3000, seed)
    best, prob = formulas.learned_tables(run.win, run.lose)
    p4 = np.where(prob >= 0, np.round(prob, 4), -1.0)
    return (format_table(best, "Best number of dice:", kind="int") + "\n"
            + format_table(p4, "Win probability:"))
