"""Async client for any OpenAI-compatible server (vLLM, llama.cpp, a hosted API).

Built on the ``openai`` package with the SDK's own retries switched off: this module owns the
retry policy (exponential backoff with jitter on 429 / 5xx / connection errors / timeouts,
honouring ``Retry-After``), a per-call deadline and a concurrency limit. Every call returns a
value — text or a precise error — with its latency and token usage; nothing here raises on a bad
server.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Literal, TypeVar

import httpx
import openai
from pydantic import BaseModel, Field, field_validator

T = TypeVar("T")

ENV_URL = "DICODE_LLM_URL"
ENV_MODEL = "DICODE_LLM_MODEL"
ENV_API_KEY = "DICODE_LLM_API_KEY"
ENV_EMBEDDING_MODEL = "DICODE_LLM_EMBEDDING_MODEL"
# The calls the server takes at once: it bounds whatever a caller asks for (a teacher asks for
# its attempts in flight, 16 in the llm profile — right for a GPU server, while a CPU server
# answers two sequences well and sixteen each slower than the call deadline).
ENV_MAX_CONCURRENCY = "DICODE_LLM_MAX_CONCURRENCY"

ErrorKind = Literal[
    "timeout",
    "connection",
    "rate_limited",
    "server_error",
    "client_error",
    "bad_response",
    "empty_answer",
]
# Failures worth another try: the same request may succeed a moment later.
RETRYABLE: frozenset[str] = frozenset({"timeout", "connection", "rate_limited", "server_error"})


class LLMConfig(BaseModel):
    """Where the model lives and how to talk to it. One object, every field documented."""

    base_url: str = Field(description="OpenAI-compatible root including /v1")
    model: str = Field(description="model name as the server lists it under /v1/models")
    api_key: str = Field(default="EMPTY", description="bearer token; vLLM accepts any by default")
    embedding_model: str | None = Field(
        default=None, description="model for /v1/embeddings; None = lexical example retrieval"
    )
    timeout_s: float = Field(default=120.0, gt=0, description="deadline for one HTTP attempt")
    max_retries: int = Field(default=4, ge=0, description="extra attempts after the first")
    backoff_base_s: float = Field(default=0.5, ge=0, description="first backoff delay")
    backoff_max_s: float = Field(default=30.0, ge=0, description="cap on one computed backoff")
    retry_after_max_s: float = Field(
        default=120.0, ge=0, description="longest Retry-After we agree to wait"
    )
    max_concurrency: int = Field(default=4, ge=1, description="calls in flight at once")
    seed: int = Field(default=0, description="seed of the backoff jitter")

    @field_validator("base_url")
    @classmethod
    def _strip_slash(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        if not value.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, got {value!r}")
        return value

    @classmethod
    def from_env(cls, **overrides: Any) -> LLMConfig:
        """Read ``DICODE_LLM_URL`` / ``_MODEL`` / ``_API_KEY`` (explicit overrides win);
        ``DICODE_LLM_MAX_CONCURRENCY`` caps ``max_concurrency``, whoever set it."""
        values: dict[str, Any] = {}
        env = {
            "base_url": ENV_URL,
            "model": ENV_MODEL,
            "api_key": ENV_API_KEY,
            "embedding_model": ENV_EMBEDDING_MODEL,
        }
        for key, name in env.items():
            if os.environ.get(name):
                values[key] = os.environ[name]
        values.update({k: v for k, v in overrides.items() if v is not None})
        cap = os.environ.get(ENV_MAX_CONCURRENCY)
        if cap:
            if not cap.isdigit() or int(cap) < 1:
                raise ValueError(f"{ENV_MAX_CONCURRENCY} must be a positive integer, got {cap!r}")
            values["max_concurrency"] = min(int(cap), int(values.get("max_concurrency", cap)))
        missing = [env[k] for k in ("base_url", "model") if k not in values]
        if missing:
            raise ValueError(f"LLM endpoint not configured: set {' and '.join(missing)}")
        return cls(**values)


@dataclass
class CallAttempt:
    """One HTTP attempt inside a call: what went wrong and how long we then waited."""

    error_kind: str | None
    error: str | None
    latency_s: float
    wait_s: float = 0.0


@dataclass
class ChatResult:
    """The outcome of one chat call (after retries). ``ok`` ⇔ ``text`` is not None."""

    text: str | None
    error_kind: str | None = None
    error: str | None = None
    finish_reason: str | None = None
    latency_s: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    attempts: list[CallAttempt] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.text is not None


@dataclass
class EmbeddingResult:
    """Vectors for the inputs, in order, or an error."""

    vectors: list[list[float]] | None
    error_kind: str | None = None
    error: str | None = None
    latency_s: float = 0.0
    prompt_tokens: int = 0
    attempts: list[CallAttempt] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.vectors is not None


class _CallFailed(Exception):
    """Internal: one attempt failed with a classified, readable reason."""

    def __init__(self, kind: str, message: str, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.retry_after_s = retry_after_s


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP date)."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


def backoff_delay(
    attempt: int, config: LLMConfig, rng: random.Random, retry_after_s: float | None
) -> float:
    """Delay before retry number ``attempt`` (0-based).

    Exponential with "equal jitter" (half fixed, half random) so that parallel callers spread
    out; a server's ``Retry-After`` is a floor, never shortened by jitter.
    """
    computed = min(config.backoff_max_s, config.backoff_base_s * (2.0**attempt))
    delay = computed / 2.0 + rng.uniform(0.0, computed / 2.0)
    if retry_after_s is not None:
        delay = max(delay, min(retry_after_s, config.retry_after_max_s))
    return delay


def _classify(exc: BaseException, timeout_s: float) -> _CallFailed:
    """Turn an SDK / transport exception into a precise, classified failure."""
    if isinstance(exc, TimeoutError | openai.APITimeoutError):
        return _CallFailed("timeout", f"no answer within {timeout_s:g} s")
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        detail = f": {type(cause).__name__}: {cause}" if cause else ""
        return _CallFailed("connection", f"connection failed ({exc.message}){detail}")
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        body = exc.response.text[:300] if exc.response is not None else ""
        retry_after = parse_retry_after(exc.response.headers.get("retry-after"))
        if status == 429:
            hint = f", Retry-After {retry_after:g} s" if retry_after is not None else ""
            return _CallFailed("rate_limited", f"HTTP 429 rate limited{hint}: {body}", retry_after)
        if status >= 500:
            return _CallFailed("server_error", f"HTTP {status} server error: {body}", retry_after)
        return _CallFailed("client_error", f"HTTP {status} rejected the request: {body}")
    if isinstance(exc, openai.APIResponseValidationError | ValueError):
        return _CallFailed("bad_response", f"unreadable response: {exc}")
    return _CallFailed("bad_response", f"{type(exc).__name__}: {exc}")


class LLMClient:
    """Async OpenAI-compatible client with our retry policy and a concurrency limit."""

    def __init__(
        self,
        config: LLMConfig,
        *,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.config = config
        self._sdk = openai.AsyncOpenAI(
            base_url=config.base_url,
            api_key=config.api_key,
            max_retries=0,  # retries are ours: the SDK's policy ignores our caps and jitter seed
            timeout=config.timeout_s,
        )
        self._limit = asyncio.Semaphore(config.max_concurrency)
        self._rng = random.Random(config.seed)
        self._sleep = sleep

    async def __aenter__(self) -> LLMClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._sdk.close()

    async def chat(
        self,
        messages: Sequence[dict[str, Any]],
        *,
        temperature: float = 0.6,
        top_p: float = 0.95,
        max_tokens: int = 2048,
        response_format: dict[str, Any] | None = None,
        seed: int | None = None,
    ) -> ChatResult:
        """One chat completion; the answer text or a classified error, never an exception."""
        kwargs: dict[str, Any] = {
            "model": self.config.model,
            "messages": list(messages),
            "temperature": temperature,
            "top_p": top_p,
            "max_tokens": max_tokens,
        }
        if response_format is not None:
            kwargs["response_format"] = response_format
        if seed is not None:
            kwargs["seed"] = seed

        async def once() -> ChatResult:
            completion = await self._sdk.chat.completions.create(**kwargs)
            if not completion.choices:
                raise _CallFailed("bad_response", "response has no choices")
            choice = completion.choices[0]
            usage = completion.usage
            text = choice.message.content if choice.message else None
            result = ChatResult(
                text=text,
                finish_reason=choice.finish_reason,
                prompt_tokens=usage.prompt_tokens if usage else 0,
                completion_tokens=usage.completion_tokens if usage else 0,
            )
            if not text or not text.strip():
                # An empty answer is final, not retried: the same prompt at the same
                # temperature is a coin flip, and the stage above decides what to do.
                result.text = None
                result.error_kind = "empty_answer"
                reason = choice.finish_reason
                result.error = f"model returned an empty answer (finish_reason={reason})"
            return result

        outcome, attempts, latency = await self._with_retries(once)
        if isinstance(outcome, _CallFailed):
            return ChatResult(
                text=None,
                error_kind=outcome.kind,
                error=outcome.message,
                latency_s=latency,
                attempts=attempts,
            )
        outcome.latency_s = latency
        outcome.attempts = attempts
        return outcome

    async def embed(self, texts: Sequence[str]) -> EmbeddingResult:
        """Embeddings from ``/v1/embeddings`` with the configured embedding model."""
        if self.config.embedding_model is None:
            return EmbeddingResult(None, "client_error", "no embedding model configured")
        model = self.config.embedding_model

        async def once() -> EmbeddingResult:
            response = await self._sdk.embeddings.create(model=model, input=list(texts))
            data = sorted(response.data, key=lambda d: d.index)
            if len(data) != len(texts):
                raise _CallFailed(
                    "bad_response", f"asked for {len(texts)} embeddings, got {len(data)}"
                )
            tokens = response.usage.prompt_tokens if response.usage else 0
            return EmbeddingResult([list(d.embedding) for d in data], prompt_tokens=tokens)

        outcome, attempts, latency = await self._with_retries(once)
        if isinstance(outcome, _CallFailed):
            return EmbeddingResult(None, outcome.kind, outcome.message, latency, 0, attempts)
        outcome.latency_s = latency
        outcome.attempts = attempts
        return outcome

    async def list_models(self) -> list[str]:
        """Model ids the server offers (raises on failure: used by set-up checks only)."""
        page = await self._sdk.models.list()
        return [m.id for m in page.data]

    async def health(self) -> bool:
        """True if the server's ``/health`` (next to ``/v1``) answers 200."""
        root = self.config.base_url.removesuffix("/v1")
        try:
            async with httpx.AsyncClient(timeout=self.config.timeout_s) as http:
                response = await http.get(f"{root}/health")
        except httpx.HTTPError:
            return False
        return response.status_code == 200

    async def _with_retries(
        self, once: Callable[[], Awaitable[T]]
    ) -> tuple[T | _CallFailed, list[CallAttempt], float]:
        """Run ``once`` under the concurrency limit and deadline, retrying what is retryable.

        The semaphore is held only while a request is on the wire, not during backoff, so a
        rate-limited caller does not block others that might succeed.
        """
        attempts: list[CallAttempt] = []
        started = time.perf_counter()
        for attempt in range(self.config.max_retries + 1):
            t0 = time.perf_counter()
            try:
                async with self._limit:
                    value = await asyncio.wait_for(once(), timeout=self.config.timeout_s)
            except _CallFailed as failed:
                outcome = failed
            except Exception as exc:  # every transport/SDK failure becomes a value
                outcome = _classify(exc, self.config.timeout_s)
            else:
                attempts.append(CallAttempt(None, None, time.perf_counter() - t0))
                return value, attempts, time.perf_counter() - started
            record = CallAttempt(outcome.kind, outcome.message, time.perf_counter() - t0)
            attempts.append(record)
            if outcome.kind not in RETRYABLE or attempt == self.config.max_retries:
                if outcome.kind in RETRYABLE:
                    outcome.message += f" (gave up after {attempt + 1} attempts)"
                return outcome, attempts, time.perf_counter() - started
            record.wait_s = backoff_delay(attempt, self.config, self._rng, outcome.retry_after_s)
            await self._sleep(record.wait_s)
        raise AssertionError("unreachable: the loop returns on its last attempt")
