"""One way from rows to records: a record dataclass is filled from a row's same-named
attributes, and a query selects exactly the columns a record has.

Works for ORM objects and for ``Row`` results alike, so adding a field to a record (and the
column to the model) is the whole change; nothing lists fields twice.
"""

from __future__ import annotations

from dataclasses import fields
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy.orm import InstrumentedAttribute

if TYPE_CHECKING:
    from _typeshed import DataclassInstance
else:
    DataclassInstance = object  # only a bound for type checkers

R = TypeVar("R", bound=DataclassInstance)


@cache
def field_names(record: type[DataclassInstance]) -> tuple[str, ...]:
    return tuple(f.name for f in fields(record))


def record_from(record: type[R], row: object) -> R:
    """``record`` built from ``row``'s attributes of the same names."""
    return record(**{name: _detached(getattr(row, name)) for name in field_names(record)})


def columns_of(
    record: type[DataclassInstance], model: type[Any]
) -> list[InstrumentedAttribute[Any]]:
    """The model's columns named like the record's fields, in field order (for ``select``)."""
    return [getattr(model, name) for name in field_names(record)]


def values_of(record: DataclassInstance, *, leave_out: tuple[str, ...] = ()) -> dict[str, Any]:
    """An input record's fields as column values for an INSERT (less ``leave_out``)."""
    return {
        name: getattr(record, name) for name in field_names(type(record)) if name not in leave_out
    }


def _detached(value: object) -> object:
    # JSON columns come back as the session's dicts and lists: records get their own copies.
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list):
        return list(value)
    return value
