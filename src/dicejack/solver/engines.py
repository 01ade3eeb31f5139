"""Which engine runs a float solve or a forward pass: plain numpy for small work, the numba kernels
for large work or once numba is loaded; both bit-identical, so the choice is only about speed."""

from __future__ import annotations

import sys
import time

from dicejack.games.handout_rules import Game
from dicejack.solver.solution import Engine, SolverError

#: Largest game, in states x n_dice x (n_dice * n_sides + 1) (the forward pass's work), that the
#: plain numpy engine runs by default (see :func:`choose_engine`). The numpy paths loop in Python
#: over the 2*low - 1 anti-diagonals and take 20 to 40 times the compiled kernels' time, but the
#: kernels' first call in a process waits about a second for numba to import and load its cache.
#: At this size a numpy solve took about 4 ms and a numpy evaluation about 12 ms where they were
#: measured (the handout's game, 5,850: 0.8 ms and 0.5 ms): far below that second.
NUMPY_MAX_WORK = 1_000_000
#: Roughly what the first use of the compiled kernels costs a process, in seconds: importing
#: numba and loading its cache. Once the numpy engine has run this long in one process, the
#: kernels are the better deal for the rest of it (see :func:`choose_engine`).
NUMBA_STARTUP_SECONDS = 1.0
#: Seconds this process has spent in the numpy engine so far.
_numpy_seconds = 0.0


def check_engine(engine: object) -> None:
    if engine not in (None, "numpy", "numba"):
        raise SolverError(f"unknown engine {engine!r}; use 'numpy' or 'numba'")


def numpy_engine_seconds() -> float:
    """Seconds this process has spent in the numpy engine so far (see :func:`choose_engine`)."""
    return _numpy_seconds


def choose_engine(game: Game) -> Engine:
    """Which engine runs `game`'s backward induction and forward propagation by default.

    "numpy" for games up to :data:`NUMPY_MAX_WORK`, so that small work never waits for numba;
    "numba" for larger games, and for every game once the process has loaded
    numba anyway (the learners' kernels load it) or has spent :data:`NUMBA_STARTUP_SECONDS` in the
    numpy engine (many evaluations, as report and grade make, then pay numba's start-up once
    rather than the numpy engine's per-call overhead again and again: at most about twice the
    better choice's time, whatever the number of calls). Both engines give bit-identical results
    (the tests hold them to it): the choice is only about speed.
    """
    work = game.states * game.n_dice * (game.n_dice * game.n_sides + 1)
    if (
        work > NUMPY_MAX_WORK
        or "numba" in sys.modules
        or _numpy_seconds >= NUMBA_STARTUP_SECONDS
    ):
        return "numba"
    return "numpy"


def charge(start: float) -> None:
    """Add the time since `start` (time.perf_counter) to the numpy engine's account."""
    global _numpy_seconds
    _numpy_seconds += time.perf_counter() - start
