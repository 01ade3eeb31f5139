"""Scoring: evidence into grades. Internal to :mod:`dicejack.grade`.

=============  ==============================================================================
rubric         points, verdict, flags with help and hints
record         the Grade of one submission and its worst states
students       a batch's files by student: kept file (keep), held grades (lms_hold)
copied         copies within a batch: the `copied` flag and similar_to
diagnosis      the likely cause of a non-pass: which bug model (evidence.bug_models) explains it
grading        one output (arrays, text, file) -> Grade; a batch's entries -> grades (pure)
=============  ==============================================================================
"""
