"""Small helpers that build lineage views without a database."""

from __future__ import annotations

from dicode.archive.graph import LineageView
from dicode.archive.records import Edge, GraphChanges, LevelNode
from dicode.archive.status import learnability, status_letter


def node(level_id: int, success_rate: float | None, *, active: bool = False) -> LevelNode:
    return LevelNode(
        id=level_id,
        status=status_letter(success_rate),
        success_rate=success_rate,
        score=learnability(success_rate),
        active=active,
        last_sampled=None,
        times_sampled=0,
        teacher="test",
        created_iteration=None,
    )


def view_of(rates: dict[int, float | None], edges: list[tuple[int, int]]) -> LineageView:
    view = LineageView()
    view.apply(
        GraphChanges(
            cursor=1,
            levels=tuple(node(i, r) for i, r in rates.items()),
            edges=tuple(Edge(p, c) for p, c in edges),
        )
    )
    return view


def changes_of(rates: dict[int, float | None], cursor: int = 2) -> GraphChanges:
    """New state of some levels, as the repository's change feed would deliver it."""
    return GraphChanges(cursor=cursor, levels=tuple(node(i, r) for i, r in rates.items()), edges=())
