"""No import circles: no module of the project's packages imports itself, directly or through others.

Every import counts, wherever it is: at the top, inside a function, under ``if TYPE_CHECKING:``. A circle
hidden in a function or behind the type checker still ties the modules together (neither can be read,
tested or moved without the other), so the way out is a cut, not a later import: the shared piece moved to
the module that owns it or to a small one of its own, or a Protocol in place of the concrete class.

The graph is read from the source with ``ast``: ``import a.b`` is an edge to the longest module of ours that
names (``a.b``, else ``a``); ``from a import b`` to the submodule ``a.b`` when there is one, else to ``a``;
relative imports are resolved against the importing module's package.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: (directory the package is imported from, package): the project's packages and the Python SDK.
PACKAGES = [*((ROOT, name) for name in ("engine", "core", "api", "arena", "devstack", "tools", "loadtest")),
            (ROOT / "clients" / "python", "trickarena")]

#: module -> the modules it imports -> where (path:line of the first such import).
Graph = dict[str, dict[str, str]]


def module_files(packages: Iterable[tuple[Path, str]]) -> dict[str, Path]:
    """Every module of `packages` by its dotted name (a package by its own name, for its ``__init__.py``)."""
    modules: dict[str, Path] = {}
    for base, package in packages:
        for path in sorted((base / package).rglob("*.py")):
            parts = path.relative_to(base).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def import_graph(modules: dict[str, Path], root: Path = ROOT) -> Graph:
    """The imports between `modules` (imports of anything else are left out)."""

    def ours(name: str) -> str | None:
        """The longest module of ours that `name` names: the module, or the package it is an attribute of."""
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: Graph = {}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        edges: dict[str, str] = {}
        imports = [node for node in ast.walk(ast.parse(path.read_text(), str(path)))
                   if isinstance(node, ast.Import | ast.ImportFrom)]
        for node in sorted(imports, key=lambda node: node.lineno):
            if isinstance(node, ast.Import):
                targets = [ours(alias.name) for alias in node.names]
            else:
                source = node.module or ""
                if node.level:  # `from . import x` is from the package itself, each further dot one up
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - node.level + 1]
                    source = ".".join([*anchor, *([node.module] if node.module else [])])
                targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else ours(source)
                           for alias in node.names]
            for target in targets:
                if target is not None and target != module:
                    edges.setdefault(target, f"{path.relative_to(root)}:{node.lineno}")
        graph[module] = edges
    return graph


def circles(graph: Graph) -> list[list[str]]:
    """The import circles: each a sorted list of modules that all reach one another through imports."""
    reach = {module: reachable(graph, module) for module in graph}
    found = {frozenset(other for other in reach[module] if module in reach[other])
             for module in graph if module in reach[module]}
    return sorted(sorted(circle) for circle in found)


def reachable(graph: Graph, start: str) -> set[str]:
    """The modules `start` imports, directly or through others."""
    seen: set[str] = set()
    todo = list(graph[start])
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(graph.get(module, ()))
    return seen


def describe(graph: Graph, circle: list[str]) -> str:
    """One circle: its modules, then each import that joins two of them."""
    joins = [f"    {graph[module][other]}: {module} imports {other}"
             for module in circle for other in circle if other in graph[module]]
    return "\n".join([" <-> ".join(circle), *joins])


def test_no_module_imports_itself_through_others() -> None:
    graph = import_graph(module_files(PACKAGES))
    assert {package for _, package in PACKAGES} <= set(graph)  # every package was read
    found = circles(graph)
    assert not found, f"{len(found)} import circle(s):\n" + "\n".join(describe(graph, c) for c in found)


def test_every_kind_of_import_is_an_edge(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n",
        "pkg/b.py": "def f() -> None:\n    from pkg import c\n",
        "pkg/c.py": "import pkg.sub.d\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/d.py": "from .. import a\nfrom ..e import name\nimport os\n",
        "pkg/e.py": "from . import sub\nfrom pkg import *\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    graph = import_graph(module_files([(tmp_path, "pkg")]), root=tmp_path)
    assert {module: set(edges) for module, edges in graph.items()} == {
        "pkg": set(), "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.c"}, "pkg.c": {"pkg.sub.d"}, "pkg.sub": set(),
        "pkg.sub.d": {"pkg.a", "pkg.e"}, "pkg.e": {"pkg.sub", "pkg"},
    }
    assert graph["pkg.a"]["pkg.b"] == "pkg/a.py:3"
    assert circles(graph) == [["pkg.a", "pkg.b", "pkg.c", "pkg.sub.d"]]
