"""Tests of grade's rooms (DESIGN.md, "Layers"): no room imports a room above it and no
module imports in a circle, on the import graph with annotation-only (``if TYPE_CHECKING:``)
imports counted, which the project's lint-imports run leaves out; and no such import in the
rooms at all."""

from __future__ import annotations

from pathlib import Path

import grimp
import pytest

import dicejack.grade

#: grade's rooms, highest first (pyproject.toml holds the same layers for lint-imports).
LAYERS = ["programs", "batch", "outputs", "scoring", "evidence", "intake", "settings"]
#: The packages whose modules must not import in a circle (programs/ keeps one annotation-only
#: import, pages -> batch: see the report of issue 33).
ROOMS = ["dicejack.grade", "dicejack.grade.intake", "dicejack.grade.evidence",
         "dicejack.grade.scoring", "dicejack.grade.outputs"]
GRADE = Path(dicejack.grade.__file__).parent


def _graph() -> grimp.ImportGraph:
    return grimp.build_graph("dicejack", exclude_type_checking_imports=False, cache_dir=None)


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return _graph()


def _layers() -> list[grimp.Layer]:
    out = []
    for layer in LAYERS:
        names = [n.strip() for n in layer.split(":")]
        out.append(grimp.Layer(*names, independent=len(names) == 1))
    return out


def test_no_room_imports_a_room_above_it(graph: grimp.ImportGraph) -> None:
    illegal = graph.find_illegal_dependencies_for_layers(layers=_layers(),
                                                         containers={"dicejack.grade"})
    assert illegal == set()


def test_a_room_importing_up_is_caught() -> None:
    graph = _graph()
    graph.add_import(importer="dicejack.grade.evidence.references",
                     imported="dicejack.grade.scoring.record")
    illegal = graph.find_illegal_dependencies_for_layers(layers=_layers(),
                                                         containers={"dicejack.grade"})
    assert {(d.importer, d.imported) for d in illegal} == {
        ("dicejack.grade.evidence", "dicejack.grade.scoring")}


def _cycle(graph: grimp.ImportGraph, package: str) -> list[str]:
    """A circle among `package`'s children (each with its descendants), or []."""
    children = sorted(graph.find_children(package))
    inside = {c: {c} | graph.find_descendants(c) for c in children}
    owner = {m: c for c, ms in inside.items() for m in ms}
    edges: dict[str, set[str]] = {c: set() for c in children}
    for c, modules in inside.items():
        for m in modules:
            for imported in graph.find_modules_directly_imported_by(m):
                o = owner.get(imported)
                if o is not None and o != c:
                    edges[c].add(o)
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        state[node] = 2
        path.pop()
        return []

    for c in children:
        if c not in state:
            found = visit(c)
            if found:
                return found
    return []


@pytest.mark.parametrize("package", ROOMS)
def test_no_circle_between_a_rooms_modules(graph: grimp.ImportGraph, package: str) -> None:
    assert _cycle(graph, package) == []


def test_a_circle_is_caught() -> None:
    graph = _graph()
    graph.add_import(importer="dicejack.grade.evidence.references",
                     imported="dicejack.grade.evidence.consistency")
    assert "dicejack.grade.evidence.references" in _cycle(graph, "dicejack.grade.evidence")


def test_no_annotation_only_import_in_the_rooms() -> None:
    found = [str(p.relative_to(GRADE)) for p in sorted(GRADE.rglob("*.py"))
             if p.parent.name != "programs" and "TYPE_CHECKING" in p.read_text()]
    assert found == []
