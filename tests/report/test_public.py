"""The public face of dicejack.report (issue 33): what a user calls from Python, the same list
in ``__all__`` and in DESIGN.md ("Python API"), and nothing else public on the package but its
modules; the command line's text is read in cli/report_options.py, never here."""

from __future__ import annotations

import re
import types
from pathlib import Path

import numpy as np

import dicejack.report as report

PUBLIC = [
    "ReportConfig", "SeriesSpec", "series_grid", "ReportError",
    "run_study", "Study", "make_report", "write_report", "Report",
    "SERIES_LIMIT", "TOTAL_GAMES_LIMIT",
]
DESIGN = Path(__file__).resolve().parents[2] / "DESIGN.md"


def test_all_is_the_public_list():
    assert list(report.__all__) == PUBLIC
    assert all(getattr(report, name) is not None for name in PUBLIC)


def test_design_lists_the_same_names():
    text = DESIGN.read_text()
    line = re.search(r"^`dicejack\.report\.__all__`: (.*)$", text, flags=re.M)
    assert line is not None, "DESIGN.md lists report's public names"
    assert re.findall(r"`(\w+)`", line.group(1)) == PUBLIC


def test_nothing_else_is_public_on_the_package():
    extra = sorted(name for name, value in vars(report).items()
                   if not name.startswith("_") and name not in PUBLIC
                   and not isinstance(value, types.ModuleType) and name != "annotations")
    assert extra == []


def test_no_text_parser_is_left_in_the_library():
    from dicejack.report import config, game_study

    for module in (report, config, game_study):
        assert not [n for n in vars(module) if n.startswith("parse_")], module.__name__


def test_an_internal_name_is_imported_from_its_module():
    from dicejack.report.contents import TIMING_FILE
    from dicejack.report.study import interval

    assert not hasattr(report, "interval") and not hasattr(report, "TIMING_FILE")
    assert TIMING_FILE == "timing.json" and interval(np.array([[1.0], [3.0]]))[0].tolist() == [2.0]
