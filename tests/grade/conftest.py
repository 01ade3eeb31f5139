"""Fixtures of the grade tests."""

from __future__ import annotations

import pytest

from dicejack import grade

from .support import CONFIG


@pytest.fixture(scope="session")
def refs() -> grade.References:
    """The small game's reference runs, computed once for every grade test."""
    return grade.reference_runs(CONFIG, cache_dir=False)
