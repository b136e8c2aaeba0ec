"""Listings in SQL, shared by the aggregates: the rows of one table that match, as records,
oldest first (by id), one page at a time, with the number of matches; and a cache of such
numbers for as long as the run's change log says nothing changed."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session

from archive_db.convert import DataclassInstance, columns_of, record_from
from archive_db.records import Page

R = TypeVar("R", bound=DataclassInstance)
T = TypeVar("T")
Conditions = Sequence[ColumnElement[bool]]


def rows_of(
    session: Session,
    record: type[R],
    model: Any,
    where: Conditions,
    *,
    limit: int | None,
    offset: int,
) -> list[R]:
    """The matching rows of ``model`` as ``record``s (only the record's columns are read)."""
    query = select(*columns_of(record, model)).where(*where).order_by(model.id)
    if offset:
        # The skipped rows are found in an index alone; only the page's own rows are read.
        ids = select(model.id).where(*where).order_by(model.id).offset(offset).limit(limit)
        query = query.where(model.id.in_(ids.scalar_subquery()))
    else:
        query = query.limit(limit)
    return [record_from(record, row) for row in session.execute(query)]


def count_of(session: Session, model: Any, where: Conditions) -> int:
    return session.scalar(select(func.count(model.id)).where(*where)) or 0


def page_of(
    session: Session,
    record: type[R],
    model: Any,
    where: Conditions,
    *,
    limit: int,
    offset: int,
    total: int | None = None,
) -> Page[R]:
    """One page of `rows_of` and the number of matching rows (call it in a snapshot; pass
    ``total`` when it is known already, e.g. from a `CountCache`)."""
    if total is None:
        total = count_of(session, model, where)
    items = rows_of(session, record, model, where, limit=limit, offset=offset)
    return Page(total=total, items=tuple(items))


class CountCache:
    """Counts remembered with the version they were taken at (a run's change-log cursor).

    Counting a 100,000-level run costs milliseconds on every page; the cursor is one index
    probe. A count is reused only while the version read in the same snapshot is the one it
    was taken at, so it is never staler than the snapshot. Sound only for what every write
    logs in the change log before commit, in commit order (levels and edges do; attempts do
    not, and their PostgreSQL ids may commit out of order: they are always counted).
    """

    def __init__(self, size: int = 1024) -> None:
        self._size = size
        self._entries: OrderedDict[Hashable, tuple[Hashable, Any]] = OrderedDict()
        self._lock = threading.Lock()  # routes run in a thread pool

    def get(self, key: Hashable, version: Hashable, count: Callable[[], T]) -> T:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry[0] == version:
                self._entries.move_to_end(key)
                value: T = entry[1]
                return value
        value = count()
        with self._lock:
            self._entries[key] = (version, value)
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
        return value
