"""What the library needs of an archive, as small protocols (no SQL here).

``archive_db.ArchiveRepository`` implements them; the library's algorithms (the student's
archive schedule, the active set, the lineage view) are typed against these, so they run
against any store with the same shape.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from dicode.archive.active_set import ActiveSetStore
from dicode.archive.transfer import Credit


class LevelSummary(Protocol):
    """The fields of a stored level the curriculum reads."""

    @property
    def id(self) -> int: ...
    @property
    def bundle_format(self) -> str | None: ...
    @property
    def times_sampled(self) -> int: ...
    @property
    def success_rate(self) -> float | None: ...


class TrainingStore(ActiveSetStore, Protocol):
    """A run's levels for the student, and where its measurements go."""

    def list_levels(
        self, run_id: int, *, sampled: bool | None = None
    ) -> Sequence[LevelSummary]: ...

    def get_bundle(self, level_id: int) -> bytes | None: ...

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
        """Store a measurement: the level's success rate, letter and score (``score``, else
        its learnability) follow it; ``target_change`` is the target's Δ credited to it."""
        ...

    def transfer_credits(self, run_id: int) -> Mapping[int, Credit]:
        """The target changes credited to each of the run's levels, summed over its
        evaluations (levels never credited are absent)."""
        ...

    def mark_sampled(self, level_ids: Sequence[int], step: int) -> None: ...
