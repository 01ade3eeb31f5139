"""Tests of dicejack.formats itself: its face (tests/test_public_faces.py holds the list) is
names of its modules, each loaded only when one of its names is first used."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from dicejack import formats

MODULES = ("atomic", "folders", "json_output", "escape", "html", "numbers", "sizes", "npz",
           "tables", "submission", "learner_runs", "replay")


def test_every_name_of_the_face_is_its_modules_own() -> None:
    owners: dict[str, str] = {}
    for name in MODULES:
        module = importlib.import_module(f"dicejack.formats.{name}")
        for public in module.__all__:
            assert public not in owners, f"{public} is public in {owners.get(public)} and {name}"
            owners[public] = name
    for public in formats.__all__:
        if public == "FormatError":
            continue
        module = importlib.import_module(f"dicejack.formats.{owners[public]}")
        assert getattr(formats, public) is getattr(module, public)
    assert set(formats.__all__) <= set(dir(formats))
    assert "solution_text" in owners and not hasattr(formats, "solution_text")


def test_unknown_names_raise_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        formats.no_such_name  # noqa: B018
    with pytest.raises(ImportError):
        from dicejack.formats import no_such_name  # noqa: F401


def test_writing_a_file_does_not_load_the_submission_reader() -> None:
    code = (
        "import sys\n"
        "from dicejack.formats import write_atomic\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('dicejack.formats.'))\n"
        "print(' '.join(loaded))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["dicejack.formats.atomic"]
