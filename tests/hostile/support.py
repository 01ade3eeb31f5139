"""Shared material of the hostile-input tests: a real submission's text (dicejack's own learner
on the small game, printed as the handout prints it)."""

from __future__ import annotations

import io
import zipfile

import numpy as np

from dicejack.formats.tables import format_table
from dicejack.learners import formulas, handout
from tests.games import SMALL as GAME

#: A tiny printout (2 x 2 tables), for tests about names and layouts rather than grading.
TEXT = "Best number of dice:\n1 2\n2 1\n\nWin probability:\n0.5 0.5\n0.5 0.5\n"


def zip_bytes(members: dict[str, bytes | str]) -> bytes:
    """A zip archive holding `members` (name -> content)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data if isinstance(data, bytes) else data.encode())
    return buffer.getvalue()


def submission_text(seed: int) -> str:
    run = handout.learn(GAME, 100.0, 3000, seed)
    best, prob = formulas.learned_tables(run.win, run.lose)
    p4 = np.where(prob >= 0, np.round(prob, 4), -1.0)
    return (format_table(best, "Best number of dice:", kind="int") + "\n"
            + format_table(p4, "Win probability:"))
