"""Intake: what a batch is made of, before any grading. Internal to :mod:`dicejack.grade`.

=============  ==============================================================================
reading        a submission file's bytes, read safely (regular files only, size-limited)
skip_rules     which files in a folder or archive are not outputs, and why
lms_names      the LMS student identifier in file and folder names, Gradescope metadata
archives       zip archives opened, members' names checked, the declared member count
entries        Entry, InputLimits; a batch's entries as found, and the student each belongs to
zip_members    zip archives read in memory into entries, within limits
inputs         files and folders given -> entries (zip archives by zip_members); collect
=============  ==============================================================================
"""
