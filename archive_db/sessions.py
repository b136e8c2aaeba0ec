"""Transactions over one archive engine, shared by every aggregate of the repository.

Each repository call is one transaction: ``reading()`` and ``writing()`` for single-table work,
``snapshot()`` where several tables must be read as of one moment (REPEATABLE READ on
PostgreSQL; a SQLite read transaction is a snapshot already).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, TypeVar

from sqlalchemy import Engine, Select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from archive_db.convert import DataclassInstance, record_from
from archive_db.engine import session_factories
from archive_db.errors import NotFoundError
from archive_db.models import Base

M = TypeVar("M", bound=Base)
R = TypeVar("R", bound=DataclassInstance)


class Sessions:
    """Read, write and snapshot sessions of one engine, and the backend's dialect helpers."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.postgres = engine.dialect.name == "postgresql"
        self._read, self._write = session_factories(engine)
        self._snapshot = (
            session_factories(engine.execution_options(isolation_level="REPEATABLE READ"))[0]
            if self.postgres
            else self._read
        )

    def reading(self) -> AbstractContextManager[Session]:
        return self._read.begin()

    def writing(self) -> AbstractContextManager[Session]:
        return self._write.begin()

    def snapshot(self) -> AbstractContextManager[Session]:
        return self._snapshot.begin()

    def read_records(self, record: type[R], query: Select[Any]) -> list[R]:
        """Every ORM object ``query`` selects, as a ``record``, read in one transaction."""
        with self.reading() as session:
            return [record_from(record, row) for row in session.scalars(query)]

    def insert_ignoring(
        self, model: type[Base], conflict: Sequence[str], **values: Any
    ) -> postgresql.Insert | sqlite.Insert:
        """INSERT … ON CONFLICT (``conflict``) DO NOTHING on the bare table (no ORM
        bookkeeping), spelled for this backend."""
        table: Any = model.__table__
        insert = postgresql.insert(table) if self.postgres else sqlite.insert(table)
        return insert.values(**values).on_conflict_do_nothing(index_elements=list(conflict))


def require(session: Session, model: type[M], key: int) -> M:
    """The row of ``model`` with primary key ``key``, or `NotFoundError`."""
    row = session.get(model, key)
    if row is None:
        raise NotFoundError(f"no {model.__tablename__[:-1]} {key} in the archive")
    return row
