"""The house rules import-linter does not state: no import circle among dicejack's modules,
annotation-only (TYPE_CHECKING) and function-level imports counted, since each is a dependency
a reader must follow; read from the source with ast, so a circle cannot hide behind a lazy
import."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
#: The one circle left: the package root's lazy re-export of Game (``from dicejack import Game``)
#: while game.py imports DicejackError from the root. It goes when the handout's game moves
#: beside the other games (issue 45); nothing may join it.
KNOWN = {frozenset({"dicejack", "dicejack.games.handout_rules"})}


def _modules() -> dict[str, Path]:
    out = {}
    for p in SRC.rglob("*.py"):
        parts = p.relative_to(SRC).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


def import_graph() -> dict[str, set[str]]:
    """Module -> the dicejack modules it imports anywhere in its text."""
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for m, p in mods.items():
        package = m if p.name == "__init__.py" else m.rpartition(".")[0]
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                graph[m].update(a.name for a in node.names if a.name in mods)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                for a in node.names:
                    full = f"{base}.{a.name}"
                    graph[m].add(full if full in mods else base)
        graph[m] &= set(mods)
        graph[m].discard(m)
    return graph


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[frozenset[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(frozenset(comp))
    return out


def test_no_import_circle_but_the_known_one():
    assert set(circles(import_graph())) <= KNOWN


def test_the_circle_finder_finds_an_annotation_only_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [frozenset({"a", "b", "c"})]
    # and the import reader sees a TYPE_CHECKING import: pages reads batch's results type
    # from joint, which batch imports; were pages to import batch again, this would show it
    graph = import_graph()
    assert "dicejack.grade.programs.joint" in graph["dicejack.grade.programs.pages"]
    assert "dicejack.grade.programs.batch_run" not in graph["dicejack.grade.programs.pages"]


#: File names two modules may share: none.
KNOWN_TWINS: set[str] = set()


def test_no_two_modules_share_a_file_name():
    names: dict[str, list[str]] = {}
    for p in (SRC / "dicejack").rglob("*.py"):
        if p.name != "__init__.py":
            names.setdefault(p.name, []).append(str(p.relative_to(SRC)))
    twins = {n for n, where in names.items() if len(where) > 1}
    assert twins <= KNOWN_TWINS, {n: names[n] for n in twins - KNOWN_TWINS}




ROOT = SRC.parent
#: The only uses of another module's private (`_underscore`) names (DESIGN.md's rules): none
#: in src/dicejack; these test files, each testing or counting a helper directly.
PRIVATE_USES = {
    ("tests/hostile/test_hostile_jail_property.py", "tests.hostile.test_hostile_jail"),
    ("tests/formats/test_submission_cost.py", "dicejack.formats.submission.reader"),
    ("tests/grade/test_copies_cost.py", "dicejack.grade.evidence.copies"),  # work counted
    ("tests/grade/programs/test_cause.py", "tests.grade.programs.test_batch_run"),
    ("tests/grade/programs/test_detection.py", "dicejack.grade.programs.batch_run"),
    ("tests/grade/programs/test_detection.py", "dicejack.grade.programs.running"),
    ("tests/grade/programs/test_languages.py", "dicejack.grade.programs.languages"),
}


def _all_modules() -> dict[str, Path]:
    out = {}
    for base in (SRC, ROOT):
        for p in (base / ("dicejack" if base == SRC else "tests")).rglob("*.py"):
            parts = p.relative_to(base).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_uses() -> set[tuple[str, str]]:
    """(file, module) wherever a module of src/dicejack or tests uses another module's private
    name: ``from M import _x``, or ``alias._x`` with alias bound to module M by an import."""
    mods = _all_modules()
    found = set()
    for me, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        alias: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    alias[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(
                        ".")[0]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for a in node.names:
                    if f"{node.module}.{a.name}" in mods:
                        alias[a.asname or a.name] = f"{node.module}.{a.name}"
                    elif _private(a.name) and node.module in mods and node.module != me:
                        found.add((path.relative_to(ROOT).as_posix(), node.module))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _private(node.attr):
                chain, value = [], node.value
                while isinstance(value, ast.Attribute):
                    chain.append(value.attr)
                    value = value.value
                if isinstance(value, ast.Name) and value.id in alias:
                    target = ".".join([alias[value.id], *reversed(chain)])
                    if target in mods and target != me:
                        found.add((path.relative_to(ROOT).as_posix(), target))
    return found


def test_no_module_uses_another_modules_private_names_but_the_tests_listed():
    uses = private_uses()
    assert not [u for u in uses if u[0].startswith("src/")]
    assert uses == PRIVATE_USES


def test_the_module_map_lists_every_module():
    """The module map (docs/design/layout.md) names every module of src/dicejack: by its file
    name in its package's list, or (a package described in one entry: formats/submission/,
    grade/programs/, runtime/tree/) by its name in that entry's words."""
    import re

    text = (ROOT / "docs" / "design" / "layout.md").read_text(encoding="utf-8")
    layout = text[text.index("## Layout"):text.index("\ntests/ ", text.index("## Layout"))]
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", layout))
    missing = [p.relative_to(SRC).as_posix() for p in sorted((SRC / "dicejack").rglob("*.py"))
               if p.name != "__init__.py" and p.name not in layout and p.stem not in words]
    assert missing == []


#: Modules allowed over MAX_MODULE_LINES: none.
LONG_MODULES: set[str] = set()
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80


def test_no_module_over_600_lines_and_no_function_over_80():
    long_modules, long_functions = set(), []
    for p in sorted((SRC / "dicejack").rglob("*.py")):
        text = p.read_text(encoding="utf-8")
        if len(text.splitlines()) > MAX_MODULE_LINES:
            long_modules.add(p.relative_to(SRC).as_posix())
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long_functions.append(f"{p.relative_to(SRC).as_posix()}:{node.name} {lines}")
    assert long_modules <= LONG_MODULES, long_modules - LONG_MODULES
    assert long_functions == []
