"""The lineage graph as an in-memory view of the archive, kept up to date incrementally.

The database is the source of truth; this view is rebuilt from a snapshot and then fed only
what changed (`GraphChanges` from the repository). Besides the networkx graph it keeps the
per-level numbers the samplers need as NumPy columns, so selection over 100k levels is a few
vectorised operations instead of a Python loop over nodes.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Protocol

import networkx as nx
import numpy as np
import numpy.typing as npt

from dicode.archive.records import Edge, GraphChanges, LevelNode
from dicode.archive.status import STATUS_ORDER

# Status letters whose children block a strict parent ("no child with status A/B/C").
_GOOD_STATUS_CODES = frozenset({0, 1, 2})
_INITIAL_CAPACITY = 1024


class ChangeSource(Protocol):
    """Where the view reads from: `archive_db.ArchiveRepository` fits."""

    def changes_since(self, run_id: int, cursor: int) -> GraphChanges: ...


@dataclass(frozen=True)
class LevelColumns:
    """Per-level arrays aligned by row (row i describes level ``ids[i]``); read-only views."""

    ids: npt.NDArray[np.int64]
    status: npt.NDArray[np.int8]  # 0..3 for A..D
    success_rate: npt.NDArray[np.float64]  # NaN when unmeasured
    score: npt.NDArray[np.float64]
    active: npt.NDArray[np.bool_]
    last_sampled: npt.NDArray[np.int64]  # -1 when never sampled
    n_children: npt.NDArray[np.int32]
    n_good_children: npt.NDArray[np.int32]  # children with status A, B or C


class LineageView:
    """networkx DiGraph (parent → child, node attributes = `LevelNode` fields) plus columns."""

    def __init__(self) -> None:
        self.graph: nx.DiGraph = nx.DiGraph()
        self.cursor = 0
        self._row: dict[int, int] = {}
        self._size = 0
        self._ids = np.zeros(_INITIAL_CAPACITY, dtype=np.int64)
        self._status = np.full(_INITIAL_CAPACITY, 3, dtype=np.int8)
        self._success = np.full(_INITIAL_CAPACITY, np.nan, dtype=np.float64)
        self._score = np.zeros(_INITIAL_CAPACITY, dtype=np.float64)
        self._active = np.zeros(_INITIAL_CAPACITY, dtype=np.bool_)
        self._last_sampled = np.full(_INITIAL_CAPACITY, -1, dtype=np.int64)
        self._children = np.zeros(_INITIAL_CAPACITY, dtype=np.int32)
        self._good_children = np.zeros(_INITIAL_CAPACITY, dtype=np.int32)

    @classmethod
    def load(cls, source: ChangeSource, run_id: int) -> LineageView:
        """A view of one run built from a full snapshot."""
        view = cls()
        view.refresh(source, run_id)
        return view

    def refresh(self, source: ChangeSource, run_id: int) -> int:
        """Pull and apply what changed since the last refresh; returns how many rows came."""
        changes = source.changes_since(run_id, self.cursor)
        self.apply(changes)
        return len(changes.levels) + len(changes.edges)

    def apply(self, changes: GraphChanges) -> None:
        """Apply levels (current state) then edges; applying the same changes twice is harmless."""
        for node in changes.levels:
            self._upsert_level(node)
        for edge in changes.edges:
            self._add_edge(edge)
        self.cursor = max(self.cursor, changes.cursor)

    def __len__(self) -> int:
        return self._size

    def columns(self) -> LevelColumns:
        n = self._size
        return LevelColumns(
            ids=self._ids[:n],
            status=self._status[:n],
            success_rate=self._success[:n],
            score=self._score[:n],
            active=self._active[:n],
            last_sampled=self._last_sampled[:n],
            n_children=self._children[:n],
            n_good_children=self._good_children[:n],
        )

    def node(self, level_id: int) -> LevelNode:
        return LevelNode(**self.graph.nodes[level_id])

    # ------------------------------------------------------------------ internals
    def _ensure_row(self, level_id: int) -> int:
        row = self._row.get(level_id)
        if row is not None:
            return row
        if self._size == self._ids.shape[0]:
            self._grow()
        row = self._size
        self._size += 1
        self._row[level_id] = row
        self._ids[row] = level_id
        return row

    def _grow(self) -> None:
        def doubled(a: np.ndarray, fill: float | int | bool) -> np.ndarray:
            bigger = np.full(a.shape[0] * 2, fill, dtype=a.dtype)
            bigger[: a.shape[0]] = a
            return bigger

        self._ids = doubled(self._ids, 0)
        self._status = doubled(self._status, 3)
        self._success = doubled(self._success, np.nan)
        self._score = doubled(self._score, 0.0)
        self._active = doubled(self._active, False)
        self._last_sampled = doubled(self._last_sampled, -1)
        self._children = doubled(self._children, 0)
        self._good_children = doubled(self._good_children, 0)

    def _upsert_level(self, node: LevelNode) -> None:
        row = self._ensure_row(node.id)
        was_good = int(self._status[row]) in _GOOD_STATUS_CODES
        code = STATUS_ORDER.index(node.status)
        is_good = code in _GOOD_STATUS_CODES
        self._status[row] = code
        self._success[row] = np.nan if node.success_rate is None else node.success_rate
        self._score[row] = node.score
        self._active[row] = node.active
        self._last_sampled[row] = -1 if node.last_sampled is None else node.last_sampled
        self.graph.add_node(node.id, **asdict(node))
        if was_good != is_good and node.id in self.graph:
            delta = 1 if is_good else -1
            for parent in self.graph.predecessors(node.id):
                self._good_children[self._row[parent]] += delta

    def _add_edge(self, edge: Edge) -> None:
        if self.graph.has_edge(edge.parent, edge.child):
            return
        parent_row = self._ensure_row(edge.parent)
        child_row = self._ensure_row(edge.child)
        for level_id in (edge.parent, edge.child):
            if level_id not in self.graph:  # only if the change feed were out of order
                self.graph.add_node(level_id)
        self.graph.add_edge(edge.parent, edge.child)
        self._children[parent_row] += 1
        if int(self._status[child_row]) in _GOOD_STATUS_CODES:
            self._good_children[parent_row] += 1
