"""The matplotlib ground of the figures: log-axis labels, axes in inches, ticks as a few
artists, PNG bytes without the matplotlib version."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from dicejack.figures import canvas


@pytest.mark.parametrize("value, text", [
    (1e4, "10\u2074"), (1e-3, "10\u207b\u00b3"), (1.0, "10\u2070"), (1e12, "10\u00b9\u00b2"),
    (0.5, "0.5"), (2e6, "2e+06"), (0.0, "0"), (-100.0, "-100"),
])
def test_power_of_ten_labels_powers_in_plain_text_and_the_rest_as_g(value, text):
    assert canvas.power_of_ten(value) == text


def test_axes_are_placed_in_inches():
    with canvas.default_style() as m:
        fig = canvas.new_figure(m, 4.0, 2.0)
        ax = canvas.axes_in_inches(fig, 1.0, 0.5, 2.0, 1.0)
    assert tuple(fig.get_size_inches()) == (4.0, 2.0)
    np.testing.assert_allclose(ax.get_position().bounds, (0.25, 0.25, 0.5, 0.5))


def test_flat_ticks_draws_matplotlibs_own_ticks_as_a_few_artists():
    with canvas.default_style() as m:
        fig = canvas.new_figure(m, 4.0, 3.0)
        ax = fig.add_subplot()
        ax.set_xlim(0, 10)
        ax.set_ylim(0, 1)
        major = ax.xaxis.major.formatter.format_ticks(ax.xaxis.major.locator())
        canvas.flat_ticks(m, ax, grid_alpha=0.3)
        labels = [c for c in ax.collections if isinstance(c, m.PathCollection)]
        grids = [c for c in ax.collections if isinstance(c, m.LineCollection)]
        # one collection of labels and one of grid lines per axis; no Tick artists left
        assert len(labels) == 2 and len(grids) == 2
        assert len(labels[0].get_paths()) == len(major) == 6  # 0, 2, ..., 10
        assert len(grids[0].get_segments()) == 6
        assert ax.xaxis.get_major_ticks() == [] and ax.get_xlim() == (0.0, 10.0)
        data = canvas.png_bytes(fig)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    info = Image.open(io.BytesIO(data)).info
    assert "Software" not in info
