"""Tests of dicejack.learners, one file per module (and formats/learner_runs in tests/formats)."""
