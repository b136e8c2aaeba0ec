"""No import cycle between packages: the layers import downwards only.

A package is ``dicode.<name>`` (a sub-package such as ``dicode.levels`` or a top-level module
such as ``dicode.settings``), ``archive_db``, ``services`` or ``benchmarks``. Every import
statement counts — at module level, inside a function, or under ``TYPE_CHECKING`` — since each
one is a dependency a reader has to follow. The imports are read with ``ast``, nothing is
imported.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
TOP_LEVEL = ("dicode", "archive_db", "services", "benchmarks")

# Known edges that close a cycle, each with why it is still there (none left: the list only
# shrinks, ``test_every_allowed_edge_still_exists``).
ALLOWED: set[tuple[str, str]] = set()


def package_of(module: str) -> str:
    """``dicode.levels.pipeline`` -> ``dicode.levels``; ``services.api.app`` -> ``services``."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "dicode" else parts[0]


def module_of(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(tree: ast.AST) -> list[tuple[str, int]]:
    """Every module an import statement names, with its line (``from dicode import domains``
    names ``dicode.domains``)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module in TOP_LEVEL:
                found += [(f"{node.module}.{alias.name}", node.lineno) for alias in node.names]
            else:
                found.append((node.module, node.lineno))
    return found


def package_edges() -> dict[tuple[str, str], list[str]]:
    """(importer, imported) package pairs, each with the ``file:line`` places that make it."""
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for top in TOP_LEVEL:
        for path in sorted((ROOT / top).rglob("*.py")):
            source = package_of(module_of(path))
            for module, line in imported_modules(ast.parse(path.read_text(encoding="utf-8"))):
                if module.split(".")[0] not in TOP_LEVEL:
                    continue
                target = package_of(module)
                if target != source:
                    edges[source, target].append(f"{path.relative_to(ROOT)}:{line}")
    return edges


def cycles(edges: dict[tuple[str, str], list[str]]) -> list[str]:
    """Each group of packages that import one another, with the places that tie it."""
    graph = nx.DiGraph(list(edges))
    found = []
    for group in nx.strongly_connected_components(graph):
        if len(group) > 1:
            ties = [
                f"  {a} -> {b}: {', '.join(places[:3])}"
                for (a, b), places in sorted(edges.items())
                if a in group and b in group
            ]
            found.append(" <-> ".join(sorted(group)) + "\n" + "\n".join(ties))
    return found


def test_no_import_cycle_between_packages() -> None:
    edges = {pair: places for pair, places in package_edges().items() if pair not in ALLOWED}
    found = cycles(edges)
    assert not found, "import cycles between packages:\n" + "\n".join(found)


def test_every_allowed_edge_still_exists() -> None:
    """An allowance whose edge is gone must be deleted, so the list only shrinks."""
    gone = ALLOWED - set(package_edges())
    assert not gone, f"allowed edges that no longer exist, delete them: {sorted(gone)}"


def test_the_reader_sees_a_cycle() -> None:
    edges = {("a", "b"): ["a.py:1"], ("b", "c"): ["b.py:2"], ("c", "a"): ["c.py:3"]}
    assert cycles(edges) == ["a <-> b <-> c\n  a -> b: a.py:1\n  b -> c: b.py:2\n  c -> a: c.py:3"]
    assert cycles({("a", "b"): ["a.py:1"]}) == []
    tree = ast.parse("from dicode import domains\nimport services.cli\nfrom .x import y\n")
    assert imported_modules(tree) == [("dicode.domains", 1), ("services.cli", 2)]
