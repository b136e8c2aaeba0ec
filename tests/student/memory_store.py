"""A run's archive in memory, shaped as ``dicode.archive.store.TrainingStore``: enough to play
an ``ArchiveSchedule`` for a whole run offline (no SQL, no training)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dicode.archive.status import judged_status, learnability
from dicode.archive.transfer import Credit


@dataclass
class StoredLevel:
    id: int
    bundle_format: str | None = "npz"
    times_sampled: int = 0
    success_rate: float | None = None
    status: str = "D"
    score: float = 0.0
    measured_sessions: int = 0  # evaluations with a finished episode
    credit: Credit | None = None  # the target changes credited to it (None: never)


@dataclass(frozen=True)
class Snapshot:
    version: int
    level_ids: list[int]
    scores: list[float]


class MemoryStore:
    """One run's levels, their evaluations' effect and the bounded active set."""

    def __init__(self) -> None:
        self.levels: dict[int, StoredLevel] = {}
        self.active: set[int] = set()
        self.version = 0

    def add_level(self) -> int:
        level = StoredLevel(id=len(self.levels) + 1)
        self.levels[level.id] = level
        return level.id

    def list_levels(self, run_id: int, *, sampled: bool | None = None) -> list[StoredLevel]:
        return [
            level
            for level in self.levels.values()
            if sampled is None or (level.times_sampled > 0) == sampled
        ]

    def get_bundle(self, level_id: int) -> bytes | None:
        return b""

    def record_evaluation(
        self,
        level_id: int,
        *,
        student_iteration: int,
        episodes: int,
        successes: int,
        mean_return: float | None = None,
        per_goal: dict[str, Any] | None = None,
        min_sessions: int = 1,
        target_change: float | None = None,
        score: float | None = None,
    ) -> object:
        level = self.levels[level_id]
        rate = successes / episodes if episodes else None
        level.measured_sessions += episodes > 0
        level.success_rate = rate
        level.status = judged_status(rate, level.measured_sessions, min_sessions)
        level.score = learnability(rate) if score is None else score
        if target_change is not None:
            level.credit = (level.credit or Credit()).add(target_change)
        return level

    def transfer_credits(self, run_id: int) -> dict[int, Credit]:
        return {i: level.credit for i, level in self.levels.items() if level.credit is not None}

    def mark_sampled(self, level_ids: Sequence[int], step: int) -> None:
        for level_id in level_ids:
            self.levels[level_id].times_sampled += 1

    def active_set(self, run_id: int) -> Snapshot:
        ids = sorted(self.active)
        return Snapshot(self.version, ids, [self.levels[i].score for i in ids])

    def compare_and_swap_active(
        self, run_id: int, expected_version: int, *, admit: int | None, evict: int | None
    ) -> bool:
        if expected_version != self.version:
            return False
        if evict is not None:
            self.active.discard(evict)
        if admit is not None:
            self.active.add(admit)
        self.version += 1
        return True
