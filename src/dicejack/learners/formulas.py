"""The handout's formulas, in plain Python: f_J, B, g, T, p_B and p_J of a state; the two output
arrays (best J and its estimate) from the counts, and every J tied for best. The learner's
compiled loop (:mod:`dicejack.learners.handout.kernel`) evaluates the same expressions in the same
order, and
tests hold it to these. Handout example (NDice 3, M 4, W = (0, 3, 1), L = (2, 1, 1)):
p = (0.1481, 0.5556, 0.2963).

- f_J = win/(win + lose) for J = 1..K, 0.5 where win + lose = 0;
- B = argmax_J f_J, the lowest J on ties (or another J among the tied maxima);
- g = sum of f_J over J != B, in increasing J; T = sum over J = 0..K of win + lose;
- p_B = (T f_B + M) / (T f_B + K M);  p_J = (1 - p_B) (T f_J + M) / (g T + (K - 1) M), J != B,
  with the corner cases of :mod:`dicejack.learners.handout`'s docstring.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence

import numpy as np

from dicejack.learners.checks import LearnerError

__all__ = ["LearnerError", "check_m", "check_tables", "move_probabilities", "estimates",
           "action_probabilities", "learned_tables", "tied_best"]



def check_m(m: object, n_dice: int = 1) -> float:
    """M as a float: finite, >= 0, not subnormal, and with n_dice * M finite (the formulas'
    K*M)."""
    if isinstance(m, bool) or not isinstance(m, (int, float, np.integer, np.floating)):
        raise LearnerError(f"M must be a number, got {m!r}")
    value = float(m)
    if math.isnan(value) or value < 0:
        raise LearnerError(f"M must be >= 0, got {m!r}")
    if not math.isfinite(value * n_dice):
        raise LearnerError(f"M must be finite (and NDice*M too), got {m!r}")
    if 0 < value < sys.float_info.min:
        # a subnormal M overflows (1 - p_B) / ((K - 1) M) to inf in a state without data
        raise LearnerError(f"M must be 0 or at least {sys.float_info.min:.3g}, got {m!r}")
    return value


def check_tables(win: np.ndarray, lose: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    win = np.asarray(win)
    lose = np.asarray(lose)
    if win.ndim != 3 or win.shape != lose.shape or win.shape[0] != win.shape[1]:
        raise LearnerError(
            f"win and lose must both have shape (L, L, K+1), got {win.shape} and {lose.shape}"
        )
    if win.shape[2] < 2:
        raise LearnerError(f"tables need K+1 >= 2 columns, got shape {win.shape}")
    return win, lose


def other_sum(f: Sequence[float], best: int, k: int) -> float:
    """g = sum of f_J over J != B, added in increasing J (the order the kernel adds them)."""
    g = 0.0
    for j in range(1, k + 1):
        if j != best:
            g += f[j]
    return g


def move_probabilities(f: list[float], total: int, best: int, k: int, m: float) -> list[float]:
    """p_0..p_K for one state from f_1..f_K (f[0] unused), T, B: the handout's formulas.

    The compiled kernel performs exactly these float operations in exactly this order.
    """
    p = [0.0] * (k + 1)
    if k == 1:
        p[1] = 1.0
        return p
    tt = float(total)
    tfb = tt * f[best]
    den_b = tfb + k * m
    if den_b == 0.0:
        for j in range(1, k + 1):
            p[j] = 1.0 / k
        return p
    pb = (tfb + m) / den_b
    den = other_sum(f, best, k) * tt + (k - 1) * m
    # (1 - p_B) / (gT + (K-1)M), once; 0 when that denominator is 0 (then p_B = 1 exactly).
    q = (1.0 - pb) / den if den != 0.0 else 0.0
    for j in range(1, k + 1):
        p[j] = pb if j == best else q * (tt * f[j] + m)
    return p


def estimates(wrow: Sequence[int], lrow: Sequence[int], k: int) -> tuple[list[float], int, int]:
    """f_0..f_K (f_0 = 0 unused), T and the lowest argmax B for one state's count rows."""
    f = [0.0] * (k + 1)
    total = int(wrow[0]) + int(lrow[0])
    best = 1
    fbest = -1.0
    for j in range(1, k + 1):
        w = int(wrow[j])
        d = w + int(lrow[j])
        total += d
        fj = float(w) / float(d) if d > 0 else 0.5
        f[j] = fj
        if fj > fbest:
            fbest = fj
            best = j
    return f, total, best


def action_probabilities(
    win: np.ndarray,
    lose: np.ndarray,
    x: int,
    y: int,
    m: float,
    *,
    best: int | None = None,
) -> np.ndarray:
    """The handout's p_0..p_K in state <x, y> (float64, length n_dice + 1, p_0 = 0).

    B is the lowest J with the largest f_J unless `best` names another J among the tied maxima
    (what ``tie_break="random"`` may pick). Handout example: K=3, M=4, W=(0,3,1), L=(2,1,1)
    gives (0, 0.1481, 0.5556, 0.2963).
    """
    win, lose = check_tables(win, lose)
    low, k = win.shape[0], win.shape[2] - 1
    for name, v in (("x", x), ("y", y)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 0 <= v < low:
            raise LearnerError(f"{name} must be an integer in 0..{low - 1}, got {v!r}")
    m = check_m(m, k)
    f, total, b = estimates(win[x, y].tolist(), lose[x, y].tolist(), k)
    if best is not None:
        if not (isinstance(best, (int, np.integer)) and 1 <= best <= k and f[best] == f[b]):
            raise LearnerError(f"best must be a J with the largest f_J, got {best!r}")
        b = int(best)
    return np.array(move_probabilities(f, total, b, k, m), dtype=np.float64)


def learned_tables(win: np.ndarray, lose: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Counts -> the handout's two output arrays (best_dice int64 LxL, win_probability float LxL).

    best_dice[x, y] is the J with the largest estimate WinCount/(WinCount + LoseCount) among the J
    with data (lowest J on exact ties); win_probability[x, y] is that estimate. A state where no J
    has data gets best dice 0 and probability -1 (the handout's "-1 if the denominator is 0").
    Pure: the inputs are not modified. compare/grade read learned policies through this.
    """
    win, lose = check_tables(win, lose)
    w = win[..., 1:].astype(np.float64)
    d = w + lose[..., 1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        est = np.where(d > 0, w / np.where(d > 0, d, 1.0), -np.inf)
    idx = np.argmax(est, axis=-1)  # first maximum: the lowest J
    prob = np.take_along_axis(est, idx[..., None], axis=-1)[..., 0]
    seen = d.max(axis=-1) > 0
    best_dice = np.where(seen, idx + 1, 0).astype(np.int64)
    win_probability = np.where(seen, prob, -1.0)
    return best_dice, win_probability


def tied_best(win: np.ndarray, lose: np.ndarray) -> np.ndarray:
    """(L, L, K + 1) bool: the J with data whose estimate equals the state's best estimate.

    These are the J a program may print as "the correct number of dice" when it breaks the
    handout's ties arbitrarily; column 0 and states without data are all False. The estimates
    are the exact divisions of :func:`learned_tables`, so its best J is always in the set.
    """
    win, lose = check_tables(win, lose)
    w = win[..., 1:].astype(np.float64)
    d = w + lose[..., 1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        est = np.where(d > 0, w / np.where(d > 0, d, 1.0), -np.inf)
    top = est.max(axis=-1, keepdims=True)
    tied = np.zeros(win.shape, dtype=bool)
    tied[..., 1:] = (d > 0) & (est == top)
    return tied
