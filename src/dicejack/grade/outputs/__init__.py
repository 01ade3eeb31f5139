"""Outputs: grades written for people and systems. Internal to :mod:`dicejack.grade`.

=============  ==============================================================================
writers        gradebook CSV, terminal summary and report, per-student Markdown reports
lms            grades back to an LMS: gradebook import CSV, Gradescope results.json
site           the HTML site of --html: a page for the class, one per submission
=============  ==============================================================================
"""
