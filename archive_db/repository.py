"""`ArchiveRepository`: the one facade over the archive's aggregates.

The SQL lives in `archive_db.aggregates` (runs, levels, lineage, attempts, evaluations, the
active set, checkpoints, events, the change feed, statistics); this class keeps the methods
every service calls and hands each to its aggregate. Each method is one transaction. Writes are
idempotent where the domain allows it (levels by (run, content hash), edges by (parent,
child)), so a service that retries after a crash or a lost connection never duplicates anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine

from archive_db.aggregates.active_set import ActiveSets
from archive_db.aggregates.attempts import Attempts
from archive_db.aggregates.checkpoints import Checkpoints
from archive_db.aggregates.evaluations import Evaluations
from archive_db.aggregates.events import Events
from archive_db.aggregates.feed import ChangeFeed
from archive_db.aggregates.levels import Levels
from archive_db.aggregates.lineage import Lineage
from archive_db.aggregates.runs import Runs
from archive_db.aggregates.stats import Statistics
from archive_db.aggregates.timeline import Timelines
from archive_db.engine import create_archive_engine
from archive_db.migrate import upgrade_engine
from archive_db.records import (
    ActiveSet,
    ArchiveStats,
    AttemptFilter,
    AttemptInfo,
    CheckpointInfo,
    EvaluationInfo,
    EventInfo,
    InsertedLevel,
    LevelFilter,
    LevelInfo,
    NewAttempt,
    NewLevel,
    Page,
    RecordedAttempt,
    RunInfo,
    RunTimeline,
    Subgraph,
)
from archive_db.sessions import Sessions
from dicode.archive.records import GraphChanges


class ArchiveRepository:
    """Typed access to one archive database (SQLite or PostgreSQL).

    The aggregates are public attributes too (``repo.levels``, ``repo.sessions``, …) for code
    that composes them inside one transaction.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.sessions = Sessions(engine)
        self.runs = Runs(self.sessions)
        self.levels = Levels(self.sessions)
        self.lineage = Lineage(self.sessions)
        self.attempts = Attempts(self.sessions, self.levels)
        self.evaluations = Evaluations(self.sessions)
        self.active = ActiveSets(self.sessions)
        self.checkpoints = Checkpoints(self.sessions)
        self.events = Events(self.sessions)
        self.feed = ChangeFeed(self.sessions)
        self.statistics = Statistics(self.sessions)
        self.timelines = Timelines(self.sessions)

    @classmethod
    def open(cls, url: str, *, migrate: bool = True) -> ArchiveRepository:
        """Connect to the archive at ``url``, migrating it to the latest schema first."""
        engine = create_archive_engine(url)
        if migrate:
            upgrade_engine(engine)
        return cls(engine)

    def close(self) -> None:
        self.engine.dispose()

    # ------------------------------------------------------------------ runs
    def create_run(
        self, name: str, *, domain: str, seed: int, config: dict[str, Any] | None = None
    ) -> RunInfo:
        """Create a run; raises `InvalidRecordError` if the name is taken."""
        return self.runs.create(name, domain=domain, seed=seed, config=config)

    def open_run(
        self, name: str, *, domain: str, seed: int, config: dict[str, Any] | None = None
    ) -> RunInfo:
        """The run called ``name``, created if missing (what a restarting service calls)."""
        return self.runs.open(name, domain=domain, seed=seed, config=config)

    def find_run(self, name_or_id: str | int) -> RunInfo | None:
        return self.runs.find(name_or_id)

    def get_run(self, name_or_id: str | int) -> RunInfo:
        """The run by name or id, or `NotFoundError`."""
        return self.runs.get(name_or_id)

    def list_runs(self) -> list[RunInfo]:
        return self.runs.all()

    def set_run_status(self, run_id: int, status: str) -> None:
        self.runs.set_status(run_id, status)

    # ------------------------------------------------------------------ levels
    def insert_level(self, run_id: int, level: NewLevel) -> InsertedLevel:
        """Insert a level and its edges unless the run holds its content hash already."""
        return self.levels.insert(run_id, level)

    def find_level_by_hash(self, run_id: int, digest: str) -> int | None:
        return self.levels.find_by_hash(run_id, digest)

    def get_level(self, level_id: int) -> LevelInfo:
        return self.levels.get(level_id)

    def get_bundle(self, level_id: int) -> bytes | None:
        return self.levels.bundle(level_id)

    def list_levels(
        self,
        run_id: int,
        *,
        status: str | None = None,
        active: bool | None = None,
        sampled: bool | None = None,
        teacher: str | None = None,
        skill: str | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[LevelInfo]:
        """Levels of a run by id; ``sampled=False`` lists those never drawn for training yet."""
        where = LevelFilter(status, active, sampled, teacher, skill)
        return self.levels.listing(run_id, where, limit=limit, offset=offset)

    def page_levels(
        self,
        run_id: int,
        *,
        status: str | None = None,
        active: bool | None = None,
        sampled: bool | None = None,
        teacher: str | None = None,
        skill: str | None = None,
        limit: int,
        offset: int = 0,
    ) -> Page[LevelInfo]:
        """One page of `list_levels` with the number of matching levels."""
        where = LevelFilter(status, active, sampled, teacher, skill)
        return self.levels.page(run_id, where, limit=limit, offset=offset)

    def update_level(
        self,
        level_id: int,
        *,
        score: float | None = None,
        status: str | None = None,
        success_rate: float | None = None,
    ) -> None:
        """Overwrite a level's score, status letter and/or success rate."""
        self.levels.update(level_id, score=score, status=status, success_rate=success_rate)

    def mark_sampled(self, level_ids: Sequence[int], step: int) -> None:
        """Note that the student drew these levels at replay step ``step``."""
        self.levels.mark_sampled(level_ids, step)

    # ------------------------------------------------------------------ lineage
    def add_edge(self, parent_id: int, child_id: int) -> bool:
        """Record that ``child_id`` came from ``parent_id``; False if the edge existed."""
        return self.lineage.add_edge(parent_id, child_id)

    def parents(self, level_id: int) -> list[int]:
        return self.lineage.parents(level_id)

    def children(self, level_id: int) -> list[int]:
        return self.lineage.children(level_id)

    def level_neighbourhood(self, level_id: int, depth: int) -> Subgraph:
        """Ancestors and descendants up to ``depth`` generations, and the edges among them."""
        return self.lineage.neighbourhood(level_id, depth)

    def edge_instructions(self, run_id: int) -> dict[int, str]:
        return self.lineage.instructions(run_id)

    def load_graph_snapshot(self, run_id: int) -> GraphChanges:
        """Every level and edge of a run, with the cursor for `changes_since`."""
        return self.feed.snapshot(run_id)

    def changes_since(self, run_id: int, cursor: int) -> GraphChanges:
        """Levels (current state) and edges changed after ``cursor``, read as one snapshot."""
        return self.feed.since(run_id, cursor)

    # ------------------------------------------------------------------ attempts
    def record_attempt(
        self,
        run_id: int,
        attempt: NewAttempt,
        level: NewLevel | None = None,
        *,
        child_limit: int | None = None,
    ) -> RecordedAttempt:
        """Store a generation attempt; an accepted one inserts its level in the same transaction.
        ``child_limit``: refuse a new level whose parent has that many children already
        (`ParentFullError`; the strict parent rule under concurrent generators)."""
        return self.attempts.record(run_id, attempt, level, child_limit=child_limit)

    def record_attempt_once(
        self, run_id: int, attempt: NewAttempt, level: NewLevel | None = None
    ) -> RecordedAttempt | None:
        """`record_attempt` unless the run has an attempt of the same teacher and code (None)."""
        return self.attempts.record_once(run_id, attempt, level)

    def get_attempt(self, attempt_id: int) -> AttemptInfo:
        return self.attempts.get(attempt_id)

    def list_attempts(
        self,
        run_id: int,
        *,
        verdict: str | None = None,
        failing_stage: str | None = None,
        teacher: str | None = None,
        parent_id: int | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[AttemptInfo]:
        """Attempts of a run, oldest first, optionally filtered."""
        where = AttemptFilter(
            verdict=verdict, failing_stage=failing_stage, teacher=teacher, parent_id=parent_id
        )
        return self.attempts.listing(run_id, where, limit=limit, offset=offset)

    def page_attempts(
        self,
        run_id: int,
        *,
        verdict: str | None = None,
        failing_stage: str | None = None,
        teacher: str | None = None,
        parent_id: int | None = None,
        level_id: int | None = None,
        limit: int,
        offset: int = 0,
    ) -> Page[AttemptInfo]:
        """One page of `list_attempts` with the number of matching attempts."""
        where = AttemptFilter(
            verdict=verdict,
            failing_stage=failing_stage,
            teacher=teacher,
            parent_id=parent_id,
            level_id=level_id,
        )
        return self.attempts.page(run_id, where, limit=limit, offset=offset)

    # ------------------------------------------------------------------ evaluations
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
    ) -> EvaluationInfo:
        """Store a measurement and refresh the level's success rate, status letter and score
        (A or D only after ``min_sessions`` measured sessions)."""
        return self.evaluations.record(
            level_id,
            student_iteration=student_iteration,
            episodes=episodes,
            successes=successes,
            mean_return=mean_return,
            per_goal=per_goal,
            min_sessions=min_sessions,
        )

    def level_history(self, level_id: int) -> list[EvaluationInfo]:
        """Every evaluation of a level, in student-iteration order."""
        return self.evaluations.history(level_id)

    # ------------------------------------------------------------------ active set
    def active_set(self, run_id: int) -> ActiveSet:
        """The run's active levels (by id) with their scores, and the set's version."""
        return self.active.current(run_id)

    def compare_and_swap_active(
        self, run_id: int, expected_version: int, *, admit: int | None, evict: int | None
    ) -> bool:
        """Admit and/or evict one level iff the active set is still at ``expected_version``."""
        return self.active.compare_and_swap(run_id, expected_version, admit=admit, evict=evict)

    def set_active(self, level_id: int, active: bool) -> None:
        """Force a level in or out of the active set (no capacity check; admin use)."""
        self.active.force(level_id, active)

    # ------------------------------------------------------------------ checkpoints, events
    def add_checkpoint(
        self, run_id: int, path: str, iteration: int, meta: dict[str, Any] | None = None
    ) -> CheckpointInfo:
        return self.checkpoints.add(run_id, path, iteration, meta)

    def latest_checkpoint(self, run_id: int) -> CheckpointInfo | None:
        return self.checkpoints.latest(run_id)

    def list_checkpoints(self, run_id: int) -> list[CheckpointInfo]:
        return self.checkpoints.all(run_id)

    def add_event(
        self, kind: str, payload: dict[str, Any] | None = None, *, run_id: int | None = None
    ) -> EventInfo:
        return self.events.add(kind, payload, run_id=run_id)

    def list_events(
        self,
        *,
        run_id: int | None = None,
        kind: str | None = None,
        after_id: int = 0,
        limit: int | None = None,
    ) -> list[EventInfo]:
        return self.events.listing(run_id=run_id, kind=kind, after_id=after_id, limit=limit)

    # ------------------------------------------------------------------ statistics
    def stats(self, run_id: int | None = None) -> ArchiveStats:
        """Counts for one run, or for the whole archive when ``run_id`` is None."""
        return self.statistics.counts(run_id)

    def run_timeline(self, run_id: int) -> RunTimeline:
        """A run's dashboard series (progress, letters, stages, latency, learnability)."""
        return self.timelines.of_run(run_id)
