"""The significance levels the evidence is judged at: the review level, and its split between
the print-rule checks (:mod:`dicejack.grade.evidence.print_rules`) and the consistency test
(:mod:`dicejack.grade.evidence.consistency`). The rubric (:mod:`dicejack.grade.scoring.rubric`)
turns them into verdicts; they live here so that the checks need not import the rubric."""

from __future__ import annotations

__all__ = ["P_REVIEW", "ALPHA_PRINT", "P_INCONSISTENT"]

P_REVIEW = 0.05
#: The print-rule checks' share of the review level (:mod:`dicejack.grade.evidence.print_rules`):
#: a faithful program is flagged by them with this chance (1 / 61: above all 60 held-out runs) ...
ALPHA_PRINT = 1.0 / 61.0
#: ... and by the consistency test with the rest: together the nominal P_REVIEW.
P_INCONSISTENT = P_REVIEW - ALPHA_PRINT
