"""The pause/resume flag of a run's generation, stored as archive events.

The API writes a `generation_control` event; the generator reads the newest one before every
attempt. Living in the database, the flag survives restarts of either side.
"""

from __future__ import annotations

from archive_db import ArchiveRepository
from archive_db.kinds import CONTROL_EVENT
from archive_db.records import EventInfo


def set_paused(repo: ArchiveRepository, run_id: int, paused: bool, *, by: str = "api") -> None:
    """Pause (True) or resume (False) generation for the run."""
    repo.events.add(CONTROL_EVENT, {"paused": paused, "by": by}, run_id=run_id)


def is_paused(repo: ArchiveRepository, run_id: int) -> bool:
    """The newest control event's flag; a run never paused is running."""
    newest = _newest(repo, run_id)
    return bool(newest and newest.payload.get("paused"))


def _newest(repo: ArchiveRepository, run_id: int) -> EventInfo | None:
    # Events are few per run; the newest control event is the last of its kind.
    events = repo.events.listing(run_id=run_id, kind=CONTROL_EVENT)
    return events[-1] if events else None
