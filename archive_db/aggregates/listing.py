"""Listings in SQL, shared by the aggregates: the rows of one table that match, as records,
oldest first (by id), one page at a time, with the number of matches."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session

from archive_db.convert import DataclassInstance, columns_of, record_from
from archive_db.records import Page

R = TypeVar("R", bound=DataclassInstance)
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


def page_of(
    session: Session, record: type[R], model: Any, where: Conditions, *, limit: int, offset: int
) -> Page[R]:
    """One page of `rows_of` and the number of matching rows (call it in a snapshot)."""
    total = session.scalar(select(func.count(model.id)).where(*where)) or 0
    items = rows_of(session, record, model, where, limit=limit, offset=offset)
    return Page(total=total, items=tuple(items))
