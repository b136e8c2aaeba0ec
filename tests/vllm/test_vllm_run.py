"""`dicode run --profile llm` for a few minutes against the real vLLM server: the whole loop
(Ray, student, evaluator, generator with the LLM teacher, API) keeps running with a real model
behind it. A 135M model writes few valid levels; the test counts them and checks the generator
kept storing attempts, each with its verdict and stage."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from archive_db.kinds import SEED_TEACHER
from archive_db.repository import ArchiveRepository
from dicode.llm.client import ENV_MODEL, ENV_URL
from dicode.teachers.llm_teacher import ENV_MAX_TOKENS
from tests.support.local_server import free_port
from tests.support.vllm_server import Endpoint

pytestmark = pytest.mark.vllm
MINUTES = float(os.environ.get("DICODE_VLLM_RUN_MINUTES", "5"))
# The profile keeps 16 calls open: on 2 shared cores a sequence gets 1-3 tokens/s, and an
# attempt is two calls; 256-token answers let no attempt finish within 4 min under load.
RUN_MAX_TOKENS = 128


@pytest.mark.timeout(int(MINUTES * 60) + 1020)
def test_run_llm_profile_keeps_generating(vllm_server: Endpoint, tmp_path: Path) -> None:
    env = dict(os.environ)
    env[ENV_URL], env[ENV_MODEL] = vllm_server.base_url, vllm_server.served_name
    if env.get(ENV_MAX_TOKENS):
        # Shorter answers keep a call inside the client's 120 s deadline (RUN_MAX_TOKENS).
        env[ENV_MAX_TOKENS] = str(min(int(env[ENV_MAX_TOKENS]), RUN_MAX_TOKENS))
    command = [
        str(Path(sys.executable).parent / "dicode"), "run", "--profile", "llm",
        "--minutes", f"{MINUTES:g}", "--name", "vllm-llm", "--runs-dir", str(tmp_path),
        "--port", str(free_port()), "--no-dashboard",
    ]  # fmt: skip
    # Bounded: the run stops itself after MINUTES; the rest is start-up (Ray, the compiles of a
    # fresh machine) and shutdown: 440 s in all on a quiet machine, over 12 min once under load.
    done = subprocess.run(
        command, env=env, capture_output=True, text=True, timeout=MINUTES * 60 + 900
    )
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
    print(f"\ndicode run --profile llm, {MINUTES:g} min against vLLM: {len(generated)} attempts, "
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
    # Still generating late in the run, not stuck after a first batch.
    first = min(a.created_at for a in generated)
    last = max(a.created_at for a in generated)
    assert (last - first).total_seconds() >= 30 or len(generated) >= 8
