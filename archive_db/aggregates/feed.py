"""The change log and the graph-view feed built on it (``changes`` table).

Every write that changes a level or adds an edge appends change rows in the same transaction;
`ChangeFeed.since` hands a view everything after the cursor it last saw.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, cast

from sqlalchemy import Table, and_, func, insert, select
from sqlalchemy.orm import Session

from archive_db.convert import columns_of, record_from
from archive_db.models import Change, Level, LineageEdge
from archive_db.sessions import Sessions
from dicode.archive.records import Edge, GraphChanges, LevelNode

# Key of the PostgreSQL advisory lock that makes change-log ids follow commit order.
_CHANGE_LOG_LOCK = 0x44_69_43_6F_64_65  # "DiCode"

# The bare table: change rows need no ORM bookkeeping.
_CHANGES = cast(Table, Change.__table__)

# (entity, id, other): a level's id, or an edge's child id with its parent id as `other`.
ChangeEntry = tuple[Literal["level", "edge"], int, int | None]


def log_changes(session: Session, run_id: int, entries: Iterable[ChangeEntry]) -> None:
    """Append change-log rows to the current transaction."""
    rows = [
        {"run_id": run_id, "entity": entity, "entity_id": entity_id, "other_id": other}
        for entity, entity_id, other in entries
    ]
    if not rows:
        return
    if session.get_bind().dialect.name == "postgresql":
        # Taken before the ids are drawn and held to commit, so ids become visible in order
        # (SQLite has one writer at a time already).
        session.execute(select(func.pg_advisory_xact_lock(_CHANGE_LOG_LOCK)))
    session.execute(insert(_CHANGES), rows)


def change_cursor(session: Session, run_id: int | None) -> int:
    """The newest change-log id of a run (of the whole archive when None); 0 before any.
    Any write to a level or an edge moves it (one index probe)."""
    newest = select(func.coalesce(func.max(Change.id), 0))
    if run_id is not None:
        newest = newest.where(Change.run_id == run_id)
    return session.scalars(newest).one()


def levels_changed(level_ids: Iterable[int]) -> list[ChangeEntry]:
    return [("level", level_id, None) for level_id in level_ids]


class ChangeFeed:
    """Snapshots and increments of a run's lineage graph for `dicode.archive.graph`."""

    def __init__(self, sessions: Sessions) -> None:
        self._sessions = sessions

    def snapshot(self, run_id: int) -> GraphChanges:
        """Every level and edge of a run, with the cursor for `since`."""
        return self.since(run_id, 0)

    def since(self, run_id: int, cursor: int) -> GraphChanges:
        """Levels (current state) and edges changed after ``cursor``, read as one snapshot."""
        edge = select(LineageEdge.parent_id, LineageEdge.child_id)
        with self._sessions.snapshot() as session:
            new_cursor = change_cursor(session, run_id)
            if cursor == 0:
                level_filter = Level.run_id == run_id
                edges = edge.where(LineageEdge.run_id == run_id).order_by(
                    LineageEdge.child_id, LineageEdge.parent_id
                )
            else:
                window = and_(Change.run_id == run_id, Change.id > cursor, Change.id <= new_cursor)
                changed = select(Change.entity_id).where(window, Change.entity == "level")
                level_filter = Level.id.in_(changed)
                edges = (
                    edge.join(
                        Change,
                        and_(
                            Change.entity_id == LineageEdge.child_id,
                            Change.other_id == LineageEdge.parent_id,
                        ),
                    )
                    .where(window, Change.entity == "edge")
                    .order_by(Change.id)
                )
            nodes = session.execute(
                select(*columns_of(LevelNode, Level)).where(level_filter).order_by(Level.id)
            )
            return GraphChanges(
                cursor=new_cursor,
                levels=tuple(record_from(LevelNode, row) for row in nodes),
                edges=tuple(Edge(parent=p, child=c) for p, c in session.execute(edges)),
            )
