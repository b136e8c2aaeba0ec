"""Generation attempts: every try of a teacher, accepted (with its level) or rejected (with
the failing stage and error), listed with filters and pages in SQL."""

from __future__ import annotations

from sqlalchemy import ColumnElement, select
from sqlalchemy.orm import Session

from archive_db.aggregates.levels import Levels
from archive_db.aggregates.listing import page_of, rows_of
from archive_db.convert import record_from, values_of
from archive_db.errors import InvalidRecordError, NotFoundError
from archive_db.models import VERDICTS, GenerationAttempt, Run
from archive_db.records import (
    EVERY_ATTEMPT,
    AttemptFilter,
    AttemptInfo,
    NewAttempt,
    NewLevel,
    Page,
    RecordedAttempt,
)
from archive_db.sessions import Sessions, require
from dicode.levels.verdict import bounded_text


class Attempts:
    def __init__(self, sessions: Sessions, levels: Levels) -> None:
        self._sessions = sessions
        self._levels = levels

    def record(
        self,
        run_id: int,
        attempt: NewAttempt,
        level: NewLevel | None = None,
        *,
        child_limit: int | None = None,
    ) -> RecordedAttempt:
        """Store an attempt; an accepted one inserts its level in the same transaction (see
        `Levels.insert_in` for ``child_limit``)."""
        _check(attempt, level)
        with self._sessions.writing() as session:
            if session.get(Run, run_id) is None:
                raise NotFoundError(f"no run {run_id} in the archive")
            return self._add(session, run_id, attempt, level, child_limit)

    def record_once(
        self, run_id: int, attempt: NewAttempt, level: NewLevel | None = None
    ) -> RecordedAttempt | None:
        """`record`, unless the run holds an attempt of the same teacher and code already
        (then None): several generators starting together seed a run once."""
        _check(attempt, level)
        with self._sessions.writing() as session:
            # The run row locked: concurrent seeders check and insert one after another. NO KEY
            # UPDATE (key_share) still lets other writers' foreign-key checks on the run pass:
            # FOR UPDATE blocked them, and a student holding the change-log lock while waiting
            # for that check deadlocked with a seeding generator waiting for the change-log lock.
            run = session.scalars(
                select(Run).where(Run.id == run_id).with_for_update(key_share=True)
            ).first()
            if run is None:
                raise NotFoundError(f"no run {run_id} in the archive")
            done = session.scalars(
                select(GenerationAttempt.id).where(
                    GenerationAttempt.run_id == run_id,
                    GenerationAttempt.teacher == attempt.teacher,
                    GenerationAttempt.code == attempt.code,
                )
            ).first()
            return None if done is not None else self._add(session, run_id, attempt, level, None)

    def _add(
        self,
        session: Session,
        run_id: int,
        attempt: NewAttempt,
        level: NewLevel | None,
        child_limit: int | None,
    ) -> RecordedAttempt:
        inserted = (
            None
            if level is None
            else self._levels.insert_in(session, run_id, level, child_limit=child_limit)
        )
        values = values_of(attempt) | {
            "prompts": list(attempt.prompts),
            "responses": list(attempt.responses),
            # Error texts are data: stored bounded, like everywhere they are shown.
            "error": None if attempt.error is None else bounded_text(attempt.error),
        }
        row = GenerationAttempt(
            run_id=run_id, level_id=None if inserted is None else inserted.id, **values
        )
        session.add(row)
        session.flush()
        return RecordedAttempt(attempt_id=row.id, level=inserted)

    def get(self, attempt_id: int) -> AttemptInfo:
        with self._sessions.reading() as session:
            return record_from(AttemptInfo, require(session, GenerationAttempt, attempt_id))

    def listing(
        self,
        run_id: int,
        where: AttemptFilter = EVERY_ATTEMPT,
        *,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[AttemptInfo]:
        """The run's attempts that match, oldest first."""
        conditions = _conditions(run_id, where)
        with self._sessions.reading() as session:
            return rows_of(
                session, AttemptInfo, GenerationAttempt, conditions, limit=limit, offset=offset
            )

    def page(
        self, run_id: int, where: AttemptFilter = EVERY_ATTEMPT, *, limit: int, offset: int = 0
    ) -> Page[AttemptInfo]:
        """One page of `listing` and the number of matching attempts, read as one snapshot."""
        conditions = _conditions(run_id, where)
        with self._sessions.snapshot() as session:
            return page_of(
                session, AttemptInfo, GenerationAttempt, conditions, limit=limit, offset=offset
            )


def _check(attempt: NewAttempt, level: NewLevel | None) -> None:
    if attempt.verdict not in VERDICTS:
        raise InvalidRecordError(f"verdict must be one of {VERDICTS}, got {attempt.verdict!r}")
    if attempt.verdict == "accepted" and level is None:
        raise InvalidRecordError("an accepted attempt must come with its level")
    if attempt.verdict == "rejected" and level is not None:
        raise InvalidRecordError("a rejected attempt cannot carry a level")
    if attempt.verdict == "rejected" and not (attempt.failing_stage and attempt.error):
        raise InvalidRecordError("a rejected attempt needs failing_stage and error")


def _conditions(run_id: int, where: AttemptFilter) -> list[ColumnElement[bool]]:
    conditions = [GenerationAttempt.run_id == run_id]
    for column, value in (
        (GenerationAttempt.verdict, where.verdict),
        (GenerationAttempt.failing_stage, where.failing_stage),
        (GenerationAttempt.teacher, where.teacher),
    ):
        if value is not None:
            conditions.append(column == value)
    if where.parent_id is not None:
        conditions.append(GenerationAttempt.parent_id == where.parent_id)
    if where.level_id is not None:
        conditions.append(GenerationAttempt.level_id == where.level_id)
    return conditions
