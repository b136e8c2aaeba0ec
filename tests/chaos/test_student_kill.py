"""`kill -9` of the student process (the compose ``ray-head``: Ray, the student and evaluator
actors) mid-run beside a running generator, then a restart.

The dead student's actors stop writing, nothing committed is lost or changed, the newest
checkpoint row's file is on disk, and the restarted student goes on from that checkpoint's
iteration and session (not from 0).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from archive_db import ArchiveRepository
from archive_db.kinds import SESSION_EVENT, TARGET_EVENT
from tests.chaos.conftest import (
    RUN,
    TINY,
    Rows,
    Service,
    assert_kept,
    assert_whole,
    count_rows,
    new_run,
    snapshot,
    wait_for,
)

pytestmark = [pytest.mark.slow, pytest.mark.chaos]
QUIET_S = 5.0  # a dead student's rows must stop growing within this


def _settled(url: str, run_id: int, quiet_s: float = QUIET_S, timeout: float = 60) -> Rows:
    """The run's rows once the student's tables stopped growing for ``quiet_s`` seconds."""
    deadline = time.monotonic() + timeout
    last = snapshot(url, run_id)
    while time.monotonic() < deadline:
        time.sleep(quiet_s)
        now = snapshot(url, run_id)
        grown = [len(getattr(now, t)) - len(getattr(last, t))
                 for t in ("evaluations", "events", "checkpoints")]
        if not any(grown):
            return now
        last = now
    raise AssertionError(f"the killed student's tables still grow after {timeout:.0f} s")


def _sessions(repo: ArchiveRepository, run_id: int, after_id: int = 0) -> list[dict[str, int]]:
    return [e.payload | {"event_id": e.id} for e in repo.events.listing(run_id=run_id,
            kind=SESSION_EVENT) if e.id > after_id]


def test_student_kill_9_then_resume_from_newest_checkpoint(
    sqlite_url: str, services: Callable[..., Service], tmp_path: Path
) -> None:
    url = sqlite_url
    run_id = new_run(url)
    generator = services("generator", "--db", url, "--run", RUN).start()
    run_dir = tmp_path / "runs"
    student = services("student", "--db", url, "--run", RUN, "--run-dir", str(run_dir)).start()
    # Mid-run: checkpoints written, levels evaluated, a target evaluation stored.
    repo = ArchiveRepository.open(url)
    wait_for(
        lambda: student.check_alive() or generator.check_alive() or (
            count_rows(url, "checkpoints", run_id) >= 3
            and count_rows(url, "evaluations", run_id) >= 1
            and repo.events.listing(run_id=run_id, kind=TARGET_EVENT)
        ),
        400, "checkpoints, evaluations and a target evaluation",
    )
    student.kill9()
    killed_at = time.monotonic()
    before = _settled(url, run_id)
    print(f"\nthe killed student's rows settled {time.monotonic() - killed_at:.1f} s after the "
          f"kill; rows {before.counts()}")
    assert_whole(before)
    saved = repo.checkpoints.latest(run_id)
    assert saved is not None and Path(saved.path).is_file()
    last_event = max(before.events)

    restarted_at = time.monotonic()
    student.start()
    wait_for(lambda: student.check_alive() or len(_sessions(repo, run_id, last_event)) >= 2,
             400, "sessions of the restarted student")
    first = _sessions(repo, run_id, last_event)[0]
    print(f"restarted student: first session {time.monotonic() - restarted_at:.1f} s after its "
          f"start, at iteration {first['iteration']} (checkpoint {saved.iteration})")
    student.kill9()
    generator.kill9()
    after = snapshot(url, run_id)
    repo.close()

    assert first["iteration"] == saved.iteration + TINY.student.iterations_per_session
    assert first["session"] == saved.meta["session"] + 1
    assert_kept(before, after)
    assert_whole(after)
    newest = max(after.checkpoints.values(), key=lambda row: row[1])
    assert Path(newest[0]).is_file()
