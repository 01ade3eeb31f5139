"""How far apart two learned tables are: learned tables are random, so two independent runs never
agree closely (docs/grading.md, "Copies"). The distance and its constants; the reference runs'
closest pair is :attr:`~dicejack.grade.evidence.calibration.Calibration.copy_distance`, and the
batch's copies are marked by :mod:`dicejack.grade.scoring.copied`.

Distances are computed a block of rows at a time (:func:`close_pairs`: memory linear in the
number of tables, never N x N)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

__all__ = ["pairwise_distances", "table_distance", "close_pairs", "COPY_DECIMALS",
           "COPY_MIN_STATES", "COPY_FACTOR"]

#: Tables are compared with their estimates rounded to this many decimals ...
COPY_DECIMALS = 3
#: ... over at least this many states where either has an estimate above 0 ...
COPY_MIN_STATES = 5
#: ... and flagged `copied` when closer than this share of the closest two reference runs.
COPY_FACTOR = 0.5
#: Elements of the (rows, columns, states) block a distance computation holds at once.
_BLOCK_ELEMENTS = 2_000_000


def _distance_rows(rows: np.ndarray, flat: np.ndarray) -> np.ndarray:
    """(len(rows), len(flat)) :func:`table_distance` of flattened tables."""
    either = (rows[:, None, :] > 0) | (flat[None, :, :] > 0)
    count = either.sum(axis=-1)
    diff = np.where(either, np.abs(rows[:, None, :] - flat[None, :, :]), 0.0).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count >= COPY_MIN_STATES, diff / count, np.nan)


def _row_blocks(n: int, states: int) -> Iterator[slice]:
    step = max(1, _BLOCK_ELEMENTS // max(1, n * states))
    for start in range(0, n, step):
        yield slice(start, min(n, start + step))


def pairwise_distances(values: np.ndarray) -> np.ndarray:
    """(N, N) :func:`table_distance` between N graded value tables (N, L, L), in blocks (for a
    few tables, such as the reference runs; a batch's copies never build this matrix)."""
    n = values.shape[0]
    flat = values.reshape(n, -1)
    out = np.full((n, n), np.nan)
    for rows in _row_blocks(n, flat.shape[1]):
        out[rows] = _distance_rows(flat[rows], flat)
    return out


def close_pairs(values: np.ndarray, threshold: float) -> Iterator[tuple[int, int]]:
    """The pairs (i, j), i <= j, of N tables (N, L, L) closer than `threshold` (i == j: a table
    close to itself, which has enough states to compare), a block of rows at a time: memory
    linear in N, never N x N."""
    n = values.shape[0]
    flat = values.reshape(n, -1)
    for rows in _row_blocks(n, flat.shape[1]):
        dist = _distance_rows(flat[rows], flat[rows.start:])  # columns from the block's first row
        near = (dist < threshold) & (np.arange(dist.shape[1])[None, :]
                                     >= np.arange(dist.shape[0])[:, None])
        for a, b in zip(*np.nonzero(near), strict=True):
            yield rows.start + int(a), rows.start + int(b)


def table_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Mean |a - b| of two graded value tables over the states where either has an estimate
    above 0 (NaN when fewer than COPY_MIN_STATES such states)."""
    return float(pairwise_distances(np.stack([a, b]))[0, 1])
