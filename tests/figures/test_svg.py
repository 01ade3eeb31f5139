"""Tests of dicejack.figures.svg: the state maps and the histogram as SVG text."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from dicejack.compare.metrics import STATE_CLASSES
from dicejack.figures import svg
from dicejack.figures.canvas import CLASS_COLORS
from dicejack.figures.svg import histogram_svg, submission_heatmaps_svg

NS = "{http://www.w3.org/2000/svg}"


def test_score_colours_run_from_blue_to_red_through_white_and_grey_when_unknown():
    assert svg.score_color(-svg.SCORE_LIMIT) == "#053061"
    assert svg.score_color(-99) == "#053061" and svg.score_color(99) == "#67001f"
    assert svg.score_color(0.0) == "#f7f7f7"
    assert svg.score_color(float("nan")) == "#d9d9d9"
    reds = [int(svg.score_color(s)[1:3], 16) for s in np.linspace(-2.5, 0, 6)]
    assert reds == sorted(reds)  # red rises towards the middle


def maps(n=4, name="alice <img src=x onerror=alert(1)>"):
    classes = np.arange(n * n).reshape(n, n) % len(STATE_CLASSES)
    scores = np.linspace(-3, 3, n * n).reshape(n, n)
    scores[0, 1] = np.nan
    policy = np.ones((n, n), dtype=int)
    policy[1, 1] = 0
    optimal = np.zeros((n, n, 3), dtype=bool)
    optimal[..., 2] = True
    optimal[2, 2, 1] = True
    return submission_heatmaps_svg(classes, scores, policy, optimal, label=name)


def test_every_state_is_a_cell_with_its_numbers_in_a_tooltip():
    text = maps()
    root = ET.fromstring(text)  # well-formed XML
    cells = [r for r in root.iter(f"{NS}rect") if r.find(f"{NS}title") is not None]
    assert len(cells) == 2 * 16
    tips = [r.find(f"{NS}title").text for r in cells]
    assert "<1,1>: wrong, off-path / rare (C, D); printed J -, optimal J 2" in tips
    assert "<2,2>: no data; printed J 1, optimal J 1,2" in tips
    assert "<0,1>: not enough reference data" in tips and "<0,0>: normal score -3.00" in tips
    fills = {r.find(f"{NS}title").text: r.get("fill") for r in cells}
    assert fills["<0,0>: normal score -3.00"] == "#053061"
    assert fills["<0,0>: agrees with optimal; printed J 1, optimal J 2"] == CLASS_COLORS[0]


def test_names_stay_text_and_nothing_refers_outside():
    text = maps()
    assert "<img" not in text and "&lt;img src=x onerror=alert(1)&gt;" in text
    assert not re.search(r"<[^>]*\s(href|src)=", text)  # an attribute, not the escaped name


def test_shapes_must_agree():
    with pytest.raises(ValueError, match="square and alike"):
        submission_heatmaps_svg(np.zeros((3, 3)), np.zeros((3, 4)), np.zeros((3, 3)),
                                np.zeros((3, 3, 2), dtype=bool))


def test_large_games_thin_the_tick_labels():
    ticks = [t.text for t in ET.fromstring(maps(n=30)).iter(f"{NS}text")]
    assert "5" in ticks and "3" not in ticks


def test_histogram_counts_each_value_once_the_last_bin_closed():
    text = histogram_svg([0, 9.9, 10, 55, 100, float("nan")], np.arange(0, 101, 10))
    root = ET.fromstring(text)
    tips = [t.text for t in root.iter(f"{NS}title")][1:]
    assert tips[0] == "[0, 10): 2 submissions" and tips[1] == "[10, 20): 1 submissions"
    assert tips[5] == "[50, 60): 1 submissions" and tips[-1] == "[90, 100]: 1 submissions"
    assert len(tips) == 10
