"""The generator as its own process: `kill -9` mid-run loses no attempt; a restart continues."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from archive_db import ArchiveRepository
from archive_db.records import AttemptFilter
from tests.services.conftest import TINY, new_run

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def _start(url: str, *extra: str) -> subprocess.Popen[bytes]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-m", "services.generator", "--db", url, "--run", "test", *extra],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )


def test_kill_9_then_restart_loses_nothing(sqlite_url: str) -> None:
    repo = ArchiveRepository.open(sqlite_url)
    run_id = new_run(repo, "test", TINY)
    process = _start(sqlite_url)
    try:
        deadline = time.time() + 300
        # Kill once the seeds are in and generated attempts are being written.
        while len(repo.attempts.listing(run_id, AttemptFilter(teacher="mutation"))) < 2:
            assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
            assert time.time() < deadline, "the generator wrote no attempt in 300 s"
            time.sleep(0.5)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    before = {a.id: a for a in repo.attempts.listing(run_id)}

    restarted = _start(sqlite_url, "--max-attempts", "3")
    _, stderr = restarted.communicate(timeout=300)
    assert restarted.returncode == 0, stderr.decode()[-2000:]
    after = {a.id: a for a in repo.attempts.listing(run_id)}
    # Every attempt stored before the kill is still there, unchanged, and three more followed.
    assert all(after[i] == attempt for i, attempt in before.items())
    assert len(after) >= len(before) + 3
    # The seeds were not recorded twice; every accepted attempt's level exists with lineage.
    assert len(repo.attempts.listing(run_id, AttemptFilter(teacher="seed"))) == 11
    for attempt in after.values():
        if attempt.verdict == "accepted" and attempt.teacher == "mutation":
            assert attempt.level_id is not None
            assert attempt.parent_id in repo.lineage.parents(attempt.level_id)
    repo.close()
