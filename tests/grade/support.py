"""Shared material of the grade tests: a small game, its config, dicejack's own tables, and the
same tables printed in five layouts."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from dicejack import grade
from dicejack.formats.tables import format_table
from dicejack.learners import formulas, handout
from tests.games import SMALL as GAME

M = 100.0
GAMES = 20_000
CONFIG = grade.GradeConfig(GAME, M, GAMES)

#: A Gradescope export's submission_metadata.yml (one student, a pair, a submitter without ids).
GS_METADATA = """---
submission_111:
  :submitters:
  - :name: Solo Student
    :sid: '100'
    :email: solo@example.edu
  :created_at: 2024-01-01 10:00:00.000000000 -08:00
  :score: 8.0
  :history:
  - :autograder_score: 8.0
submission_222:
  :submitters:
  - :name: Pair One
    :sid: '200'
    :email: one@example.edu
  - :name: Pair Two
    :sid: ''
    :email: two@example.edu
submission_333:
  :submitters:
  - :name: No Ids
"""


def tables(m: float = M, seed: int = 1, games: int = GAMES, **kw) -> tuple[np.ndarray, np.ndarray]:
    run = handout.learn(GAME, m, games, seed, **kw)
    return formulas.learned_tables(run.win, run.lose)


def grade_of(refs, best, prob, **kw) -> grade.Grade:
    return grade.grade_tables(refs, best, prob, **kw)


def _f(v: float) -> str:
    return "-1" if v == -1 else f"{v:.4f}"


def _rows(a: np.ndarray, fmt, sep: str) -> str:
    return "\n".join(sep.join(fmt(v) for v in row) for row in a)


def layouts(best: np.ndarray, prob: np.ndarray) -> dict[str, str]:
    """The same tables printed five ways (probabilities to 4 decimals in all)."""
    p4 = np.where(prob >= 0, np.round(prob, 4), -1.0)
    return {
        "labelled": format_table(best, "Best number of dice:", kind="int") + "\n"
        + format_table(p4, "Win probability:"),
        "grid": f"Policy\n{_rows(best, str, ' ')}\n\nProbability\n{_rows(p4, _f, ' ')}\n",
        "csv": f"best dice\n{_rows(best, str, ',')}\nwin probability\n{_rows(p4, _f, ',')}\n",
        "list": f"{best.tolist()!r}\n{p4.tolist()!r}\n",
        "numpy": f"{best!r}\n\n{p4!r}\n",
    }


def write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path
