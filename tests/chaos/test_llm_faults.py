"""The model server misbehaves under a running generator process (teacher ``llm``).

Each fault of `llm_server.FAULTS` hits one generation attempt (one in flight, so in order): the
attempt is stored as rejected at the description stage with an error naming the cause, the
generator keeps going, and once the server behaves again accepted levels arrive.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

import pytest

from tests.chaos.conftest import (
    RUN,
    TINY,
    Service,
    assert_whole,
    new_run,
    snapshot,
)
from tests.chaos.llm_server import FAULTS, ChaosModelServer

pytestmark = pytest.mark.chaos

TIMEOUT_S = 1.5
# The client retries once (2 HTTP tries per call) what a moment later may succeed; an
# unreadable answer is final at once.
TRIES = {fault: 1 if fault.endswith("_json") else 2 for fault in FAULTS}
# What the stored error must say for each fault: the client's kind, then the cause's words.
CAUSE = {
    "timeout": ("(timeout)", f"no answer within {TIMEOUT_S:g} s"),
    "rate_limited": ("(rate_limited)", "HTTP 429", "Retry-After 1 s"),
    "server_error": ("(server_error)", "HTTP 500", "CUDA error"),
    "cut": ("(connection)", "Server disconnected without sending a response"),
    "malformed_json": ("(bad_response)", "unreadable response"),
    "truncated_json": ("(bad_response)", "unreadable response", "Unterminated string"),
    "slow_drip": ("(timeout)", f"no answer within {TIMEOUT_S:g} s"),
}
GOOD = 3  # attempts after the faults, with a server that behaves
LLM = {"timeout_s": TIMEOUT_S, "max_retries": 1, "backoff_base_s": 0.05, "backoff_max_s": 0.1}
# One attempt in flight, so faults meet attempts in order; the run's stored LLM settings.
GENERATOR = replace(
    TINY.generator, teacher="llm", in_flight=1, teacher_options={"llm_config": LLM}
)
SETTINGS = replace(TINY, generator=GENERATOR)


def test_model_server_faults_are_recorded_and_generation_goes_on(
    sqlite_url: str, services: Callable[..., Service]
) -> None:
    run_id = new_run(sqlite_url, SETTINGS)
    with ChaosModelServer(hold_s=3 * TIMEOUT_S) as server:
        for fault in FAULTS:
            server.script(*[fault] * TRIES[fault])
        generator = services(
            "generator", "--db", sqlite_url, "--run", RUN, "--max-attempts",
            str(len(FAULTS) + GOOD),
            env={"DICODE_LLM_URL": server.base_url, "DICODE_LLM_MODEL": server.model},
        )
        started = time.monotonic()
        generator.start()
        assert generator.wait(300) == 0, generator.tail()  # kept going through every fault
        took = time.monotonic() - started
        received = list(server.received)

    rows = snapshot(sqlite_url, run_id)
    assert_whole(rows)
    attempts = rows.attempts_where(teacher="llm")
    assert len(attempts) == len(FAULTS) + GOOD
    for fault, attempt in zip(FAULTS, attempts, strict=False):
        assert attempt["verdict"] == "rejected", (fault, attempt)
        assert attempt["failing_stage"] == "description", (fault, attempt)
        for words in CAUSE[fault]:
            assert words in attempt["error"], f"{fault}: {words!r} not in {attempt['error']!r}"
    healed = attempts[len(FAULTS):]
    assert all(a["verdict"] == "accepted" for a in healed), healed
    seeds = {r["level_id"] for r in rows.attempts_where(teacher="seed")}
    assert len({a["level_id"] for a in healed} - seeds) == GOOD  # new levels, with lineage
    assert all(a["parent_id"] in rows.levels for a in healed)
    assert {(a["parent_id"], a["level_id"]) for a in healed} <= rows.edges

    # The 429's Retry-After was honoured between its two tries.
    limited = [r.at for r in received if r.fault == "rate_limited"]
    assert len(limited) == 2 and limited[1] - limited[0] >= 1.0
    print(f"\n{len(FAULTS)} faults + {GOOD} good attempts in {took:.1f} s "
          f"(process start and seeding included); {len(received)} model requests")
