"""The judge benchmark (benchmarks/judge_real_model.py --server vllm) against the real server:
the text judge answers under vLLM's json_schema structured output."""

from __future__ import annotations

import asyncio

import pytest

from dicode.domains.tetris.judges.benchmark import BenchmarkSettings, Mode
from dicode.domains.tetris.judges.cli import run_eval
from dicode.domains.tetris.judges.gate import GateThresholds, gate_failures
from dicode.llm.client import LLMConfig
from tests.support.vllm_server import Endpoint

pytestmark = pytest.mark.vllm


@pytest.mark.parametrize("mode", ["pairwise", "absolute"])
def test_judge_benchmark_against_vllm(vllm_server: Endpoint, mode: Mode) -> None:
    config = LLMConfig(base_url=vllm_server.base_url, model=vllm_server.served_name,
                       timeout_s=300, max_retries=0, max_concurrency=4)  # fmt: skip
    settings = BenchmarkSettings(states=3, seed=0, mode=mode, candidates=3)
    report = asyncio.run(run_eval("text", settings, config, "json_schema"))
    print(f"\njudge text/{mode} against vLLM: {report.to_dict()}")

    assert report.calls > 0 and report.mean_latency_s > 0
    # The schema is enforced by the server, so answers are readable; a 135M model is not
    # expected to judge well: whether the gate admits it is reported, not asserted.
    assert report.error_rate < 0.5, report.errors
    assert 0.0 <= report.pairwise_accuracy <= 1.0
    print(f"gate failures: {gate_failures(report, GateThresholds())}")
