"""The mutation benchmark's list stays plantable: every bug of benchmarks/bench_mutation.py is an
exact text found once in its file, and every test file named to kill it exists. A refactor that
moves the text (a rename, a split) fails here, in the suite, instead of at the benchmark's next
run (as one did: a game added to the --game help left its bug unplantable)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _bugs():
    spec = importlib.util.spec_from_file_location("bench_mutation",
                                                  ROOT / "benchmarks" / "bench_mutation.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_mutation", module)  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module.BUGS


@pytest.mark.parametrize("bug", _bugs(), ids=lambda b: b.name)
def test_each_planted_bug_still_has_its_text_once_and_its_tests(bug):
    text = (ROOT / bug.file).read_text(encoding="utf-8")
    assert text.count(bug.old) == 1, f"{bug.file}: {bug.old!r}"
    assert bug.new != bug.old
    assert bug.tests and all((ROOT / t).is_file() for t in bug.tests), bug.tests
