"""`ArchiveRepository`: one archive database, opened once, and its aggregates.

The SQL lives in `archive_db.aggregates`, one class per group of tables; callers use them
directly (``repo.runs.open(...)``, ``repo.levels.insert(...)``, ``repo.attempts.record(...)``).
Each aggregate method is one transaction. Writes are idempotent where the domain allows it
(levels by (run, content hash), edges by (parent, child)), so a service that retries after a
crash or a lost connection never duplicates anything.

This class adds only what no single aggregate can give: opening (and migrating) the database,
closing it, and the library's store protocols (`dicode.archive.store.TrainingStore`,
`dicode.archive.active_set.ActiveSetStore`, `dicode.archive.graph.ChangeSource`), whose
methods span several aggregates and so need one object that holds them all.
"""

from __future__ import annotations

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
from archive_db.records import LevelFilter, LevelInfo
from archive_db.sessions import Sessions


class ArchiveRepository:
    """Typed access to one archive database (SQLite or PostgreSQL) through its aggregates."""

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
        # The store protocols' methods, bound to the aggregate that answers each.
        self.active_set = self.active.current
        self.compare_and_swap_active = self.active.compare_and_swap
        self.get_bundle = self.levels.bundle
        self.mark_sampled = self.levels.mark_sampled
        self.record_evaluation = self.evaluations.record
        self.transfer_credits = self.evaluations.transfer_credits
        self.changes_since = self.feed.since

    @classmethod
    def open(cls, url: str, *, migrate: bool = True) -> ArchiveRepository:
        """Connect to the archive at ``url``, migrating it to the latest schema first."""
        engine = create_archive_engine(url)
        if migrate:
            upgrade_engine(engine)
        return cls(engine)

    def close(self) -> None:
        self.engine.dispose()

    def list_levels(self, run_id: int, *, sampled: bool | None = None) -> list[LevelInfo]:
        """`TrainingStore.list_levels`: the run's levels, by id; ``sampled=False`` lists those
        never drawn for training yet (other filters: ``repo.levels.listing``)."""
        return self.levels.listing(run_id, LevelFilter(sampled=sampled))
