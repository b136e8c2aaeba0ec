"""Counts over the archive or one run (levels, verdicts, edges, active set, status letters)."""

from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy import Select, func, select

from archive_db.aggregates.feed import change_cursor
from archive_db.aggregates.listing import CountCache
from archive_db.models import STATUS_LETTERS, GenerationAttempt, Level, LineageEdge
from archive_db.records import ArchiveStats
from archive_db.sessions import Sessions

Q = TypeVar("Q", bound=Select)


class Statistics:
    def __init__(self, sessions: Sessions) -> None:
        self._sessions = sessions
        # Level and edge counts, kept while the change log is still; attempts always counted.
        self._lineage_counts = CountCache(size=64)

    def counts(self, run_id: int | None = None) -> ArchiveStats:
        """Counts for one run, or for the whole archive when ``run_id`` is None."""

        def scoped(query: Q, column: Any) -> Q:
            return query if run_id is None else query.where(column == run_id)

        with self._sessions.snapshot() as session:

            def lineage() -> tuple[int, int, int, dict[str, int]]:
                levels = session.scalar(scoped(select(func.count(Level.id)), Level.run_id))
                edges = session.scalar(
                    scoped(select(func.count()).select_from(LineageEdge), LineageEdge.run_id)
                )
                active = session.scalar(
                    scoped(
                        select(func.count(Level.id)).where(Level.active.is_(True)), Level.run_id
                    )
                )
                by_status = dict.fromkeys(STATUS_LETTERS, 0)
                by_status.update(
                    session.execute(
                        scoped(
                            select(Level.status, func.count()).group_by(Level.status),
                            Level.run_id,
                        )
                    ).all()
                )
                return levels or 0, edges or 0, active or 0, by_status

            levels, edges, active, by_status = self._lineage_counts.get(
                run_id, change_cursor(session, run_id), lineage
            )
            verdicts: dict[str, int] = dict(
                session.execute(
                    scoped(
                        select(GenerationAttempt.verdict, func.count()).group_by(
                            GenerationAttempt.verdict
                        ),
                        GenerationAttempt.run_id,
                    )
                ).all()
            )
            return ArchiveStats(
                levels=levels,
                accepted=verdicts.get("accepted", 0),
                rejected=verdicts.get("rejected", 0),
                edges=edges,
                active=active,
                by_status=dict(by_status),
            )
