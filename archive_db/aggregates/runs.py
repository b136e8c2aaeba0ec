"""Runs: one row per curriculum run (name, domain, config, seed, lifecycle status)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from archive_db.convert import record_from
from archive_db.errors import InvalidRecordError, NotFoundError
from archive_db.models import Run
from archive_db.records import RunInfo
from archive_db.sessions import Sessions, require


class Runs:
    def __init__(self, sessions: Sessions) -> None:
        self._sessions = sessions

    def create(
        self, name: str, *, domain: str, seed: int, config: dict[str, Any] | None = None
    ) -> RunInfo:
        """Create a run; `InvalidRecordError` if the name is taken."""
        try:
            with self._sessions.writing() as session:
                run = Run(name=name, domain=domain, seed=seed, config=config or {})
                session.add(run)
                session.flush()
                return record_from(RunInfo, run)
        except IntegrityError as error:
            raise InvalidRecordError(f"a run named {name!r} already exists") from error

    def open(
        self, name: str, *, domain: str, seed: int, config: dict[str, Any] | None = None
    ) -> RunInfo:
        """The run called ``name``, created if missing (what a restarting service calls)."""
        existing = self.find(name)
        if existing is not None:
            return existing
        try:
            return self.create(name, domain=domain, seed=seed, config=config)
        except InvalidRecordError:  # another process created it meanwhile
            return self.get(name)

    def find(self, name_or_id: str | int) -> RunInfo | None:
        column = Run.id if isinstance(name_or_id, int) else Run.name
        with self._sessions.reading() as session:
            run = session.scalars(select(Run).where(column == name_or_id)).one_or_none()
            return None if run is None else record_from(RunInfo, run)

    def get(self, name_or_id: str | int) -> RunInfo:
        run = self.find(name_or_id)
        if run is None:
            raise NotFoundError(f"no run {name_or_id!r} in the archive")
        return run

    def all(self) -> list[RunInfo]:
        return self._sessions.read_records(RunInfo, select(Run).order_by(Run.id))

    def set_status(self, run_id: int, status: str) -> None:
        with self._sessions.writing() as session:
            require(session, Run, run_id).status = status
