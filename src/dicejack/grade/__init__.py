"""Grading student outputs: the handout's two printed arrays, against the truth and against
reference runs of the handout's own algorithm (docs/grading.md is the user's guide).

A student's answer is random, so "does it match mine" is the wrong question. Two right ones:
**quality** (the compare metrics of the printed tables, placed among R reference runs with the
same game, M and NGAMES) and **consistency** (could these tables have come from the handout's
algorithm at all? a statistic calibrated on held-out faithful runs, so its false-alarm rate is
known).

The public face is what a user calls (docs/design/api.md, lists it; a test holds
``__all__`` to it)::

    config = GradeConfig(game, m=100.0, games=100_000)
    book = grade_files(config, ["submissions.zip"], out="gradebook.csv")   # a Gradebook
    refs = reference_runs(config)                                          # References
    g = grade_text(refs, text)    # or grade_file(refs, path), grade_tables(refs, best, prob)
    g.status, g.verdict           # Status and Verdict (str enums), g.score, g.flags

Everything else is internal, in rooms by job (each room's ``__init__`` has its map; a room
imports only the rooms below it):

=============  ==============================================================================
settings       GradeConfig, GradeError, GradeWarning (and the Status and Verdict enums)
intake/        reading, skip rules, LMS names, inputs: files, folders, zips -> entries
evidence/      printed tables, reference runs, their calibration, consistency, print rules,
               power, table distances, bug models
scoring/       rubric, the Grade record, students, copies, diagnosis, grading (pure)
outputs/       gradebook CSV and reports, LMS outputs, the HTML site
batch          grade_files: plan the outputs, grade the batch, write the outputs
programs/      ``grade --run``: student programs built, run and graded
=============  ==============================================================================
"""

from __future__ import annotations

from dicejack.grade.batch import Gradebook, grade_files
from dicejack.grade.evidence.references import References, reference_runs
from dicejack.grade.scoring.grading import grade_file, grade_tables, grade_text
from dicejack.grade.scoring.record import Grade
from dicejack.grade.settings import GradeConfig, GradeError, GradeWarning, Status, Verdict

__all__ = [
    "GradeConfig", "GradeError", "GradeWarning",
    "grade_files", "grade_file", "grade_text", "grade_tables",
    "Gradebook", "Grade", "Status", "Verdict", "References", "reference_runs",
]
