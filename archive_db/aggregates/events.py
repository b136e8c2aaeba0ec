"""Events: what happened in a service (kind + JSON payload), for inspection and control."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from archive_db.convert import record_from
from archive_db.models import Event
from archive_db.records import EventInfo
from archive_db.sessions import Sessions


class Events:
    def __init__(self, sessions: Sessions) -> None:
        self._sessions = sessions

    def add(
        self, kind: str, payload: dict[str, Any] | None = None, *, run_id: int | None = None
    ) -> EventInfo:
        with self._sessions.writing() as session:
            row = Event(run_id=run_id, kind=kind, payload=payload or {})
            session.add(row)
            session.flush()
            return record_from(EventInfo, row)

    def listing(
        self,
        *,
        run_id: int | None = None,
        kind: str | None = None,
        after_id: int = 0,
        limit: int | None = None,
    ) -> list[EventInfo]:
        """Events after ``after_id``, oldest first, optionally of one run and kind."""
        query = select(Event).where(Event.id > after_id)
        if run_id is not None:
            query = query.where(Event.run_id == run_id)
        if kind is not None:
            query = query.where(Event.kind == kind)
        return self._sessions.read_records(EventInfo, query.order_by(Event.id).limit(limit))
