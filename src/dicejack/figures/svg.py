"""Figures as SVG text for web pages: a graded submission's two state maps and a histogram.

The same pictures as :class:`dicejack.figures.SubmissionHeatmaps` draws into PNGs (rows X, the
mover's score; columns Y, the opponent's; <0,0> top left; the classes of
:data:`dicejack.compare.metrics.STATE_CLASSES` in :data:`CLASS_COLORS`; the estimate's normal score
among the reference runs from blue, lower, to red, higher, grey where unknown), written as SVG
without matplotlib: every cell a rectangle whose tooltip says what it holds, sharp at any zoom,
printable, and drawn in microseconds (a whole class's pages cost less than its grading).
Every text is escaped; nothing refers outside the picture.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np

from dicejack.compare.metrics import STATE_CLASSES
from dicejack.figures.canvas import CLASS_COLORS
from dicejack.formats.escape import html_text_escape

__all__ = ["submission_heatmaps_svg", "histogram_svg", "score_color", "score_colors",
           "score_rgb", "SCORE_LIMIT", "MAP_WIDTH"]

#: Normal scores are coloured on [-SCORE_LIMIT, SCORE_LIMIT] (beyond: the end colours).
SCORE_LIMIT = 2.5
#: ColorBrewer's RdBu, reversed (blue for low, red for high), as in the PNG heatmaps.
_RDBU_R = np.array([[int(c[i:i + 2], 16) for i in (1, 3, 5)] for c in (
    "#053061", "#2166ac", "#4393c3", "#92c5de", "#d1e5f0", "#f7f7f7", "#fddbc7", "#f4a582",
    "#d6604d", "#b2182b", "#67001f")], dtype=float)
_UNKNOWN = "#d9d9d9"
_CELL = 16
_MARGIN = 34
#: Each state map is drawn at least this wide (in CSS pixels at 100%): big enough to read a
#: cell's colour and the ticks on a desktop page; a page narrower than both maps shrinks them.
MAP_WIDTH = 360


def _interpolated(t: float) -> str:
    """The colour at `t` in [0, 1] along RdBu_r, interpolated between its anchors."""
    pos = t * (len(_RDBU_R) - 1)
    i = min(int(pos), len(_RDBU_R) - 2)
    rgb = _RDBU_R[i] + (pos - i) * (_RDBU_R[i + 1] - _RDBU_R[i])
    return "#" + "".join(f"{round(v):02x}" for v in rgb)


#: Normal scores are drawn in this many steps (0.01 of a score apart: finer than the eye sees).
_STEPS = 500
_PALETTE = np.array([_interpolated(k / _STEPS) for k in range(_STEPS + 1)] + [_UNKNOWN])


def score_colors(scores: np.ndarray) -> np.ndarray:
    """The colour of each normal score (:func:`score_color`), for a whole table at once."""
    scores = np.asarray(scores, dtype=float)
    t = (np.clip(scores, -SCORE_LIMIT, SCORE_LIMIT) + SCORE_LIMIT) / (2 * SCORE_LIMIT)
    index = np.where(np.isfinite(scores), np.rint(np.nan_to_num(t) * _STEPS), _STEPS + 1)
    return _PALETTE[index.astype(np.int64)]


_PALETTE_RGB = np.array([[int(c[i:i + 2], 16) for i in (1, 3, 5)] for c in _PALETTE],
                        dtype=np.uint8)


def score_rgb(scores: np.ndarray) -> np.ndarray:
    """The colours of :func:`score_colors` as an (..., 3) uint8 array (for raster images)."""
    scores = np.asarray(scores, dtype=float)
    t = (np.clip(scores, -SCORE_LIMIT, SCORE_LIMIT) + SCORE_LIMIT) / (2 * SCORE_LIMIT)
    index = np.where(np.isfinite(scores), np.rint(np.nan_to_num(t) * _STEPS), _STEPS + 1)
    return _PALETTE_RGB[index.astype(np.int64)]


def score_color(score: float) -> str:
    """The colour of a normal score: blue (low) through white to red (high), clipped at
    +-SCORE_LIMIT, in steps of 2 * SCORE_LIMIT / 500; grey when it is not a finite number."""
    return str(score_colors(np.array([score]))[0])


def _text(value: object) -> str:
    return html_text_escape(str(value))


def _grid(colors: Sequence[Sequence[str]], tips: Sequence[Sequence[str]], left: float,
          title: str, cell: int = _CELL) -> list[str]:
    """One LxL map at `left` with cells `cell` wide: the cells, a frame, tick labels, axis names
    and its title. The tips are this module's own text (states, classes, numbers): only
    ``& < >`` are escaped."""
    n = len(colors)
    step = 1 if n <= 12 else 2 if n <= 24 else 5
    out = [f'<text x="{left + n * cell / 2:g}" y="14" text-anchor="middle" '
           f'font-weight="600">{_text(title)}</text>']
    for x in range(n):
        for y in range(n):
            out.append(f'<rect x="{left + y * cell:g}" y="{_MARGIN + x * cell}" '
                       f'width="{cell}" height="{cell}" fill="{colors[x][y]}">'
                       f"<title>{html.escape(tips[x][y], quote=False)}</title></rect>")
    out.append(f'<rect x="{left:g}" y="{_MARGIN}" width="{n * cell}" height="{n * cell}" '
               'fill="none" stroke="#555"/>')
    for k in range(0, n, step):
        out.append(f'<text x="{left + k * cell + cell / 2:g}" y="{_MARGIN - 4}" '
                   f'text-anchor="middle" fill="#555">{k}</text>')
        out.append(f'<text x="{left - 4:g}" y="{_MARGIN + k * cell + cell * 0.75:g}" '
                   f'text-anchor="end" fill="#555">{k}</text>')
    out.append(f'<text x="{left + n * cell / 2:g}" y="{_MARGIN + n * cell + 16}" '
               'text-anchor="middle">Y (opponent\'s score)</text>')
    out.append(f'<text transform="translate({left - 24:g} {_MARGIN + n * cell / 2:g}) '
               'rotate(-90)" text-anchor="middle">X (mover\'s score)</text>')
    return out


def submission_heatmaps_svg(classes: np.ndarray, scores: np.ndarray, policy: np.ndarray,
                            optimal: np.ndarray, label: str = "state maps") -> str:
    """Two maps side by side as one ``<svg>``: the printed policy against the optimal one
    (`classes`: compare.state_classes codes; each cell's tooltip gives the printed J, from
    `policy`, 0 = none, and the optimal ones, from the (L, L, K+1) mask `optimal`) and the
    estimate's normal score among the reference runs (`scores`, NaN: not enough reference
    data), each with its legend. `label` names the picture for screen readers."""
    classes, scores, policy = np.asarray(classes), np.asarray(scores), np.asarray(policy)
    n = classes.shape[0]
    if classes.shape != (n, n) or scores.shape != (n, n) or policy.shape != (n, n):
        raise ValueError(f"the maps must be square and alike, got {classes.shape}, "
                         f"{scores.shape}, {policy.shape}")
    size = max(_CELL, -(-MAP_WIDTH // max(n, 1)))  # small tables: larger cells
    side = n * size
    left1, left2 = 40, 40 + side + 70
    class_colors = [[CLASS_COLORS[int(c)] for c in row] for row in classes]
    best = [[",".join(str(j) for j, on in enumerate(cell) if on) or "-" for cell in row]
            for row in np.asarray(optimal, dtype=bool).tolist()]
    class_tips = [[f"<{x},{y}>: {STATE_CLASSES[int(classes[x, y])]}; printed J "
                   f"{int(policy[x, y]) if policy[x, y] > 0 else '-'}, optimal J "
                   f"{best[x][y]}" for y in range(n)] for x in range(n)]
    score_fill = score_colors(scores).tolist()
    score_tips = [[f"<{x},{y}>: normal score {scores[x, y]:+.2f}" if np.isfinite(scores[x, y])
                   else f"<{x},{y}>: not enough reference data" for y in range(n)]
                  for x in range(n)]
    body = _grid(class_colors, class_tips, left1, "Printed policy vs optimal", size)
    body += _grid(score_fill, score_tips, left2, "Estimate vs reference runs", size)
    legend_top = _MARGIN + side + 30
    shown = sorted(set(int(c) for c in classes.ravel()))
    for k, code in enumerate(shown):
        y = legend_top + 16 * k
        body.append(f'<rect x="{left1}" y="{y}" width="12" height="12" '
                    f'fill="{CLASS_COLORS[code]}" stroke="#999"/>')
        body.append(f'<text x="{left1 + 17}" y="{y + 10}">{_text(STATE_CLASSES[code])}</text>')
    bar = 12
    width = min(side, 240)
    for k in range(bar):
        body.append(f'<rect x="{left2 + k * width / bar:g}" y="{legend_top}" '
                    f'width="{width / bar + 0.5:g}" height="12" '
                    f'fill="{score_color(-SCORE_LIMIT + (k + 0.5) * 2 * SCORE_LIMIT / bar)}"/>')
    body.append(f'<text x="{left2}" y="{legend_top + 26}">lower</text>')
    body.append(f'<text x="{left2 + width:g}" y="{legend_top + 26}" text-anchor="end">'
                "higher</text>")
    body.append(f'<text x="{left2}" y="{legend_top + 42}">normal score among reference runs'
                "</text>")
    body.append(f'<rect x="{left2}" y="{legend_top + 50}" width="12" height="12" '
                f'fill="{_UNKNOWN}"/><text x="{left2 + 17}" y="{legend_top + 60}">not enough '
                "reference data</text>")
    height = legend_top + max(16 * len(shown), 66) + 6
    total = left2 + max(side, 240) + 10
    return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 {total} {height}" '
            f'width="{total}" height="{height}"><title>{_text(label)}</title>'
            + "".join(body) + "</svg>")


def histogram_svg(values: Sequence[float], edges: Sequence[float], *, label: str = "histogram",
                  unit: str = "submissions") -> str:
    """Counts of `values` between consecutive `edges` (the last bin includes its right edge) as
    one ``<svg>`` bar chart, each bar's tooltip giving its range and count."""
    values = np.asarray([v for v in values if np.isfinite(v)], dtype=float)
    edges = np.asarray(edges, dtype=float)
    counts, _ = np.histogram(values, bins=edges)
    top = max(int(counts.max()) if counts.size else 0, 1)
    bar, gap, height, left, base = 34, 4, 120, 36, 140
    body = [f'<line x1="{left}" y1="{base}" x2="{left + len(counts) * (bar + gap)}" '
            f'y2="{base}" stroke="#555"/>',
            f'<text x="{left - 6}" y="{base - height + 4}" text-anchor="end" fill="#555">'
            f"{top}</text>",
            f'<text x="{left - 6}" y="{base}" text-anchor="end" fill="#555">0</text>']
    for i, count in enumerate(counts):
        h = height * count / top
        x = left + i * (bar + gap)
        lo, hi = edges[i], edges[i + 1]
        closing = "]" if i == len(counts) - 1 else ")"
        tip = f"[{lo:g}, {hi:g}{closing}: {count} {unit}"
        body.append(f'<rect x="{x}" y="{base - h:.1f}" width="{bar}" height="{h:.1f}" '
                    f'fill="#5b7fa6"><title>{_text(tip)}</title></rect>')
        if count:
            body.append(f'<text x="{x + bar / 2:g}" y="{base - h - 3:.1f}" '
                        f'text-anchor="middle">{count}</text>')
        body.append(f'<text x="{x:g}" y="{base + 14}" text-anchor="middle" fill="#555">'
                    f"{lo:g}</text>")
    body.append(f'<text x="{left + len(counts) * (bar + gap):g}" y="{base + 14}" '
                f'text-anchor="middle" fill="#555">{edges[-1]:g}</text>')
    width = left + len(counts) * (bar + gap) + 20
    return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 {width} 160" '
            f'width="{width}" height="160"><title>{_text(label)}</title>' + "".join(body)
            + "</svg>")
