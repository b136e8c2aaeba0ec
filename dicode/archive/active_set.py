"""The bounded active set: the levels the student replays (capacity 100 in DiCode).

A newcomer enters if there is room or if its score beats the worst member, which it then
replaces. Several processes may offer levels at once, so the decision is made on a versioned
snapshot and committed with a compare-and-swap: if another writer changed the set in between,
the swap fails and the decision is re-made on a fresh snapshot.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from dicode.archive.config import ArchiveConfig
from dicode.archive.status import learnability

DEFAULT_CONFIG = ArchiveConfig()


class ActiveSnapshot(Protocol):
    @property
    def version(self) -> int: ...
    @property
    def level_ids(self) -> Sequence[int]: ...
    @property
    def scores(self) -> Sequence[float]: ...


class ActiveSetStore(Protocol):
    """Where the active set lives: `archive_db.ArchiveRepository` fits."""

    def active_set(self, run_id: int) -> ActiveSnapshot: ...

    def compare_and_swap_active(
        self, run_id: int, expected_version: int, *, admit: int | None, evict: int | None
    ) -> bool: ...


@dataclass(frozen=True)
class Admission:
    """Outcome of offering a level: did it enter, and whom did it replace."""

    admitted: bool
    evicted: int | None = None


class AdmissionContention(RuntimeError):
    """Every compare-and-swap lost to a concurrent writer (raise `admission_retries`)."""


def plan_admission(
    member_ids: Sequence[int],
    member_scores: Sequence[float],
    newcomer_id: int,
    newcomer_score: float,
    capacity: int,
) -> Admission:
    """Decide on a snapshot: enter if there is room, or replace the worst if strictly better.

    The worst member is the lowest score; among equal scores the oldest (lowest id) goes.
    """
    if newcomer_id in member_ids:
        return Admission(admitted=False)
    if len(member_ids) < capacity:
        return Admission(admitted=True)
    worst_score, worst_id = min(zip(member_scores, member_ids, strict=True))
    if newcomer_score > worst_score:
        return Admission(admitted=True, evicted=worst_id)
    return Admission(admitted=False)


def offer(
    store: ActiveSetStore,
    run_id: int,
    level_id: int,
    score: float,
    config: ArchiveConfig = DEFAULT_CONFIG,
) -> Admission:
    """Offer a level to the run's active set (capacity ``config.active_capacity``); safe
    against concurrent offers (up to ``config.admission_retries`` compare-and-swap tries)."""
    capacity, retries = config.active_capacity, config.admission_retries
    for _ in range(retries):
        snapshot = store.active_set(run_id)
        decision = plan_admission(snapshot.level_ids, snapshot.scores, level_id, score, capacity)
        if not decision.admitted:
            return decision
        if store.compare_and_swap_active(
            run_id, snapshot.version, admit=level_id, evict=decision.evicted
        ):
            return decision
    raise AdmissionContention(
        f"level {level_id} could not be offered to run {run_id}'s active set after {retries} tries"
    )


class Measured(Protocol):
    """A level's measurement in one student session."""

    @property
    def episodes(self) -> int: ...
    @property
    def success_rate(self) -> float | None: ...


def admit_measured(
    store: ActiveSetStore,
    run_id: int,
    outcomes: Mapping[int, Measured],
    config: ArchiveConfig = DEFAULT_CONFIG,
    scores: Mapping[int, float] | None = None,
) -> list[int]:
    """DiCode's admission rule: offer every level measured in a session (at least one finished
    episode) with its score — ``scores[level]`` when given (the priority the caller ranks by,
    e.g. `dicode.archive.transfer.transfer_priority`), else its learnability p(1−p); returns the
    admitted ids. Members are ranked by their stored scores, so a caller that gives scores
    stores the same ones with the levels' evaluations first. Negative ids (the target game) and
    unmeasured levels have nothing to rank them by and are not offered."""
    admitted = []
    for level, outcome in outcomes.items():
        if level < 0 or not outcome.episodes:
            continue
        score = learnability(outcome.success_rate) if scores is None else scores[level]
        if offer(store, run_id, level, score, config).admitted:
            admitted.append(level)
    return admitted
