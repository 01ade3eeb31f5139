"""Fixtures of the compare tests: the truth of the smallest game and of the handout's game."""

from __future__ import annotations

import pytest

from dicejack import compare
from dicejack.compare.truth import Truth
from tests.games import HANDOUT, SMALLEST


@pytest.fixture(scope="module")
def tiny_truth() -> Truth:
    """The truth of the 4-state game (2, 2, 2, 2), known by hand."""
    return compare.truth(SMALLEST)


@pytest.fixture(scope="module")
def handout_truth() -> Truth:
    return compare.truth(HANDOUT)
