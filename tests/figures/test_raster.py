"""State maps drawn pixel by pixel: a valid PNG whose every state is the colour it should be."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from dicejack import figures
from dicejack.figures import raster, svg
from dicejack.figures.canvas import CLASS_COLORS


def hex_rgb(color: str) -> tuple[int, int, int]:
    return tuple(int(color[i:i + 2], 16) for i in (1, 3, 5))


def decode(data: bytes) -> np.ndarray:
    image = Image.open(io.BytesIO(data))
    image.load()  # checks every chunk's CRC and the zlib stream
    assert image.mode == "RGB" and image.format == "PNG"
    return np.asarray(image)


def test_png_rgb_round_trips_any_image():
    rng = np.random.default_rng(3)
    for shape in ((1, 1, 3), (7, 5, 3), (40, 33, 3)):
        image = rng.integers(0, 256, shape, dtype=np.uint8)
        np.testing.assert_array_equal(decode(raster.png_rgb(image)), image)


@pytest.mark.parametrize("low", [3, 15, 40])
def test_every_state_is_drawn_in_its_colour(low):
    rng = np.random.default_rng(low)
    classes = rng.integers(0, len(CLASS_COLORS), (low, low))
    scores = rng.normal(scale=2, size=(low, low))
    scores[0, low - 1] = np.nan
    data = raster.submission_heatmaps_png(classes, scores)
    assert data == raster.submission_heatmaps_png(classes, scores)  # reproducible bytes
    image = decode(data)
    template, cell, top, first, second = raster.map_layout(low)
    assert image.shape == template.shape
    for x in range(low):
        for y in range(low):
            row = top + x * cell + (cell - 1) // 2  # rows X, columns Y, <0,0> top left
            assert tuple(image[row, first + y * cell + (cell - 1) // 2]) == hex_rgb(
                CLASS_COLORS[classes[x, y]]), (x, y)
            assert tuple(image[row, second + y * cell + (cell - 1) // 2]) == hex_rgb(
                svg.score_color(scores[x, y])), (x, y)
    assert tuple(image[top + (cell - 1) // 2, second + (low - 1) * cell + 1]) == hex_rgb(
        "#d9d9d9")  # NaN: grey
    # the numbers and letters are drawn in ink above and left of each map
    ink = np.all(image == raster.INK, axis=-1)
    assert ink[:top - 1, first:first + low * cell].sum() > 20 * min(low, 9)
    assert ink[top:top + low * cell, :first - 1].sum() > 20 * min(low, 9)


def test_bad_tables_are_refused_and_the_writer_checks_the_game(tmp_path):
    with pytest.raises(ValueError, match="two square tables of one size"):
        raster.submission_heatmaps_png(np.zeros((3, 3)), np.zeros((3, 4)))
    from dicejack.games.handout_rules import Game

    maps = figures.SubmissionHeatmaps(Game(3, 6, 7, 2))
    with pytest.raises(ValueError, match="not \\(6, 6\\)"):
        maps.draw(np.zeros((5, 5)), np.zeros((6, 6)), "t", tmp_path / "a.png")
    maps.draw(np.zeros((6, 6), dtype=int), np.zeros((6, 6)), "t", tmp_path / "a.png")
    assert decode((tmp_path / "a.png").read_bytes()).shape[0] > 6 * 5
