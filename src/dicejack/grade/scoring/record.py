"""The grade of one submission as a record: :class:`Grade` (a gradebook row, plus what its report
shows) and :class:`WorstState`. Kept below every grade module that reads or writes grades
(grading, copies, lms, the reports), so that none of them imports another for the type."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from dicejack.grade.evidence.consistency import Consistency
from dicejack.grade.evidence.print_rules import PrintCheck
from dicejack.grade.settings import Status, Verdict

__all__ = ["Grade", "WorstState"]


@dataclass(frozen=True)
class WorstState:
    """A usable state where the submission is least like the reference runs."""

    x: int
    y: int
    contribution: float
    estimate: float  # graded value: 0 = no data or estimate 0
    reference_mean: float
    reference_low: float  # 5th percentile of the reference estimates with data
    reference_high: float  # 95th percentile
    policy: int  # 0 = none graded
    policy_share: float  # share of reference runs the printed J agrees with
    optimal: tuple[int, ...]



@dataclass(frozen=True, eq=False)
class Grade:
    """The grade of one submission (a gradebook row, plus what its report shows).

    policy / probability: the tables as graded (:func:`graded_tables`). similar_to: the other
    submissions of the batch it looks copied from or to (flag ``copied``). what_if: the score
    the tables would get if fixed (``"transposed back"``, ``"J shifted by one"``), when a flag
    suggests it. student, student_name, lms: who the file belongs to, from its LMS file name
    (:func:`dicejack.grade.intake.lms_names.lms_student`); late and order too. kept and held:
    which of a student's files goes out and what is held back
    (:mod:`dicejack.grade.scoring.students`). A
    skipped file (status ``skipped``, verdict
    "") says why in `error`.
    """

    submission: str
    status: Status  # OK | ERROR | SKIPPED (found in a folder or archive, not an output)
    score: float = 0.0
    verdict: Verdict = Verdict.FAIL
    consistency: Consistency | None = None
    metrics: dict[str, float] = field(default_factory=dict)
    points: dict[str, float] = field(default_factory=dict)
    percentiles: dict[str, float] = field(default_factory=dict)
    layout: str = ""
    flags: tuple[str, ...] = ()
    error: str = ""
    notes: str = ""
    worst: tuple[WorstState, ...] = ()
    policy: np.ndarray | None = field(default=None, repr=False)
    probability: np.ndarray | None = field(default=None, repr=False)
    similar_to: tuple[str, ...] = ()
    what_if: dict[str, float] = field(default_factory=dict)
    metric_points: dict[str, float] = field(default_factory=dict)  # quality points per metric
    student: str = ""  # the LMS identifier in the file's name (docs/grading.md)
    student_name: str = ""
    lms: str = ""  # canvas | moodle | gradescope | blackboard | ""
    late: bool = False  # the LMS marked the file late (Canvas `_LATE`)
    order: str = ""  # the file's place among its student's submissions (lms_names.Student.order)
    kept: str = ""  # "yes": this file's grade goes out for its student; "no": another's does
    held: str = ""  # why its grade is held back from the LMS (--lms-hold), e.g. "review"
    table_size: int | None = None  # an unreadable file's tables read at this LTarget instead
    print_check: PrintCheck | None = None  # the print-rule checks (grade.print_rules)
    cause: str = ""  # likely cause (grade.diagnosis): a bug model, "unusual", "" (not diagnosed)
    cause_text: str = ""  # the likely cause in words, with what to check
    lines_read: tuple[int, ...] = ()  # the 1-based lines its tables were read from (its page)
    #: grade --run: why the runs' evidence sent it to review, naming the run and its numbers
    #: (the run may not be the one whose tables the row holds); "" otherwise
    decided_by: str = ""

    def __post_init__(self) -> None:
        # the words as enums however they were given ("ok" and Status.OK are one value)
        object.__setattr__(self, "status", Status(self.status))
        object.__setattr__(self, "verdict", Verdict(self.verdict))

    @property
    def decimals(self) -> int | None:
        """The printed precision the references were rounded to (None: full precision)."""
        return self.consistency.decimals if self.consistency is not None else None

    @property
    def who(self) -> str:
        """The student as shown to people: the LMS identifier and, when known, the name in
        parentheses ("12345 (smithjohn)"); "" when no LMS named the file."""
        if not self.student:
            return ""
        return self.student + (f" ({self.student_name})" if self.student_name else "")

    @property
    def consistency_p(self) -> float:
        return self.consistency.p_value if self.consistency is not None else math.nan

