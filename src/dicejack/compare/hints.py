"""Slips in printed tables, for `dicejack compare` on text (`hint:` lines on stderr:
docs/design/commands.md).

Judged against the truth (:class:`dicejack.compare.truth.Truth`): tables *transposed* when their win
probabilities, read transposed, are off from P* by at most half as much on average (over
reachable states with an estimate), and by over 0.05 less; J *0-based* when the states with an
estimate print J in 0..K-1 only, 0 among them, and J + 1 agrees with the optimal policy in at
least 10 percentage points more non-trivial states (reachable, not lost, not every J optimal).
:func:`size_hint` words the LTarget that tables of another size suggest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dicejack.compare.truth import CompareError, Truth
from dicejack.games.handout_rules import Game

__all__ = [
    "TableHints",
    "table_hints",
    "size_hint",
    "TRANSPOSED_MAX_SHARE",
    "TRANSPOSED_MIN_GAIN",
    "ZERO_BASED_MIN_GAIN",
]

#: Transposed: the mean |estimate - P*| transposed is at most this share of it as printed ...
TRANSPOSED_MAX_SHARE = 0.5
#: ... and smaller by more than this.
TRANSPOSED_MIN_GAIN = 0.05
#: 0-based J: J + 1 agrees with the optimal policy in this much larger a share of states.
ZERO_BASED_MIN_GAIN = 0.1


@dataclass(frozen=True)
class TableHints:
    """What printed tables look like they got wrong, judged against the truth.

    error, error_transposed: mean |estimate - P*| over reachable states with an estimate, as
    printed and transposed (NaN without estimates). agreement, agreement_shifted: share of the
    non-trivial states (reachable, not lost, not every J optimal) where J, and J + 1, is optimal.
    """

    transposed: bool
    zero_based: bool
    error: float
    error_transposed: float
    agreement: float
    agreement_shifted: float

    def messages(self, n_dice: int) -> tuple[str, ...]:
        """One line per slip found, saying what fits better and what the handout prints."""
        out = []
        if self.transposed:
            out.append(
                "the tables look transposed: read with rows and columns swapped, their win "
                f"probabilities are off by {self.error_transposed:.3f} on average instead of "
                f"{self.error:.3f}; the handout's rows are X (the mover's total), its columns "
                "Y (the opponent's)"
            )
        if self.zero_based:
            out.append(
                f"J looks 0-based (0..{n_dice - 1} printed for 1..{n_dice} dice): J + 1 is "
                f"optimal in {self.agreement_shifted:.0%} of states instead of "
                f"{self.agreement:.0%}; the handout's J is the number of dice rolled, 1..NDice"
            )
        return tuple(out)


def table_hints(t: Truth, policy: Any, probability: Any, *, no_data: Any = None) -> TableHints:
    """Whether printed tables look transposed or their J 0-based (see the module docstring).

    policy, probability: the two (L, L) arrays as printed (J, and the estimate; -1 or NaN where
    there is no data); no_data: an optional (L, L) mask of cells printed as no data.
    """
    shape = t.game.shape
    pol = np.asarray(policy, dtype=np.float64)
    prob = np.asarray(probability, dtype=np.float64)
    if pol.shape != shape or prob.shape != shape:
        raise CompareError(f"table_hints needs two {t.game.low}x{t.game.low} tables")
    mask = np.zeros(shape, dtype=bool) if no_data is None else np.asarray(no_data, dtype=bool)
    estimate = ~mask & np.isfinite(prob) & (prob >= 0) & (prob <= 1)
    p_star = t.solution.p

    def error(est: np.ndarray, values: np.ndarray) -> float:
        cells = est & t.reachable
        return float(np.abs(values - p_star)[cells].mean()) if cells.any() else float("nan")

    straight, flipped = error(estimate, prob), error(estimate.T, prob.T)
    transposed = bool(np.isfinite(straight) and np.isfinite(flipped)
                      and flipped <= TRANSPOSED_MAX_SHARE * straight
                      and straight - flipped > TRANSPOSED_MIN_GAIN)

    k = t.game.n_dice
    nontrivial = t.reachable & ~t.lost & np.isfinite(t.solution.gap)

    def agreement(js: np.ndarray) -> float:
        whole = np.isfinite(js) & (js == np.round(js)) & (js >= 1) & (js <= k)
        j = np.where(whole, js, 1).astype(np.int64)[:, :, None]
        agree = whole & np.take_along_axis(t.solution.optimal, j, axis=2)[:, :, 0]
        return float(agree[nontrivial].mean()) if nontrivial.any() else float("nan")

    # the J printed where there is an estimate; a policy alone (no estimates): every J
    printed = pol[(estimate if estimate.any() else ~mask) & np.isfinite(pol)]
    as_printed, shifted = agreement(pol), agreement(pol + 1)
    zero_based = bool(
        printed.size and np.all((printed >= 0) & (printed <= k - 1)) and np.any(printed == 0)
        and np.isfinite(as_printed) and shifted >= as_printed + ZERO_BASED_MIN_GAIN
    )
    return TableHints(transposed, zero_based, straight, flipped, as_printed, shifted)


def size_hint(game: Game, found: int | None) -> str:
    """What tables of another size suggest: 'the tables are 10x10: LTarget=10? try --low 10
    --high <UTarget>' ('' when `found` is None or the game's own LTarget)."""
    if found is None or found == game.low:
        return ""
    return (f"the tables are {found}x{found}: LTarget={found}? try --low {found} "
            f"--high <UTarget>")
