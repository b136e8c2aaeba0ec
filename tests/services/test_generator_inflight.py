"""The generator keeps ``in_flight`` LLM attempts open at once: the model server (an
OpenAI-compatible HTTP server) sees that many chat calls together, not the client's default."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from typing import Any

import pytest

from archive_db import ArchiveRepository
from dicode.domains.tetris.seeds import seed_level_sources
from dicode.levels.pipeline import Validator
from dicode.llm.client import ENV_MODEL, ENV_URL
from services.generator.service import Generator
from tests.services.conftest import TINY, new_run
from tests.support.fake_openai import FakeOpenAIServer, FakeReply

IN_FLIGHT = 8
DESCRIPTION = {
    "reasoning": "The parent is cleared often: vary its garbage.",
    "title": "Varied garbage",
    "description": "Objective: clear 2 lines within 40 pieces on 3 garbage rows.",
}


def _slow_model(body: dict[str, Any]) -> FakeReply:
    if body.get("response_format") is not None:
        return FakeReply(content=json.dumps(DESCRIPTION), delay_s=1.0)
    code = next(iter(seed_level_sources().values()))
    return FakeReply(content=f"<code>\n{code}</code>", delay_s=1.0)


def test_in_flight_attempts_are_concurrent_model_calls(
    sqlite_url: str, validator: Validator, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = replace(TINY.generator, teacher="llm", in_flight=IN_FLIGHT)
    repo = ArchiveRepository.open(sqlite_url)
    run_id = new_run(repo)
    with FakeOpenAIServer() as server:
        server.set_responder(_slow_model)
        monkeypatch.setenv(ENV_URL, server.base_url)
        monkeypatch.setenv(ENV_MODEL, server.model)
        generator = Generator(repo, run_id, settings, validator=validator)
        stats = asyncio.run(generator.run(max_attempts=IN_FLIGHT))
        peak = server.max_in_flight
    assert stats.started == IN_FLIGHT and stats.accepted == IN_FLIGHT
    assert peak == IN_FLIGHT  # the LLM client's own limit follows the generator's
    repo.close()
