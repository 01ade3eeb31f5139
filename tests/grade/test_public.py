"""What dicejack.grade's public face leaves out (issue 33): internal names are imported from their
rooms. (`__all__` against docs/design/api.md's list: tests/test_public_faces.py.)"""

from __future__ import annotations

import dicejack.grade as grade


def test_an_internal_name_is_imported_from_its_room():
    from dicejack.grade.evidence.calibration import calibration
    from dicejack.grade.scoring.rubric import verdict_for

    assert not hasattr(grade, "verdict_for") and not hasattr(grade, "calibration")
    assert callable(calibration) and verdict_for(90.0, 0.5, ()) == "pass"
