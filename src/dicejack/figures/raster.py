"""A graded submission's two state maps as a PNG drawn pixel by pixel, without matplotlib.

The same two maps as the web pages' SVG (:func:`dicejack.figures.svg.submission_heatmaps_svg`):
left, the printed policy against the optimal one (the classes of
:data:`dicejack.compare.STATE_CLASSES` in :data:`CLASS_COLORS`); right, the estimate's normal
score among the reference runs (blue lower, white typical, red higher; grey where unknown). Rows
are X (the mover's score, 0 at the top), columns Y (the opponent's); the row and column numbers
are drawn with a 3x5 pixel font, and the report around the image names it and explains the
colours. No text of a submission ever goes into the image.

A heatmap is an image: an array of colours, one block of pixels a state, encoded as PNG with
zlib. About a millisecond a submission (matplotlib took about 0.1 s), so `grade --reports`
costs little more than grading; the bytes depend only on the tables (reproducible).
"""

from __future__ import annotations

import functools
import struct
import zlib
from pathlib import Path

import numpy as np

from dicejack import formats
from dicejack.figures.canvas import CLASS_COLORS
from dicejack.figures.svg import score_rgb
from dicejack.games.handout_rules import Game

__all__ = ["INK", "png_rgb", "map_layout", "submission_heatmaps_png", "SubmissionHeatmaps"]

#: 3x5 glyphs of the characters the maps write: digits, X and Y ("#" = ink).
_GLYPHS = {
    "0": ("###", "#.#", "#.#", "#.#", "###"), "1": (".#.", "##.", ".#.", ".#.", "###"),
    "2": ("###", "..#", "###", "#..", "###"), "3": ("###", "..#", ".##", "..#", "###"),
    "4": ("#.#", "#.#", "###", "..#", "..#"), "5": ("###", "#..", "###", "..#", "###"),
    "6": ("###", "#..", "###", "#.#", "###"), "7": ("###", "..#", ".#.", ".#.", ".#."),
    "8": ("###", "#.#", "###", "#.#", "###"), "9": ("###", "#.#", "###", "..#", "###"),
    "X": ("#.#", "#.#", ".#.", "#.#", "#.#"), "Y": ("#.#", "#.#", ".#.", ".#.", ".#."),
}
_SCALE = 2  # each font pixel drawn as 2x2
_FONT = {c: np.kron(np.array([[ch == "#" for ch in row] for row in rows]),
                    np.ones((_SCALE, _SCALE), dtype=bool))
         for c, rows in _GLYPHS.items()}
#: The colour of the frame, numbers and letters.
INK = np.array([60, 60, 60], dtype=np.uint8)
_PAPER = 255
_GAP = 28  # between the two maps
_PAD = 6


def _hex_rgb(colors: tuple[str, ...]) -> np.ndarray:
    return np.array([[int(c[i:i + 2], 16) for i in (1, 3, 5)] for c in colors], dtype=np.uint8)


_CLASS_RGB = _hex_rgb(CLASS_COLORS)


def png_rgb(image: np.ndarray) -> bytes:
    """An (H, W, 3) uint8 image as PNG bytes (8-bit RGB, filter Up, zlib level 3, no
    metadata)."""
    image = np.ascontiguousarray(image, dtype=np.uint8)
    height, width, _ = image.shape
    flat = image.reshape(height, 3 * width)
    rows = np.empty((height, 1 + 3 * width), dtype=np.uint8)
    rows[:, 0] = 2  # filter "Up": each row as its difference from the row above (a map's rows
    rows[0, 1:] = flat[0]  # repeat, so most bytes are 0 and compress at once)
    np.subtract(flat[1:], flat[:-1], out=rows[1:, 1:])  # uint8 arithmetic wraps, as PNG wants

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(rows.tobytes(), 3)) + chunk(b"IEND", b""))


def _text(canvas: np.ndarray, text: str, top: int, left: int) -> None:
    """Write `text` (digits, X, Y) with its top-left corner at (top, left)."""
    for i, ch in enumerate(text):
        glyph = _FONT[ch]
        x0 = left + i * 4 * _SCALE
        canvas[top:top + glyph.shape[0], x0:x0 + glyph.shape[1]][glyph] = INK


def _text_width(text: str) -> int:
    return len(text) * 4 * _SCALE - _SCALE


