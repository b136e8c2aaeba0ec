"""Lineage graphs as plain JSON, shared by the archive CLI's export and the REST API."""

from __future__ import annotations

from typing import Any

import networkx as nx


def graph_json(graph: nx.DiGraph) -> dict[str, Any]:
    """``{"nodes": [{id, **attributes}], "edges": [{parent, child}]}``, sorted by id."""
    return {
        "nodes": [dict(attrs, id=n) for n, attrs in sorted(graph.nodes(data=True))],
        "edges": [{"parent": p, "child": c} for p, c in sorted(graph.edges)],
    }
