"""Checkpoints: where the student saved its state, and at which iteration."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from archive_db.convert import record_from
from archive_db.models import Checkpoint, Run
from archive_db.records import CheckpointInfo
from archive_db.sessions import Sessions, require


class Checkpoints:
    def __init__(self, sessions: Sessions) -> None:
        self._sessions = sessions

    def add(
        self, run_id: int, path: str, iteration: int, meta: dict[str, Any] | None = None
    ) -> CheckpointInfo:
        with self._sessions.writing() as session:
            require(session, Run, run_id)
            row = Checkpoint(run_id=run_id, path=path, iteration=iteration, meta=meta or {})
            session.add(row)
            session.flush()
            return record_from(CheckpointInfo, row)

    def latest(self, run_id: int) -> CheckpointInfo | None:
        """The newest by iteration (then by id)."""
        with self._sessions.reading() as session:
            row = session.scalars(
                select(Checkpoint)
                .where(Checkpoint.run_id == run_id)
                .order_by(Checkpoint.iteration.desc(), Checkpoint.id.desc())
                .limit(1)
            ).one_or_none()
            return None if row is None else record_from(CheckpointInfo, row)

    def all(self, run_id: int) -> list[CheckpointInfo]:
        return self._sessions.read_records(
            CheckpointInfo,
            select(Checkpoint)
            .where(Checkpoint.run_id == run_id)
            .order_by(Checkpoint.iteration, Checkpoint.id),
        )
