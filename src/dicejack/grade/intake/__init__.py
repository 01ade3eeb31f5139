"""Intake: what a batch is made of, before any grading. Internal to :mod:`dicejack.grade`.

=============  ==============================================================================
reading        a submission file's bytes, read safely (regular files only, size-limited)
skip_rules     which files in a folder or archive are not outputs, and why
lms_names      the LMS student identifier in file and folder names, Gradescope metadata
inputs         files, folders and zip archives -> entries with the LMS student identifier
=============  ==============================================================================
"""
