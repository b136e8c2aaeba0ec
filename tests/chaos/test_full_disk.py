"""The run folder's disk fills up under a running student (checkpoints cannot be written).

The run folder is a small tmpfs of its own (we mount it; without the right to mount, the test
skips saying so). A filler takes every free byte once checkpoints exist. The student must stop
with a clear error (exit status, and a last line naming the cause and the file), never hang;
the archive keeps every row, no checkpoint row points at a file that was not written, and once
space is freed a restarted student resumes from the newest checkpoint.
"""

from __future__ import annotations

import errno
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from archive_db import ArchiveRepository
from archive_db.kinds import SESSION_EVENT
from tests.chaos.conftest import (
    RUN,
    TINY,
    Service,
    assert_kept,
    assert_whole,
    count_rows,
    new_run,
    snapshot,
    wait_for,
)

pytestmark = [pytest.mark.slow, pytest.mark.chaos]
SIZE = "4m"  # room for a few checkpoints of the tiny student (~130 KB each)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A tmpfs of ``SIZE`` mounted for the run folder."""
    mount_point = tmp_path / "runs"
    mount_point.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SIZE}", "tmpfs", str(mount_point)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs for the run folder: {done.stderr.strip()}")
    yield mount_point
    subprocess.run(["umount", "-l", str(mount_point)], check=False)


class Filler:
    """Keeps the disk full: grabs whatever the student frees (it deletes old checkpoints)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "filler"
        self.stop = threading.Event()
        self.full = threading.Event()
        self.thread = threading.Thread(target=self._fill, daemon=True)

    def _fill(self) -> None:
        with self.path.open("wb", buffering=0) as out:
            while not self.stop.is_set():
                try:
                    out.write(b"\0" * 4096)
                except OSError as error:
                    assert error.errno == errno.ENOSPC
                    self.full.set()
                    time.sleep(0.01)

    def __enter__(self) -> Filler:
        self.thread.start()
        assert self.full.wait(60), "the filler never filled the disk"
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=10)
        self.path.unlink(missing_ok=True)


def test_full_run_disk_stops_the_student_clearly_and_keeps_the_archive(
    sqlite_url: str, small_disk: Path, services: Callable[..., Service]
) -> None:
    url = sqlite_url
    run_id = new_run(url)
    student = services("student", "--db", url, "--run", RUN, "--run-dir", str(small_disk))
    student.start()
    wait_for(lambda: student.check_alive() or count_rows(url, "checkpoints", run_id) >= 2,
             400, "the first checkpoints")
    with Filler(small_disk):
        filled_at = time.monotonic()
        before = snapshot(url, run_id)
        code = student.wait(120)  # no hang: the student stops on its own
        stopped_s = time.monotonic() - filled_at
        last_line = student.tail().strip().splitlines()[-1]
        after = snapshot(url, run_id)
    print(f"\ndisk full → the student exited with {code} after {stopped_s:.1f} s; its last "
          f"line: {last_line}")

    assert code != 0
    # The operator's one line: what failed, why, and where (checked on output: only it says).
    assert "No space left on device" in last_line and str(small_disk) in last_line
    assert_kept(before, after)
    assert_whole(after)
    checkpoint_dir = small_disk / RUN / "checkpoints"
    on_disk = {str(p) for p in checkpoint_dir.glob("student-*.msgpack")}
    newest = max(after.checkpoints.values(), key=lambda row: row[1])
    assert newest[0] in on_disk  # a checkpoint row exists only once its file was written
    assert not list(checkpoint_dir.glob("*.tmp")), "a partial checkpoint file was left behind"

    # Space freed (the filler is gone): a restart resumes from the newest checkpoint.
    repo = ArchiveRepository.open(url)
    last_event = max(after.events)
    student.start()
    wait_for(
        lambda: student.check_alive() or any(
            e.id > last_event for e in repo.events.listing(run_id=run_id, kind=SESSION_EVENT)
        ),
        400, "a session of the restarted student",
    )
    first = next(e for e in repo.events.listing(run_id=run_id, kind=SESSION_EVENT)
                 if e.id > last_event)
    repo.close()
    student.kill9()
    assert first.payload["iteration"] == newest[1] + TINY.student.iterations_per_session
