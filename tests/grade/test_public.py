"""The public face of dicejack.grade (issue 33): about a dozen names, the same list in
``__all__`` and in DESIGN.md ("Python API"), and nothing else public on the package but its
rooms; everything else is imported from its room."""

from __future__ import annotations

import re
import types
from pathlib import Path

import dicejack.grade as grade

PUBLIC = [
    "GradeConfig", "GradeError", "GradeWarning",
    "grade_files", "grade_file", "grade_text", "grade_tables",
    "Gradebook", "Grade", "Status", "Verdict", "References", "reference_runs",
]
DESIGN = Path(__file__).resolve().parents[2] / "DESIGN.md"


def test_all_is_the_public_list():
    assert list(grade.__all__) == PUBLIC
    assert all(getattr(grade, name) is not None for name in PUBLIC)


def test_design_lists_the_same_names():
    text = DESIGN.read_text()
    line = re.search(r"^`dicejack\.grade\.__all__`: (.*)$", text, flags=re.M)
    assert line is not None, "DESIGN.md lists grade's public names"
    assert re.findall(r"`(\w+)`", line.group(1)) == PUBLIC


def test_nothing_else_is_public_on_the_package():
    extra = sorted(name for name, value in vars(grade).items()
                   if not name.startswith("_") and name not in PUBLIC
                   and not isinstance(value, types.ModuleType) and name != "annotations")
    assert extra == []


def test_an_internal_name_is_imported_from_its_room():
    from dicejack.grade.evidence.calibration import calibration
    from dicejack.grade.scoring.rubric import verdict_for

    assert not hasattr(grade, "verdict_for") and not hasattr(grade, "calibration")
    assert callable(calibration) and verdict_for(90.0, 0.5, ()) == "pass"
