"""Plain rows that the archive store hands to the in-memory algorithms (no SQL here)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LevelNode:
    """What the lineage view and the samplers need to know about one level."""

    id: int
    status: str
    success_rate: float | None
    score: float
    active: bool
    last_sampled: int | None
    times_sampled: int
    teacher: str
    created_iteration: int | None


@dataclass(frozen=True, slots=True)
class Edge:
    """Lineage: ``child`` was generated from ``parent``."""

    parent: int
    child: int


@dataclass(frozen=True, slots=True)
class GraphChanges:
    """Levels (current state) and edges written after a cursor, and the cursor to ask next.

    A full snapshot is the same thing taken from cursor 0.
    """

    cursor: int
    levels: tuple[LevelNode, ...]
    edges: tuple[Edge, ...]