def _cell_size(low: int) -> int:
    """Pixels a state: about 360 pixels a map, 5 at least."""
    return int(np.clip(360 // low, 5, 20))


def _map(canvas: np.ndarray, colors: np.ndarray, top: int, left: int, cell: int,
         step: int) -> None:
    """One LxL map of per-state colours (L, L, 3) at (top, left): a block of cell - 1 pixels a
    state (a white line between states), a frame, the numbers of every `step`-th row and
    column, and the axis letters."""
    low = colors.shape[0]
    canvas[top:top + low * cell, left:left + low * cell] = _blocks(colors, cell)
    side = low * cell - 1
    canvas[top - 1, left - 1:left + side + 1] = INK  # frame
    canvas[top + side, left - 1:left + side + 1] = INK
    canvas[top - 1:top + side + 1, left - 1] = INK
    canvas[top - 1:top + side + 1, left + side] = INK
    glyph_h = 5 * _SCALE
    for k in range(0, low, step):
        label = str(k)
        middle = k * cell + (cell - 1) // 2
        _text(canvas, label, top - glyph_h - 4, left + middle - _text_width(label) // 2)
        _text(canvas, label, top + middle - glyph_h // 2, left - 4 - _text_width(label))
    width = _text_width(str(low - 1))
    _text(canvas, "Y", top - 2 * glyph_h - 10, left + side // 2 - _SCALE)
    _text(canvas, "X", top + side // 2 - glyph_h // 2, left - 10 - width - _text_width("X"))


@functools.lru_cache(maxsize=8)
def map_layout(low: int) -> tuple[np.ndarray, int, int, int, int]:
    """The frame, numbers and letters of two LxL maps, drawn once per size: (canvas, cell, top,
    left of the first map, left of the second)."""
    cell = _cell_size(low)
    step = 1 if low <= 20 else 5
    glyph_h = 5 * _SCALE
    label_w = _text_width(str(low - 1))
    left_margin = _PAD + _text_width("X") + 6 + label_w + 4
    top = _PAD + 2 * glyph_h + 10
    side = low * cell
    width = 2 * (left_margin + side) + _GAP + _PAD
    canvas = np.full((top + side + _PAD, width, 3), _PAPER, dtype=np.uint8)
    second = 2 * left_margin + side + _GAP
    blank = np.full((low, low, 3), _PAPER, dtype=np.uint8)
    _map(canvas, blank, top, left_margin, cell, step)
    _map(canvas, blank, top, second, cell, step)
    canvas.setflags(write=False)
    return canvas, cell, top, left_margin, second


def _blocks(colors: np.ndarray, cell: int) -> np.ndarray:
    """Per-state colours (L, L, 3) as blocks of cell - 1 pixels with a white line after each."""
    low = colors.shape[0]
    block = np.repeat(np.repeat(colors, cell, axis=0), cell, axis=1)
    line = (np.arange(low * cell) % cell) == cell - 1
    block[line, :] = _PAPER
    block[:, line] = _PAPER
    return block


def submission_heatmaps_png(classes: np.ndarray, scores: np.ndarray) -> bytes:
    """The two state maps of a graded submission side by side, as PNG bytes.

    classes: (L, L) :func:`dicejack.compare.state_classes` codes; scores: (L, L) the estimates'
    normal scores among the reference runs, NaN where there is not enough data.
    """
    classes = np.asarray(classes)
    scores = np.asarray(scores, dtype=float)
    low = classes.shape[0]
    if classes.shape != (low, low) or scores.shape != (low, low) or low < 1:
        raise ValueError(f"the maps need two square tables of one size, got {classes.shape} "
                         f"and {scores.shape}")
    codes = np.clip(classes.astype(np.int64), 0, len(CLASS_COLORS) - 1)
    template, cell, top, first, second = map_layout(low)
    canvas = template.copy()
    side = low * cell
    canvas[top:top + side, first:first + side] = _blocks(_CLASS_RGB[codes], cell)
    canvas[top:top + side, second:second + side] = _blocks(score_rgb(scores), cell)
    # the last line of blocks is the frame's place: keep the frame
    canvas[top + side - 1, first - 1:first + side] = template[top + side - 1,
                                                              first - 1:first + side]
    canvas[top + side - 1, second - 1:second + side] = template[top + side - 1,
                                                                second - 1:second + side]
    canvas[top - 1:top + side, first + side - 1] = template[top - 1:top + side,
                                                            first + side - 1]
    canvas[top - 1:top + side, second + side - 1] = template[top - 1:top + side,
                                                             second + side - 1]
    return png_rgb(canvas)


class SubmissionHeatmaps:
    """Two state maps per graded submission, side by side, as PNG files: its policy against the
    optimal one (compare.state_classes codes) and its estimate's normal score among the
    reference runs (:func:`dicejack.figures.raster.submission_heatmaps_png`: drawn pixel by
    pixel, about a millisecond each; the report around the image names it)::

        with SubmissionHeatmaps(game) as maps:
            maps.draw(classes, scores, "alice.txt: 91.0 / 100, pass", Path("alice.png"))
    """

    def __init__(self, game: Game) -> None:
        self.game = game

    def draw(self, classes: np.ndarray, scores: np.ndarray, title: str, path: Path) -> None:
        """Write one submission's maps to `path` (PNG, atomically).

        classes: (L, L) compare.state_classes codes; scores: (L, L) normal scores of the
        estimates among the reference runs, NaN (grey) where there is not enough data. title:
        what the image shows, for the caller's page (no text of a submission goes into the
        image).
        """
        for name, table in (("classes", classes), ("scores", scores)):
            if np.shape(table) != self.game.shape:
                raise ValueError(f"the {name} table is {np.shape(table)}, not {self.game.shape}")
        formats.write_atomic(path, submission_heatmaps_png(classes, scores))

    def close(self) -> None:
        """Nothing to release (kept for callers)."""

    def __enter__(self) -> SubmissionHeatmaps:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
