"""What dicejack.report's public face leaves out (issue 33): no text parser in the library (the
command line's text is read in cli/report_options.py), internal names from their modules.
(`__all__` against docs/design/api.md's list: tests/test_public_faces.py.)"""

from __future__ import annotations

import numpy as np

import dicejack.report as report


def test_no_text_parser_is_left_in_the_library():
    from dicejack.report import config, limits, series

    for module in (report, config, limits, series):
        assert not [n for n in vars(module) if n.startswith("parse_")], module.__name__


def test_an_internal_name_is_imported_from_its_module():
    from dicejack.report.limits import TIMING_FILE
    from dicejack.report.study import interval

    assert not hasattr(report, "interval") and not hasattr(report, "TIMING_FILE")
    assert TIMING_FILE == "timing.json" and interval(np.array([[1.0], [3.0]]))[0].tolist() == [2.0]
