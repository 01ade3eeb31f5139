"""Outputs: grades written for people and systems. Internal to :mod:`dicejack.grade`.

===============  ============================================================================
gradebook        the gradebook CSV and its records, its path checked
terminal         the terminal's summary table and a student's report as plain text
student_reports  a Markdown report (and heatmap PNG) per submission, under safe names
explanations     what a grade means, in the words every report shares
output_paths     the check of an output path before any work; the reports folder
lms              grades back to an LMS: gradebook import CSV, Gradescope results.json
site             the HTML site of --html: a page for the class, one per submission
===============  ============================================================================
"""
