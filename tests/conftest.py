"""Shared fixtures of every test folder: the games of :mod:`tests.games`, and the `slow` marker
(``pytest -m "not slow"`` is the fast lane; CI runs everything)."""

from __future__ import annotations

import pytest

from dicejack.games.handout_rules import Game
from tests.games import HANDOUT, SMALL, TINY


@pytest.fixture(scope="session")
def handout_game() -> Game:
    """The handout's game (6, 15, 17, 2)."""
    return HANDOUT


@pytest.fixture(scope="session")
def tiny_game() -> Game:
    """A tiny game (3, 6, 7, 2): 36 states."""
    return TINY


@pytest.fixture(scope="session")
def small_game() -> Game:
    """The grading tests' small game (4, 8, 9, 2): 64 states."""
    return SMALL
