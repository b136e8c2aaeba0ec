"""Lineage edges (parent → child) and walks over them.

Edges are written with their child level (`write_edges`, from `Levels.insert_in`), so the graph
stays acyclic; `Lineage.add_edge` adds extra ones explicitly and idempotently.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from sqlalchemy import CTE, BigInteger, Integer, Table, insert, literal, select
from sqlalchemy.orm import InstrumentedAttribute, Session

from archive_db.aggregates.feed import log_changes
from archive_db.convert import columns_of, record_from
from archive_db.errors import InvalidRecordError
from archive_db.models import Level, LineageEdge
from archive_db.records import Subgraph
from archive_db.sessions import Sessions, require
from dicode.archive.records import Edge, LevelNode

_EDGES = cast(Table, LineageEdge.__table__)


def write_edges(session: Session, run_id: int, child_id: int, parent_ids: Sequence[int]) -> None:
    """Edges of a level just inserted in this transaction (its parents are checked already)."""
    if parent_ids:
        session.execute(
            insert(_EDGES),
            [{"parent_id": p, "child_id": child_id, "run_id": run_id} for p in parent_ids],
        )


class Lineage:
    def __init__(self, sessions: Sessions) -> None:
        self._sessions = sessions

    def add_edge(self, parent_id: int, child_id: int) -> bool:
        """Record that ``child_id`` came from ``parent_id``; False if the edge existed."""
        if parent_id == child_id:
            raise InvalidRecordError(f"level {parent_id} cannot be its own parent")
        with self._sessions.writing() as session:
            parent = require(session, Level, parent_id)
            child = require(session, Level, child_id)
            if parent.run_id != child.run_id:
                raise InvalidRecordError(
                    f"levels {parent_id} and {child_id} belong to different runs"
                )
            stmt = self._sessions.insert_ignoring(
                LineageEdge,
                ["parent_id", "child_id"],
                parent_id=parent_id,
                child_id=child_id,
                run_id=child.run_id,
            ).returning(LineageEdge.child_id)
            created = session.execute(stmt).scalar_one_or_none() is not None
            if created:
                log_changes(session, child.run_id, [("edge", child_id, parent_id)])
            return created

    def parents(self, level_id: int) -> list[int]:
        return self._ends(LineageEdge.parent_id, LineageEdge.child_id, level_id)

    def children(self, level_id: int) -> list[int]:
        return self._ends(LineageEdge.child_id, LineageEdge.parent_id, level_id)

    def _ends(
        self, wanted: InstrumentedAttribute[int], given: InstrumentedAttribute[int], level_id: int
    ) -> list[int]:
        with self._sessions.reading() as session:
            return list(session.scalars(select(wanted).where(given == level_id).order_by(wanted)))

    def instructions(self, run_id: int) -> dict[int, str]:
        """The instruction (harder, easier, vary, skill) each generated level of the run was
        written under, by level id: the label of the edges into it."""
        instruction = Level.meta["instruction"].as_string()
        query = select(Level.id, instruction).where(
            Level.run_id == run_id, instruction.is_not(None)
        )
        with self._sessions.reading() as session:
            return {level: text for level, text in session.execute(query)}

    def neighbourhood(self, level_id: int, depth: int) -> Subgraph:
        """Ancestors and descendants of a level up to ``depth`` generations away (and the level),
        with every edge among them; walked in SQL, so only the neighbourhood is read."""
        up = _walk(level_id, depth, forward=False)
        down = _walk(level_id, depth, forward=True)
        members = select(up.c.id).union(select(down.c.id)).scalar_subquery()
        with self._sessions.snapshot() as session:
            require(session, Level, level_id)
            nodes = session.execute(
                select(*columns_of(LevelNode, Level))
                .where(Level.id.in_(members))
                .order_by(Level.id)
            )
            edges = session.execute(
                select(LineageEdge.parent_id, LineageEdge.child_id)
                .where(LineageEdge.parent_id.in_(members), LineageEdge.child_id.in_(members))
                .order_by(LineageEdge.parent_id, LineageEdge.child_id)
            )
            return Subgraph(
                levels=tuple(record_from(LevelNode, row) for row in nodes),
                edges=tuple(Edge(parent=p, child=c) for p, c in edges),
            )


def _walk(start: int, depth: int, *, forward: bool) -> CTE:
    """Levels within ``depth`` steps of ``start`` along the edges (or against them)."""
    here, there = (
        (LineageEdge.parent_id, LineageEdge.child_id)
        if forward
        else (LineageEdge.child_id, LineageEdge.parent_id)
    )
    # Typed casts: PostgreSQL wants the same column types in both halves of the recursion.
    reached = select(
        literal(start, BigInteger).cast(BigInteger).label("id"),
        literal(0, Integer).cast(Integer).label("depth"),
    ).cte("down" if forward else "up", recursive=True)
    step = (
        select(there, reached.c.depth + 1)
        .join(reached, here == reached.c.id)
        .where(reached.c.depth < depth)
    )
    return reached.union(step)
