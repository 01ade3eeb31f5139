"""The Python blocks of README.md and docs/design/api.md run as written (game counts shrunk so
that they run in seconds), and no module of dicejack imports an old import path."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def python_blocks(name: str) -> list[str]:
    text = (ROOT / name).read_text()
    return re.findall(r"^```python\n(.*?)^```$", text, flags=re.M | re.S)


def shrunk(code: str) -> str:
    """Game counts written with underscores divided by 100 (100_000 -> 1000)."""
    return re.sub(r"\b(\d{1,3}(?:_\d{3})+)\b",
                  lambda m: str(max(int(m.group(1).replace("_", "")) // 100, 10)), code)


@pytest.mark.parametrize("name", ["README.md", "docs/design/api.md"])
def test_the_python_blocks_run(name):
    blocks = python_blocks(name)
    assert blocks, f"{name} has no Python block"
    for block in blocks:
        exec(compile(shrunk(block), name, "exec"), {})  # noqa: S102


def test_the_design_api_block_learns_what_it_says():
    namespace: dict = {}
    exec(compile(shrunk(python_blocks("docs/design/api.md")[0]), "api.md", "exec"), namespace)  # noqa: S102
    assert namespace["run"].games == 1000
    assert sorted(namespace["run"].snapshots) == [10, 100]
    assert namespace["lrun"].games == 1000
    assert len(namespace["traced"]) == 1 and namespace["traced"][0].moves


def test_old_paths_are_gone():
    # The package is unreleased: a moved module has one path (no import hook for old ones).
    import importlib

    for old in ("dicejack.learner", "dicejack.trace", "dicejack.parallel", "dicejack.env"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(old)
