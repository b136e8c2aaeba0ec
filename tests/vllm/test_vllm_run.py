"""`dicode run --profile llm` against the real vLLM server: the whole loop (Ray, student,
evaluator, generator with the LLM teacher, API) keeps running with a real model behind it. The
run goes on until the generator has stored attempts at least 30 s apart (or 8 of them), then
stops cleanly; a 135M model writes few valid levels: the test counts them and checks every
attempt was stored with its verdict and stage."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from contextlib import closing
from datetime import datetime
from pathlib import Path

import pytest

from archive_db.kinds import SEED_TEACHER
from archive_db.repository import ArchiveRepository
from dicode.llm.client import ENV_MAX_CONCURRENCY, ENV_MODEL, ENV_URL
from dicode.teachers.llm_teacher import ENV_MAX_TOKENS
from tests.support.local_server import free_port
from tests.support.vllm_server import Endpoint

pytestmark = pytest.mark.vllm
# The most the run may take; it is stopped (SIGTERM: a clean stop) as soon as the generator has
# shown it keeps going, which takes 3-5 min on a quiet 2-core machine and far longer under load.
MINUTES = float(os.environ.get("DICODE_VLLM_RUN_MINUTES", "15"))
# The profile keeps 16 attempts in flight. On 2 shared cores the server writes 8-18 tokens/s in
# all: with 16 calls on the wire each outlasted the client's 120 s deadline and was retried, and
# no attempt finished in 9 min; two calls at once and short answers keep each call well inside it.
RUN_MAX_TOKENS = 128
SERVER_CALLS = 2
SPAN_S = 30.0  # stored attempts this far apart: the generator went on after its first batch
MANY = 8  # or this many stored attempts


def llm_attempt_times(archive: Path) -> list[datetime]:
    """When the LLM teacher's stored attempts were created, read from the live run's archive
    (read-only, so the run's writes never wait on the test)."""
    if not archive.is_file():
        return []
    try:
        with closing(sqlite3.connect(f"file:{archive}?mode=ro", uri=True, timeout=5)) as db:
            rows = db.execute(
                "SELECT created_at FROM generation_attempts WHERE teacher = 'llm'"
            ).fetchall()
    except sqlite3.OperationalError:  # the run has not created its tables yet
        return []
    return sorted(datetime.fromisoformat(created) for (created,) in rows)


def kept_generating(times: list[datetime]) -> bool:
    if len(times) >= MANY:
        return True
    return len(times) >= 2 and (times[-1] - times[0]).total_seconds() >= SPAN_S


@pytest.mark.timeout(int(MINUTES * 60) + 1200)
def test_run_llm_profile_keeps_generating(vllm_server: Endpoint, tmp_path: Path) -> None:
    env = dict(os.environ)
    env[ENV_URL], env[ENV_MODEL] = vllm_server.base_url, vllm_server.served_name
    if env.get(ENV_MAX_TOKENS):
        env[ENV_MAX_TOKENS] = str(min(int(env[ENV_MAX_TOKENS]), RUN_MAX_TOKENS))
    env[ENV_MAX_CONCURRENCY] = str(SERVER_CALLS)
    command = [
        str(Path(sys.executable).parent / "dicode"), "run", "--profile", "llm",
        "--minutes", f"{MINUTES:g}", "--name", "vllm-llm", "--runs-dir", str(tmp_path),
        "--port", str(free_port()), "--no-dashboard",
    ]  # fmt: skip
    archive = tmp_path / "vllm-llm" / "archive.sqlite"
    # The live view writes frames all along: to files, so that no pipe fills and stalls the run.
    out, err = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    with out.open("w") as stdout, err.open("w") as stderr:
        process = subprocess.Popen(command, env=env, stdout=stdout, stderr=stderr, text=True)
        try:
            while process.poll() is None and not kept_generating(llm_attempt_times(archive)):
                time.sleep(5)
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)  # ends the session and the attempts in flight
            returncode = process.wait(timeout=900)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    done = subprocess.CompletedProcess(command, returncode, out.read_text(), err.read_text())
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    last = done.stdout.strip().splitlines()[-1]
    summary = json.loads(last[last.index("{") :])  # the live view's last frame ends the line

    repository = ArchiveRepository.open(f"sqlite:///{tmp_path / 'vllm-llm' / 'archive.sqlite'}")
    try:
        run = repository.runs.get("vllm-llm")
        generated = [a for a in repository.attempts.listing(run.id) if a.teacher != SEED_TEACHER]
    finally:
        repository.close()
    valid = sum(a.verdict == "accepted" for a in generated)
    stages = Counter(a.failing_stage or "accepted" for a in generated)
    print(f"\ndicode run --profile llm against vLLM: {len(generated)} attempts, "
          f"{valid} valid levels, by stage {dict(stages)}; summary {summary}")

    assert len(generated) >= 2, "the generator stored fewer than two attempts"
    # The model answered (a broken server fails every attempt fast, at the same stage).
    answered = [r for a in generated for r in a.responses if r.get("response")]
    assert answered, "no call was answered"
    errors = Counter(r.get("error_kind") for a in generated for r in a.responses)
    assert errors["server_error"] + errors["connection"] < len(answered), errors
    for attempt in generated:
        assert attempt.teacher == "llm"
        assert attempt.verdict in ("accepted", "rejected") and attempt.stage_reached
        assert attempt.verdict == "accepted" or attempt.failing_stage
        assert attempt.responses and attempt.responses[0]["stage"] == "description"
    # Still generating after a first batch, not stuck.
    assert kept_generating(sorted(a.created_at for a in generated))
