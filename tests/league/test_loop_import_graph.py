"""The package's modules import each other without a circle (the table layer does not import the league).

Every ``import`` and ``from … import`` in harness/**.py counts, at module level or in a
function (a lazy import is still a dependency); only imports under ``if TYPE_CHECKING:``
are left out (they never run).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _module_names(package: Path) -> dict[str, Path]:
    names: dict[str, Path] = {}
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that ``name`` imports, anywhere but under ``if TYPE_CHECKING:``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names if alias.name in modules)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    parts = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join([*parts, *([child.module] if child.module else [])])
                for alias in child.names:
                    if f"{base}.{alias.name}" in modules:  # a module imported from its package
                        found.add(f"{base}.{alias.name}")
                    elif base in modules:
                        found.add(base)
            visit(child)

    visit(ast.parse(path.read_text(), str(path)))
    found.discard(name)
    return found


def import_graph(package: Path) -> dict[str, set[str]]:
    """Each module of ``package`` (a folder) and the package's modules it imports."""
    modules = _module_names(package)
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def strong(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                strong(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            strong(node)
    return found


def test_the_harness_imports_without_a_circle() -> None:
    graph = import_graph(ROOT / "harness")
    assert len(graph) > 50  # the whole package was read
    assert "harness.league.matches" in graph["harness.checkbot"]  # function-level imports count too
    found = circles(graph)
    assert not found, "import circles: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_table_layer_and_the_sandbox_do_not_import_the_league() -> None:
    graph = import_graph(ROOT / "harness")
    for name in ("harness.match", "harness.sandbox", "harness.sandbox_types", "harness.referee"):
        assert not {other for other in graph[name] if other.startswith("harness.league")}, name


def test_the_checker_finds_a_circle_and_ignores_type_checking_imports(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.sub import b\n")
    (package / "sub" / "b.py").write_text("def f():\n    from .. import c\n")  # lazy and relative
    (package / "c.py").write_text("import pkg.a\n")
    (package / "d.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.e\n")
    (package / "e.py").write_text("import pkg.d\n")
    graph = import_graph(package)
    assert graph["pkg.sub.b"] == {"pkg.c"}
    assert graph["pkg.d"] == set()
    assert circles(graph) == [["pkg.a", "pkg.c", "pkg.sub.b"]]
