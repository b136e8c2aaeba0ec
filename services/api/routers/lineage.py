"""Lineage: a run's whole graph (JSON or GraphML), the graph a browser draws, and one level's
neighbourhood."""

from __future__ import annotations

import io
from dataclasses import asdict
from typing import Annotated, Literal

import networkx as nx
from fastapi import APIRouter, Query, Response

from services.api.deps import RecordId, Repository, SelectedRun
from services.api.lineage_view import collapse
from services.api.schemas import ErrorMessage, Graph, Lineage, LineageView, ViewEdge, ViewNode

GRAPHML = "application/graphml+xml"

router = APIRouter(
    tags=["lineage"], responses={404: {"model": ErrorMessage, "description": "no such run/level"}}
)


@router.get(
    "/api/runs/{run}/graph",
    response_model=Graph,
    responses={200: {"content": {GRAPHML: {"schema": {"type": "string"}}}}},
)
def run_graph(
    run: SelectedRun, repo: Repository, format: Literal["json", "graphml"] = "json"
) -> Graph | Response:
    """The run's whole lineage graph as JSON or GraphML (an export: every level is read)."""
    snapshot = repo.feed.snapshot(run.id)
    graph = Graph.model_validate({"nodes": snapshot.levels, "edges": snapshot.edges})
    if format == "graphml":
        return Response(_graphml(graph), media_type=GRAPHML)
    return graph


@router.get("/api/runs/{run}/graph/view")
def run_graph_view(
    run: SelectedRun,
    repo: Repository,
    max_nodes: Annotated[int, Query(ge=10, le=20_000, description="levels drawn at most")] = 2000,
) -> LineageView:
    """The lineage graph with each edge's instruction; beyond ``max_nodes`` levels the
    most-sampled ones and their ancestors, the rest folded into counts (``rule`` says how)."""
    snapshot = repo.feed.snapshot(run.id)
    instructions = repo.lineage.instructions(run.id)
    view = collapse(snapshot.levels, snapshot.edges, max_nodes)
    return LineageView(
        total=len(snapshot.levels),
        rule=view.rule,
        nodes=[
            ViewNode.model_validate(
                asdict(level)
                | {
                    "instruction": instructions.get(level.id),
                    "hidden": view.hidden.get(level.id, 0),
                }
            )
            for level in view.levels
        ],
        edges=[
            ViewEdge(parent=e.parent, child=e.child, instruction=instructions.get(e.child))
            for e in view.edges
        ],
    )


@router.get("/api/levels/{level_id}/lineage")
def level_lineage(
    level_id: RecordId,
    repo: Repository,
    depth: Annotated[int, Query(ge=1, le=50, description="generations each way")] = 3,
) -> Lineage:
    """Ancestors and descendants of a level up to ``depth`` generations (walked in SQL)."""
    around = repo.lineage.neighbourhood(level_id, depth)
    return Lineage.model_validate(
        {"root": level_id, "depth": depth, "nodes": around.levels, "edges": around.edges}
    )


def _graphml(graph: Graph) -> bytes:
    # GraphML has no null: unknown attributes are left out.
    view = nx.DiGraph()
    for node in graph.nodes:
        view.add_node(node.id, **node.model_dump(exclude={"id"}, exclude_none=True))
    view.add_edges_from((edge.parent, edge.child) for edge in graph.edges)
    buffer = io.BytesIO()
    nx.write_graphml(view, buffer)
    return buffer.getvalue()
