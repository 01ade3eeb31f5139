"""What the submissions were asked to do and how many runs grade them: :class:`GradeConfig`
(game, M, NGAMES, R reference runs, C held-out calibration runs, first seed), the package's
error type, and the words a grade is made of (:class:`Status`, :class:`Verdict`). Every other
grade module takes a GradeConfig; nothing here computes anything."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

import numpy as np

from dicejack.games.handout_rules import Game
from dicejack.learners import checks, formulas
from dicejack.runtime.messages import Parameter, ParameterError

__all__ = ["GradeError", "Parameter", "GradeConfig", "Status", "Verdict", "DEFAULT_REFERENCES",
           "DEFAULT_CALIBRATION", "REFERENCE_SEED", "MIN_REFERENCES", "MAX_REFERENCES",
           "CACHE_VERSION", "MAX_REFERENCE_GAMES", "GradeWarning"]

DEFAULT_REFERENCES = 30
#: Held-out faithful runs that calibrate the statistic (scored against the references exactly as
#: a submission is): the null distribution of T given this reference set.
DEFAULT_CALIBRATION = 60
#: Reference run i uses seed REFERENCE_SEED + i (far from the small seeds people try first).
REFERENCE_SEED = 1_000_000
#: Fewer reference runs cannot calibrate anything.
MIN_REFERENCES = 5
MAX_REFERENCES = 10_000
#: Bump when the reference cache's content or meaning changes.
CACHE_VERSION = 6
#: Most games the R + C reference runs may play in all: 10**12 games is about 35 core-hours at
#: the handout's game (8 million games a second per core); more would take days, so it is
#: refused up front with its size.
MAX_REFERENCE_GAMES = 10**12


class GradeError(ParameterError):
    """Grading cannot start: bad settings, reports folder or gradebook path. Its message names
    the Python parameters at fault (`keep`, `lms_hold`, `out`, ...) as
    :class:`~dicejack.runtime.messages.Parameter` parts, said as flags by the command line."""


class _Word(str, Enum):
    """A str enum that is its value wherever text is made (str, format, CSV, JSON) and hashes as
    it, so that ``"pass"`` and ``Verdict.PASS`` are one key (Python 3.10's enum has no StrEnum)."""

    def __str__(self) -> str:
        return str.__str__(self)

    def __hash__(self) -> int:
        return str.__hash__(self)


class Status(_Word):
    """What happened to a file of a batch: graded, unreadable, or skipped as not an output."""

    OK = "ok"
    ERROR = "error"
    SKIPPED = "skipped"


class Verdict(_Word):
    """A graded file's verdict (docs/grading.md); NONE ("") for a skipped file."""

    PASS = "pass"
    REVIEW = "review"
    FAIL = "fail"
    NONE = ""


class GradeWarning(UserWarning):
    """Grading went on, but something deserves one line to the user (an invalid reference cache
    recomputed, a report written under another name)."""


@dataclass(frozen=True)
class GradeConfig:
    """What the submissions were asked to do (game, M, NGAMES) and how to grade them (R runs)."""

    game: Game
    m: float
    games: int
    references: int = DEFAULT_REFERENCES
    seed: int = REFERENCE_SEED
    calibration: int = DEFAULT_CALIBRATION

    def __post_init__(self) -> None:
        if not isinstance(self.game, Game):
            raise GradeError(f"game must be a Game, got {type(self.game).__name__}")
        try:
            object.__setattr__(self, "m", formulas.check_m(self.m, self.game.n_dice))
        except checks.LearnerError as exc:
            raise GradeError(str(exc)) from None
        for name, low, high in (
            ("games", 1, 10**12),
            ("references", MIN_REFERENCES, MAX_REFERENCES),
            ("calibration", MIN_REFERENCES, MAX_REFERENCES),
            ("seed", 0, 2**62),
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise GradeError(f"{name} must be a whole number, got {value!r}")
            if not low <= value <= high:
                raise GradeError(f"{name} must be in {low}..{high}, got {value}")
            object.__setattr__(self, name, int(value))
        work = (self.references + self.calibration) * self.games
        if work > MAX_REFERENCE_GAMES:
            days = work / 8e6 / 86_400
            raise GradeError(
                f"reference work too large: ({self.references} + {self.calibration}) runs x "
                f"{self.games:,} games = {work:,} games (about {days:,.0f} core-days); at most "
                f"{MAX_REFERENCE_GAMES:,} games: lower --games or --references")

    @property
    def seeds(self) -> tuple[int, ...]:
        """The reference runs' seeds (the held-out calibration runs follow them)."""
        return tuple(range(self.seed, self.seed + self.references))

    @property
    def calibration_seeds(self) -> tuple[int, ...]:
        """The held-out calibration runs' seeds."""
        first = self.seed + self.references
        return tuple(range(first, first + self.calibration))

    def key(self) -> str:
        """File-name-safe cache key: game, M, NGAMES, R, C, base seed, cache version."""
        m = re.sub(r"[^0-9A-Za-z.+-]", "_", format(self.m, ".17g"))
        return (f"refs-{self.game.label()}-m{m}-n{self.games}-r{self.references}"
                f"-c{self.calibration}-s{self.seed}-v{CACHE_VERSION}")

    def describe(self) -> str:
        last = self.seed + self.references + self.calibration - 1
        return (f"{self.game}, M={self.m:g}, NGAMES={self.games:,}; {self.references} reference "
                f"runs and {self.calibration} held-out calibration runs (seeds "
                f"{self.seed}..{last})")
