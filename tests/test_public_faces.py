"""The public face of every package (issue 33): ``__all__`` is exactly the names that
docs/design/api.md's "Python API" lists for it (in order), each resolves, and nothing else
public sits on the package but its modules; everything else is imported from its defining
module. Two modules that users import as a face (game, openspiel) hold the first check.
(dicejack.grade's face: tests/grade/test_public.py.)"""

from __future__ import annotations

import importlib
import re
import types
from pathlib import Path

import pytest

DESIGN = Path(__file__).resolve().parents[1] / "docs" / "design" / "api.md"
PACKAGES = ["dicejack", "dicejack.runtime", "dicejack.solver", "dicejack.learners",
            "dicejack.compare", "dicejack.games", "dicejack.envs", "dicejack.figures",
            "dicejack.formats", "dicejack.report", "dicejack.grade"]
#: Modules that are a face themselves: `__all__` is what docs/design/api.md lists; their other names
#: (imports, the rules' helpers) are a module's own business, so only the first check applies.
MODULES = ["dicejack.games.handout_rules", "dicejack.envs.openspiel"]


def design_names(package: str) -> list[str]:
    """The names of docs/design/api.md's "`package.__all__`: `A`, `B`, ..." line, in order."""
    pattern = rf"^`{re.escape(package)}\.__all__`: (.*)$"
    line = re.search(pattern, DESIGN.read_text(), flags=re.M)
    assert line is not None, f"docs/design/api.md lists {package}'s public names"
    return re.findall(r"`(\w+)`", line.group(1))


def public_names(module: types.ModuleType) -> list[str]:
    """What a user sees on `module`: names without a leading underscore, modules aside."""
    return sorted(name for name, value in vars(module).items()
                  if not name.startswith("_") and name != "annotations"
                  and not isinstance(value, types.ModuleType))


@pytest.mark.parametrize("package", PACKAGES + MODULES)
def test_all_is_the_design_list_and_every_name_resolves(package):
    if package == "dicejack.envs.openspiel":
        pytest.importorskip("pyspiel")
    module = importlib.import_module(package)
    names = design_names(package)
    assert list(module.__all__) == names
    for name in names:
        assert getattr(module, name) is not None, name


@pytest.mark.parametrize("package", PACKAGES)
def test_nothing_else_is_public_on_the_package(package):
    module = importlib.import_module(package)
    for name in module.__all__:
        getattr(module, name)  # lazily loaded names are bound now, so they count below
    assert sorted(set(public_names(module)) - set(module.__all__)) == []
