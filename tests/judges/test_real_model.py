"""A real (tiny) model as text judge and player through llama.cpp's server: bounded smoke.

Needs the optional extra `llm-smoke`; skips with the reason otherwise. Two states, pairwise mode
(a few answer tokens each), one player move with the short "moves" prompt.
"""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from dicode.domains.tetris.judges.benchmark import BenchmarkSettings, benchmark
from dicode.domains.tetris.judges.candidates import enumerate_candidates
from dicode.domains.tetris.judges.llm_judge import LLMJudge
from dicode.domains.tetris.judges.player import LLMPlayer, PlayerSettings
from dicode.llm.client import LLMClient, LLMConfig
from tests.support.local_llm import LlamaCppServer, smollm2_gguf_path, unavailable_reason

pytestmark = pytest.mark.slow


def test_small_real_model_judges_and_plays() -> None:
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    gguf = smollm2_gguf_path()
    assert gguf is not None
    with LlamaCppServer(gguf, n_ctx=4096) as server:
        config = LLMConfig(base_url=server.base_url, model=server.alias, timeout_s=600,
                           max_retries=0, max_concurrency=1)  # fmt: skip

        async def run():  # type: ignore[no-untyped-def]
            async with LLMClient(config) as client:
                judge = LLMJudge(client, structured="json_object")
                report = await benchmark(judge, BenchmarkSettings(states=2, mode="pairwise"))
                player = LLMPlayer(client, PlayerSettings(show="moves", structured="json_object"))
                board = np.zeros((20, 10), np.uint8)
                return report, await player.choose(board, 2, 3)

        report, decision = asyncio.run(run())
    assert report.calls == 4
    assert report.pairs["n"] == 4 and 0.0 <= report.pairwise_accuracy <= 1.0
    assert report.error_rate < 1.0, report.error_examples  # the model answered over HTTP
    assert decision.action in enumerate_candidates(np.zeros((20, 10), np.uint8), 2).actions
