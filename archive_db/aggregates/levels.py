"""Levels: insertion (idempotent by content hash, with their edges), reads, listings filtered
and paged in SQL, and the curriculum's per-level state (score, status, sampling marks)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import ColumnElement, func, select, update
from sqlalchemy.orm import Session

from archive_db.aggregates.feed import change_cursor, levels_changed, log_changes
from archive_db.aggregates.lineage import write_edges
from archive_db.aggregates.listing import CountCache, count_of, page_of, rows_of
from archive_db.convert import columns_of, record_from, values_of
from archive_db.errors import InvalidRecordError, NotFoundError, ParentFullError
from archive_db.models import STATUS_LETTERS, Level, LineageEdge, Run
from archive_db.records import EVERY_LEVEL, InsertedLevel, LevelFilter, LevelInfo, NewLevel, Page
from archive_db.sessions import Sessions, require

# LevelInfo has no bundle field: reads of levels never load it, however large the pools are.
_INFO_COLUMNS = columns_of(LevelInfo, Level)


class Levels:
    def __init__(self, sessions: Sessions) -> None:
        self._sessions = sessions
        self._totals = CountCache()

    # ------------------------------------------------------------------ writes
    def insert(self, run_id: int, level: NewLevel) -> InsertedLevel:
        """Insert a level (and its lineage edges) unless the run already holds its content hash.

        Returns the id of the new level, or of the existing one with ``created=False``; edges
        are written only for a new level, so the lineage stays acyclic (parents are older).
        """
        with self._sessions.writing() as session:
            return self.insert_in(session, run_id, level)

    def insert_in(
        self, session: Session, run_id: int, level: NewLevel, *, child_limit: int | None = None
    ) -> InsertedLevel:
        """`insert` inside the caller's transaction (an accepted attempt and its level).

        With ``child_limit`` (a child drawn under the strict parent rule) a new level whose
        parent already has that many children is refused with `ParentFullError`.
        """
        if session.get(Run, run_id) is None:
            raise NotFoundError(f"no run {run_id} in the archive")
        if not level.content_hash:
            raise InvalidRecordError("a level needs a non-empty content_hash")
        parents = tuple(dict.fromkeys(level.parent_ids))
        if parents:
            # Parent rows locked (PostgreSQL; SQLite's write transactions are serial already)
            # in id order, before the insert: concurrent children of one parent queue here, so
            # each counts the children committed before it, and no two wait on each other.
            found = set(
                session.scalars(
                    select(Level.id)
                    .where(Level.id.in_(parents), Level.run_id == run_id)
                    .order_by(Level.id)
                    .with_for_update()
                )
            )
            missing = [p for p in parents if p not in found]
            if missing:
                raise InvalidRecordError(f"parent levels {missing} are not in run {run_id}")
        stmt = self._sessions.insert_ignoring(
            Level,
            ["run_id", "content_hash"],
            run_id=run_id,
            **values_of(level, leave_out=("parent_ids",)),
        ).returning(Level.id)
        new_id = session.execute(stmt).scalar_one_or_none()
        if new_id is None:
            existing = session.scalars(
                select(Level.id).where(
                    Level.run_id == run_id, Level.content_hash == level.content_hash
                )
            ).one()
            return InsertedLevel(id=existing, created=False)
        if child_limit is not None:
            _check_room(session, parents, child_limit)
        write_edges(session, run_id, new_id, parents)
        log_changes(
            session, run_id, [*levels_changed([new_id]), *(("edge", new_id, p) for p in parents)]
        )
        return InsertedLevel(id=new_id, created=True)

    def update(
        self,
        level_id: int,
        *,
        score: float | None = None,
        status: str | None = None,
        success_rate: float | None = None,
    ) -> None:
        """Overwrite a level's score, status letter and/or success rate."""
        if status is not None and status not in STATUS_LETTERS:
            raise InvalidRecordError(f"status must be one of {STATUS_LETTERS}, got {status!r}")
        with self._sessions.writing() as session:
            level = require(session, Level, level_id)
            if score is not None:
                level.score = score
            if status is not None:
                level.status = status
            if success_rate is not None:
                level.success_rate = success_rate
            session.flush()
            log_changes(session, level.run_id, levels_changed([level_id]))

    def mark_sampled(self, level_ids: Sequence[int], step: int) -> None:
        """Note that the student drew these levels at replay step ``step``."""
        ids = sorted(set(level_ids))
        if not ids:
            return
        with self._sessions.writing() as session:
            run_ids = set(session.scalars(select(Level.run_id).where(Level.id.in_(ids))))
            if len(run_ids) != 1:
                raise InvalidRecordError(f"levels {ids} must exist and share one run")
            result = session.execute(
                update(Level)
                .where(Level.id.in_(ids))
                .values(last_sampled=step, times_sampled=Level.times_sampled + 1)
            )
            if result.rowcount != len(ids):  # type: ignore[attr-defined]
                raise InvalidRecordError(f"some of levels {ids} do not exist")
            log_changes(session, run_ids.pop(), levels_changed(ids))

    # ------------------------------------------------------------------ reads
    def get(self, level_id: int) -> LevelInfo:
        with self._sessions.reading() as session:
            row = session.execute(select(*_INFO_COLUMNS).where(Level.id == level_id)).first()
            if row is None:
                raise NotFoundError(f"no level {level_id} in the archive")
            return record_from(LevelInfo, row)

    def bundle(self, level_id: int) -> bytes | None:
        with self._sessions.reading() as session:
            found = session.execute(select(Level.bundle).where(Level.id == level_id)).first()
            if found is None:
                raise NotFoundError(f"no level {level_id} in the archive")
            return found.bundle

    def find_by_hash(self, run_id: int, digest: str) -> int | None:
        with self._sessions.reading() as session:
            return session.scalars(
                select(Level.id).where(Level.run_id == run_id, Level.content_hash == digest)
            ).one_or_none()

    def listing(
        self,
        run_id: int,
        where: LevelFilter = EVERY_LEVEL,
        *,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[LevelInfo]:
        """The run's levels that match, by id."""
        with self._sessions.reading() as session:
            return rows_of(
                session, LevelInfo, Level, _conditions(run_id, where), limit=limit, offset=offset
            )

    def page(
        self, run_id: int, where: LevelFilter = EVERY_LEVEL, *, limit: int, offset: int = 0
    ) -> Page[LevelInfo]:
        """One page of `listing` and the number of matching levels, read as one snapshot."""
        conditions = _conditions(run_id, where)
        with self._sessions.snapshot() as session:
            total = self._totals.get(
                (run_id, where),
                change_cursor(session, run_id),
                lambda: count_of(session, Level, conditions),
            )
            return page_of(
                session, LevelInfo, Level, conditions, limit=limit, offset=offset, total=total
            )


def _check_room(session: Session, parents: Sequence[int], limit: int) -> None:
    """`ParentFullError` when a parent has ``limit`` children already (the caller rolls back)."""
    counts = session.execute(
        select(LineageEdge.parent_id, func.count())
        .where(LineageEdge.parent_id.in_(parents))
        .group_by(LineageEdge.parent_id)
    )
    full = {parent: n for parent, n in counts if n >= limit}
    if full:
        raise ParentFullError(
            f"parent levels {full} (id: children) have {limit} or more children already"
        )


def _conditions(run_id: int, where: LevelFilter) -> list[ColumnElement[bool]]:
    conditions = [Level.run_id == run_id]
    if where.status is not None:
        conditions.append(Level.status == where.status)
    if where.active is not None:
        conditions.append(Level.active == where.active)
    if where.sampled is not None:
        conditions.append(Level.times_sampled > 0 if where.sampled else Level.times_sampled == 0)
    if where.teacher is not None:
        conditions.append(Level.teacher == where.teacher)
    if where.skill is not None:
        conditions.append(Level.skill == where.skill)
    return conditions
