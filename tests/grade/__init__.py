"""Tests of dicejack.grade, one file per module."""
