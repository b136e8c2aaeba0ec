"""The bounded active set of a run: ``levels.active`` flags versioned by
``runs.active_version``, changed only by compare-and-swap (admission lives in
`dicode.archive.active_set.offer`)."""

from __future__ import annotations

from sqlalchemy import select, update

from archive_db.aggregates.feed import levels_changed, log_changes
from archive_db.errors import NotFoundError
from archive_db.models import Level, Run
from archive_db.records import ActiveSet
from archive_db.sessions import Sessions, require


class _CasFailed(Exception):
    """Abort a compare-and-swap transaction (rolls back what it changed so far)."""


class ActiveSets:
    def __init__(self, sessions: Sessions) -> None:
        self._sessions = sessions

    def current(self, run_id: int) -> ActiveSet:
        """The run's active levels (by id) with their scores, and the set's version."""
        with self._sessions.snapshot() as session:
            version = session.scalars(
                select(Run.active_version).where(Run.id == run_id)
            ).one_or_none()
            if version is None:
                raise NotFoundError(f"no run {run_id} in the archive")
            rows = session.execute(
                select(Level.id, Level.score)
                .where(Level.run_id == run_id, Level.active.is_(True))
                .order_by(Level.id)
            ).all()
            return ActiveSet(
                version=version,
                level_ids=tuple(r.id for r in rows),
                scores=tuple(r.score for r in rows),
            )

    def compare_and_swap(
        self, run_id: int, expected_version: int, *, admit: int | None, evict: int | None
    ) -> bool:
        """Admit and/or evict one level iff the set is still at ``expected_version``.

        Returns False (and changes nothing) if another writer changed the set first, or if
        ``admit`` is already active / ``evict`` is not active any more.
        """
        try:
            with self._sessions.writing() as session:
                bumped = session.execute(
                    update(Run)
                    .where(Run.id == run_id, Run.active_version == expected_version)
                    .values(active_version=Run.active_version + 1)
                )
                if bumped.rowcount != 1:  # type: ignore[attr-defined]
                    raise _CasFailed
                for level_id, new_state in ((evict, False), (admit, True)):
                    if level_id is None:
                        continue
                    flipped = session.execute(
                        update(Level)
                        .where(
                            Level.id == level_id,
                            Level.run_id == run_id,
                            Level.active.is_(not new_state),
                        )
                        .values(active=new_state)
                    )
                    if flipped.rowcount != 1:  # type: ignore[attr-defined]
                        raise _CasFailed
                changed = [i for i in (evict, admit) if i is not None]
                log_changes(session, run_id, levels_changed(changed))
                return True
        except _CasFailed:
            return False

    def force(self, level_id: int, active: bool) -> None:
        """Put a level in or out of the set (no capacity check; admin use)."""
        with self._sessions.writing() as session:
            level = require(session, Level, level_id)
            if level.active == active:
                return
            level.active = active
            session.execute(
                update(Run)
                .where(Run.id == level.run_id)
                .values(active_version=Run.active_version + 1)
            )
            session.flush()
            log_changes(session, level.run_id, levels_changed([level_id]))
