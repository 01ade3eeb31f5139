"""The truth of a game for comparisons, computed once: its solution, the visit probabilities
of optimal play and the state sets that encode the handout's caveats A-E (package docstring);
:func:`truth_for` keeps it once per process for workers that need a game's truth."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from dicejack import solver
from dicejack.games.handout_rules import Game
from dicejack.runtime.messages import DicejackError
from dicejack.solver import Solution

#: A state is on-path when optimal players visit it with at least this probability (caveat D).
ONPATH_MIN_VISIT = 1e-3
#: A state is decisive only when the best J beats every other J by at least this (caveat E).
DECISIVE_MIN_GAP = 0.02
#: P*(s) at or below this counts as lost (caveat A); float round-off stays far below it.
LOST_TOLERANCE = 1e-12


class CompareError(DicejackError):
    """Learned tables that cannot be compared with the game's solution."""


class CompareWarning(UserWarning):
    """Tables that can be compared but look like a slip (transposed, 0-based J): the comparison
    goes on as handed, and the warning says what fits better."""


# --------------------------------------------------------------------------------- truth
@dataclass(frozen=True, eq=False)
class Truth:
    """Everything about a game that comparisons need, computed once.

    visit: (L, L) visit probability in a game between two optimal players (ties split evenly).
    reachable, onpath, decisive, lost, near_tie: (L, L) boolean state sets. random_q: mean of
    Q*(s, J) over J = 1..K (what a uniformly random J achieves). optimal_dist: the optimal policy
    as an action distribution.
    """

    game: Game
    solution: Solution
    visit: np.ndarray
    reachable: np.ndarray
    onpath: np.ndarray
    decisive: np.ndarray
    lost: np.ndarray
    near_tie: np.ndarray
    random_q: np.ndarray
    optimal_dist: np.ndarray
    weights: np.ndarray = field(repr=False)

    @property
    def p00(self) -> float:
        """The first player's win probability under optimal play."""
        return self.solution.p00

    def set_sizes(self) -> dict[str, int]:
        """Number of states in each set (and in the caveat sets), for reports."""
        return {
            "all": self.game.states,
            "reachable": int(self.reachable.sum()),
            "onpath": int(self.onpath.sum()),
            "decisive": int(self.decisive.sum()),
            "lost": int(self.lost.sum()),
            "lost_reachable": int((self.lost & self.reachable).sum()),
            "near_tie_onpath": int((self.near_tie & self.onpath).sum()),
            "all_j_optimal": int(np.isnan(self.solution.gap).sum()),
        }


def truth(game: Game, sol: Solution | None = None) -> Truth:
    """Build the :class:`Truth` of `game` (solving it unless `sol` is given)."""
    if not isinstance(game, Game):
        raise CompareError(f"truth() needs a Game, got {type(game).__name__}")
    if sol is None:
        sol = solver.solve(game)
    elif sol.game != game:
        raise CompareError(f"the solution is for a different game ({sol.game})")
    visit = solver.visit_probabilities(game, sol)
    reachable = game.reachable()
    onpath = visit >= ONPATH_MIN_VISIT
    lost = sol.p <= LOST_TOLERANCE
    gap = sol.gap
    finite_gap = np.isfinite(gap)
    decisive = onpath & ~lost & finite_gap & (np.where(finite_gap, gap, 0.0) >= DECISIVE_MIN_GAP)
    near_tie = finite_gap & (np.where(finite_gap, gap, np.inf) < DECISIVE_MIN_GAP)
    random_q = sol.q[:, :, 1:].mean(axis=2)
    weights = visit / visit.sum()
    arrays = dict(
        visit=visit, reachable=reachable, onpath=onpath, decisive=decisive, lost=lost,
        near_tie=near_tie, random_q=random_q, optimal_dist=solver.optimal_distribution(sol),
        weights=weights,
    )
    for name, a in arrays.items():
        # optimal_dist stays writable: numba compiles a separate (slow to build) specialisation
        # of the evaluation kernel for read-only arrays. Treat it as read-only all the same.
        if name != "optimal_dist":
            a.setflags(write=False)
    return Truth(game=game, solution=sol, **arrays)


def truth_for(params: Sequence[int]) -> Truth:
    """The :class:`Truth` of the game (n_sides, low, high, n_dice), once per
    process: workers solve for themselves (cheap, and cheaper than shipping arrays; it also keeps
    the array types numba sees the same in every process). The same object on every call."""
    n_sides, low, high, n_dice = (int(v) for v in params)
    return _solved(n_sides, low, high, n_dice)


@functools.lru_cache(maxsize=4)
def _solved(n_sides: int, low: int, high: int, n_dice: int) -> Truth:
    return truth(Game(n_sides=n_sides, low=low, high=high, n_dice=n_dice))
