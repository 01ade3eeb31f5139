"""How far apart two learned tables are: learned tables are random, so two independent runs never
agree closely (docs/grading.md, "Copies"). The distance and its constants; the reference runs'
closest pair is :attr:`~dicejack.grade.evidence.calibration.Calibration.copy_distance`, and the
batch's copies are marked by :mod:`dicejack.grade.scoring.copied`."""

from __future__ import annotations

import numpy as np

__all__ = ["pairwise_distances", "table_distance", "COPY_DECIMALS", "COPY_MIN_STATES",
           "COPY_FACTOR"]

#: Tables are compared with their estimates rounded to this many decimals ...
COPY_DECIMALS = 3
#: ... over at least this many states where either has an estimate above 0 ...
COPY_MIN_STATES = 5
#: ... and flagged `copied` when closer than this share of the closest two reference runs.
COPY_FACTOR = 0.5


def pairwise_distances(values: np.ndarray) -> np.ndarray:
    """(N, N) :func:`table_distance` between N graded value tables (N, L, L), in blocks."""
    n = values.shape[0]
    flat = values.reshape(n, -1)
    out = np.full((n, n), np.nan)
    step = max(1, 2_000_000 // max(1, n * flat.shape[1]))
    for start in range(0, n, step):
        a = flat[start:start + step, None, :]
        either = (a > 0) | (flat[None, :, :] > 0)
        count = either.sum(axis=-1)
        diff = np.where(either, np.abs(a - flat[None, :, :]), 0.0).sum(axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start:start + step] = np.where(count >= COPY_MIN_STATES, diff / count, np.nan)
    return out


def table_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Mean |a - b| of two graded value tables over the states where either has an estimate
    above 0 (NaN when fewer than COPY_MIN_STATES such states)."""
    return float(pairwise_distances(np.stack([a, b]))[0, 1])
