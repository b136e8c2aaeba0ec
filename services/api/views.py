"""Archive records → JSON-ready dicts (what the API answers), and the lineage graph."""

from __future__ import annotations

from typing import Any

import networkx as nx

from archive_db import ArchiveRepository
from archive_db.records import AttemptInfo, EvaluationInfo, LevelInfo, RunInfo
from dicode.levels.bundle import LevelBundle


def run_view(run: RunInfo) -> dict[str, Any]:
    return {
        "id": run.id,
        "name": run.name,
        "domain": run.domain,
        "seed": run.seed,
        "status": run.status,
        "created_at": run.created_at.isoformat(),
        "updated_at": run.updated_at.isoformat(),
    }


def level_summary(level: LevelInfo) -> dict[str, Any]:
    return {
        "id": level.id,
        "run_id": level.run_id,
        "name": level.name,
        "teacher": level.teacher,
        "status": level.status,
        "success_rate": level.success_rate,
        "score": level.score,
        "active": level.active,
        "times_sampled": level.times_sampled,
        "last_sampled": level.last_sampled,
        "created_at": level.created_at.isoformat(),
        "description": level.description[:200],
    }


def level_detail(repo: ArchiveRepository, level: LevelInfo) -> dict[str, Any]:
    return level_summary(level) | {
        "description": level.description,
        "reasoning": level.reasoning,
        "code": level.code,
        "meta": level.meta,
        "content_hash": level.content_hash,
        "bundle": bundle_summary(repo.get_bundle(level.id)),
        "history": [evaluation_view(e) for e in repo.level_history(level.id)],
        "parents": repo.parents(level.id),
        "children": repo.children(level.id),
    }


def bundle_summary(data: bytes | None) -> dict[str, Any] | None:
    """Goal, pool size and shapes of a stored bundle (not the arrays themselves)."""
    if data is None:
        return None
    try:
        bundle = LevelBundle.from_bytes(data)
    except ValueError as error:
        return {"error": str(error)}
    return {
        "goal": bundle.goal,
        "rules": bundle.rules,
        "pool_size": bundle.pool_size,
        "arrays": {k: list(v.shape) for k, v in bundle.pool.items()},
        "provenance": bundle.provenance(),
        "bytes": len(data),
    }


def evaluation_view(e: EvaluationInfo) -> dict[str, Any]:
    return {
        "student_iteration": e.student_iteration,
        "episodes": e.episodes,
        "successes": e.successes,
        "success_rate": e.success_rate,
        "mean_return": e.mean_return,
        "per_goal": e.per_goal,
        "created_at": e.created_at.isoformat(),
    }


def attempt_view(a: AttemptInfo, *, full: bool = False) -> dict[str, Any]:
    view: dict[str, Any] = {
        "id": a.id,
        "teacher": a.teacher,
        "verdict": a.verdict,
        "stage_reached": a.stage_reached,
        "failing_stage": a.failing_stage,
        "error": a.error,
        "parent_id": a.parent_id,
        "level_id": a.level_id,
        "latency_s": a.latency_s,
        "tokens_in": a.tokens_in,
        "tokens_out": a.tokens_out,
        "created_at": a.created_at.isoformat(),
    }
    if full:
        view |= {"code": a.code, "prompts": a.prompts, "responses": a.responses}
    return view


def lineage_graph(repo: ArchiveRepository, run_id: int) -> nx.DiGraph:
    """The run's levels (node attributes without code) and parent → child edges."""
    graph = nx.DiGraph()
    snapshot = repo.load_graph_snapshot(run_id)
    for node in snapshot.levels:
        attrs = {
            "status": node.status,
            "success_rate": node.success_rate,
            "score": node.score,
            "active": node.active,
            "teacher": node.teacher,
            "times_sampled": node.times_sampled,
        }
        graph.add_node(node.id, **{k: v for k, v in attrs.items() if v is not None})
    for edge in snapshot.edges:
        graph.add_edge(edge.parent, edge.child)
    return graph


def neighbourhood(graph: nx.DiGraph, level_id: int, depth: int) -> nx.DiGraph:
    """Ancestors and descendants of a level up to ``depth`` generations away."""
    keep = {level_id}
    for step in (graph.predecessors, graph.successors):
        frontier = {level_id}
        for _ in range(depth):
            frontier = {m for n in frontier for m in step(n)} - keep
            keep |= frontier
    return graph.subgraph(keep).copy()
