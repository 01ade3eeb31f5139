"""Tests of dicejack.formats itself: it re-exports every module's public names, loading a module
only when one of its names is first used."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from dicejack import formats

MODULES = ("atomic", "folders", "json_output", "escape", "html", "numbers", "sizes", "npz",
           "tables", "submission", "learner_runs", "replay")


def test_every_public_name_of_the_modules_is_re_exported() -> None:
    names = {"FormatError"}
    for name in MODULES:
        module = importlib.import_module(f"dicejack.formats.{name}")
        assert not names & set(module.__all__), "a name is public in two modules"
        names |= set(module.__all__)
        for public in module.__all__:
            assert getattr(formats, public) is getattr(module, public)
    assert set(formats.__all__) == names and len(formats.__all__) == len(names)
    assert names <= set(dir(formats))


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
