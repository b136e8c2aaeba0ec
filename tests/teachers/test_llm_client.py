"""The OpenAI-compatible client against a real HTTP server speaking the OpenAI protocol."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from typing import Any

import pytest

from dicode.llm.client import (
    ChatResult,
    LLMClient,
    LLMConfig,
    backoff_delay,
    parse_retry_after,
)
from tests.support.fake_openai import FakeOpenAIServer, FakeReply


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def config_for(server: FakeOpenAIServer, **overrides: object) -> LLMConfig:
    values: dict[str, object] = {
        "base_url": server.base_url,
        "model": server.model,
        "timeout_s": 2.0,
        "max_retries": 3,
        "backoff_base_s": 0.01,
        "backoff_max_s": 0.05,
    }
    values.update(overrides)
    return LLMConfig(**values)  # type: ignore[arg-type]


async def chat_once(config: LLMConfig, **kwargs: Any) -> ChatResult:
    async with LLMClient(config) as client:
        return await client.chat([{"role": "user", "content": "hello there"}], **kwargs)


def test_answer_text_tokens_and_sampling_reach_the_server(server: FakeOpenAIServer) -> None:
    server.enqueue(FakeReply.text("def build(b):\n    return b"))
    result = asyncio.run(chat_once(config_for(server), temperature=0.6, top_p=0.95, seed=3))
    assert result.ok and result.text == "def build(b):\n    return b"
    assert result.completion_tokens == 4 and result.prompt_tokens == 2
    assert result.latency_s > 0 and len(result.attempts) == 1
    sent = server.chat_requests()[0]
    assert sent["model"] == server.model
    assert (sent["temperature"], sent["top_p"], sent["seed"]) == (0.6, 0.95, 3)
    assert "guided_json" not in sent


def test_response_format_is_sent_as_json_schema(server: FakeOpenAIServer) -> None:
    server.enqueue(FakeReply.json({"a": 1}))
    schema = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}}
    result = asyncio.run(chat_once(config_for(server), response_format=schema))
    assert result.text == '{"a": 1}'
    assert server.chat_requests()[0]["response_format"] == schema


def test_server_errors_are_retried_then_succeed(server: FakeOpenAIServer) -> None:
    server.enqueue(FakeReply.http_error(500), FakeReply.http_error(503), FakeReply.text("ok"))
    result = asyncio.run(chat_once(config_for(server)))
    assert result.text == "ok"
    assert [a.error_kind for a in result.attempts] == ["server_error", "server_error", None]
    assert "HTTP 500" in (result.attempts[0].error or "")


def test_persistent_server_error_becomes_a_value_with_the_status(
    server: FakeOpenAIServer,
) -> None:
    server.enqueue(*[FakeReply.http_error(500, "CUDA out of memory")] * 3)
    result = asyncio.run(chat_once(config_for(server, max_retries=2)))
    assert not result.ok and result.error_kind == "server_error"
    assert "HTTP 500" in (result.error or "") and "CUDA out of memory" in (result.error or "")
    assert "gave up after 3 attempts" in (result.error or "")
    assert len(server.chat_requests()) == 3


def test_client_errors_are_not_retried(server: FakeOpenAIServer) -> None:
    server.enqueue(FakeReply.http_error(400, "maximum context length is 8192 tokens"))
    result = asyncio.run(chat_once(config_for(server)))
    assert result.error_kind == "client_error" and "8192" in (result.error or "")
    assert len(server.chat_requests()) == 1


def test_retry_after_is_honoured(server: FakeOpenAIServer) -> None:
    server.enqueue(FakeReply.rate_limited(1.0), FakeReply.text("done"))
    result = asyncio.run(chat_once(config_for(server)))
    assert result.text == "done"
    first, second = [r for r in server.requests if r.path == "/v1/chat/completions"]
    assert second.received_at - first.received_at >= 1.0
    assert result.attempts[0].error_kind == "rate_limited"
    assert "Retry-After 1 s" in (result.attempts[0].error or "")
    assert result.attempts[0].wait_s >= 1.0


def test_slow_answer_times_out_and_the_retry_succeeds(server: FakeOpenAIServer) -> None:
    server.enqueue(FakeReply.slow("late", delay_s=3.0), FakeReply.text("on time"))
    result = asyncio.run(chat_once(config_for(server, timeout_s=0.5)))
    assert result.text == "on time"
    assert result.attempts[0].error_kind == "timeout"
    assert result.attempts[0].error == "no answer within 0.5 s"


def test_empty_answer_is_an_explained_error_not_a_retry(server: FakeOpenAIServer) -> None:
    server.enqueue(FakeReply.empty(), FakeReply.text("never asked"))
    result = asyncio.run(chat_once(config_for(server)))
    assert result.error_kind == "empty_answer" and "empty answer" in (result.error or "")
    assert len(server.chat_requests()) == 1


def test_truncated_http_body_is_a_bad_response(server: FakeOpenAIServer) -> None:
    server.enqueue(FakeReply.truncated_body("some code"))
    result = asyncio.run(chat_once(config_for(server)))
    assert not result.ok and result.error_kind == "bad_response"


def test_unreachable_server_is_a_connection_error() -> None:
    with FakeOpenAIServer() as fake:
        url = fake.base_url
    config = LLMConfig(base_url=url, model="m", max_retries=1, backoff_base_s=0.01)
    result = asyncio.run(chat_once(config))
    assert result.error_kind == "connection" and "connection failed" in (result.error or "")
    assert len(result.attempts) == 2


def test_concurrency_limit_holds(server: FakeOpenAIServer) -> None:
    server.set_responder(lambda body: FakeReply.slow("x", delay_s=0.2))
    config = config_for(server, max_concurrency=2)

    async def many() -> list[bool]:
        async with LLMClient(config) as client:
            calls = [client.chat([{"role": "user", "content": str(i)}]) for i in range(6)]
            return [r.ok for r in await asyncio.gather(*calls)]

    assert all(asyncio.run(many()))
    assert server.max_in_flight == 2


def test_embeddings_models_and_health(server: FakeOpenAIServer) -> None:
    config = config_for(server, embedding_model="fake-embed")

    async def probe() -> tuple[object, list[str], bool]:
        async with LLMClient(config) as client:
            embedded = await client.embed(["a well on the left", "garbage rows"])
            return embedded, await client.list_models(), await client.health()

    embedded, models, healthy = asyncio.run(probe())
    assert embedded.ok and len(embedded.vectors) == 2  # type: ignore[attr-defined]
    assert models == [server.model] and healthy


def test_config_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DICODE_LLM_URL", "http://gpu-box:8000/v1/")
    monkeypatch.setenv("DICODE_LLM_MODEL", "Qwen/Qwen2.5-Coder-7B-Instruct")
    monkeypatch.delenv("DICODE_LLM_API_KEY", raising=False)
    config = LLMConfig.from_env(timeout_s=30)
    assert config.base_url == "http://gpu-box:8000/v1" and config.timeout_s == 30
    monkeypatch.delenv("DICODE_LLM_URL")
    with pytest.raises(ValueError, match="DICODE_LLM_URL"):
        LLMConfig.from_env()


def test_the_servers_concurrency_caps_what_a_caller_asks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DICODE_LLM_URL", "http://cpu-box:8000/v1")
    monkeypatch.setenv("DICODE_LLM_MODEL", "smollm2")
    monkeypatch.delenv("DICODE_LLM_MAX_CONCURRENCY", raising=False)
    assert LLMConfig.from_env(max_concurrency=16).max_concurrency == 16
    monkeypatch.setenv("DICODE_LLM_MAX_CONCURRENCY", "2")
    assert LLMConfig.from_env(max_concurrency=16).max_concurrency == 2
    assert LLMConfig.from_env(max_concurrency=1).max_concurrency == 1
    assert LLMConfig.from_env().max_concurrency == 2
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv("DICODE_LLM_MAX_CONCURRENCY", bad)
        with pytest.raises(ValueError, match="DICODE_LLM_MAX_CONCURRENCY must be a positive"):
            LLMConfig.from_env()


def test_backoff_grows_is_capped_and_never_undercuts_retry_after() -> None:
    config = LLMConfig(base_url="http://x/v1", model="m", backoff_base_s=1, backoff_max_s=8)
    rng = random.Random(0)
    delays = [backoff_delay(a, config, rng, None) for a in range(6)]
    assert all(0.5 * min(8, 2**a) <= d <= min(8, 2**a) for a, d in enumerate(delays))
    assert backoff_delay(0, config, rng, 5.0) >= 5.0
    assert parse_retry_after("7") == 7.0 and parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
