"""A scripted OpenAI-compatible HTTP server for tests (the only allowed fake: an LLM server).

It is a real HTTP server on 127.0.0.1 (stdlib ``ThreadingHTTPServer`` in a thread) speaking the
wire protocol clients use: ``POST /v1/chat/completions`` (with ``response_format``),
``GET /v1/models``, ``POST /v1/embeddings`` and ``GET /health``. Each test scripts the chat
answers as a queue of :class:`FakeReply` (or a responder function) and afterwards asserts on
:attr:`FakeOpenAIServer.requests`.

    with FakeOpenAIServer() as server:
        server.enqueue(FakeReply.text("<code>...</code>"), FakeReply.rate_limited(1.0))
        ... LLMConfig(base_url=server.base_url, model=server.model) ...
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

EMBEDDING_DIM = 64
_RESPONSE_FORMAT_TYPES = {"text", "json_object", "json_schema"}


@dataclass
class FakeReply:
    """One scripted answer to a chat completion request.

    ``content`` becomes the assistant message; ``raw_body`` (if set) replaces the whole HTTP
    body verbatim, e.g. to send JSON cut off mid-way; ``delay_s`` holds the answer back.
    """

    content: str | None = ""
    status: int = 200
    delay_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    raw_body: str | None = None
    finish_reason: str = "stop"
    error_message: str | None = None

    @classmethod
    def text(cls, content: str, *, finish_reason: str = "stop", delay_s: float = 0.0) -> FakeReply:
        return cls(content=content, finish_reason=finish_reason, delay_s=delay_s)

    @classmethod
    def json(cls, value: Any) -> FakeReply:
        return cls(content=json.dumps(value))

    @classmethod
    def empty(cls) -> FakeReply:
        return cls(content="")

    @classmethod
    def http_error(cls, status: int = 500, message: str = "internal server error") -> FakeReply:
        return cls(content=None, status=status, error_message=message)

    @classmethod
    def rate_limited(cls, retry_after_s: float = 1.0) -> FakeReply:
        return cls(
            content=None,
            status=429,
            headers={"Retry-After": f"{retry_after_s:g}"},
            error_message="rate limit reached, retry later",
        )

    @classmethod
    def slow(cls, content: str, delay_s: float) -> FakeReply:
        return cls(content=content, delay_s=delay_s)

    @classmethod
    def truncated_body(cls, content: str = "partial") -> FakeReply:
        """A 200 whose JSON body stops half-way (a proxy or server dying mid-answer)."""
        body = _completion_body("fake", content, "stop", {})
        return cls(raw_body=json.dumps(body)[: len(json.dumps(body)) // 2])


@dataclass
class RecordedRequest:
    """What the server received, for assertions."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    received_at: float


Responder = Callable[[dict[str, Any]], FakeReply]


def hashed_embedding(text: str, dim: int = EMBEDDING_DIM) -> list[float]:
    """Deterministic bag-of-words vector: texts sharing words get a high cosine."""
    vector = [0.0] * dim
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        digest = hashlib.sha256(word.encode()).digest()
        vector[digest[0] % dim] += 1.0 if digest[1] % 2 == 0 else -1.0
    norm = sum(v * v for v in vector) ** 0.5 or 1.0
    return [v / norm for v in vector]


def _count_tokens(text: str) -> int:
    return len(re.findall(r"\S+", text))


def _completion_body(
    model: str, content: str | None, finish_reason: str, request: dict[str, Any]
) -> dict[str, Any]:
    prompt = " ".join(str(m.get("content", "")) for m in request.get("messages", []))
    return {
        "id": f"chatcmpl-fake-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": finish_reason,
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": _count_tokens(prompt),
            "completion_tokens": _count_tokens(content or ""),
            "total_tokens": _count_tokens(prompt) + _count_tokens(content or ""),
        },
    }


def _check_response_format(value: Any) -> str | None:
    """vLLM answers 400 to a malformed ``response_format``; so do we."""
    if value is None:
        return None
    if not isinstance(value, dict) or value.get("type") not in _RESPONSE_FORMAT_TYPES:
        return f"response_format.type must be one of {sorted(_RESPONSE_FORMAT_TYPES)}"
    if value["type"] == "json_schema":
        spec = value.get("json_schema")
        if not isinstance(spec, dict) or not isinstance(spec.get("schema"), dict):
            return "response_format.json_schema.schema must be a JSON schema object"
        if not spec.get("name"):
            return "response_format.json_schema.name is required"
    return None


class FakeOpenAIServer:
    """Scripted OpenAI-compatible server on 127.0.0.1; use as a context manager."""

    def __init__(self, model: str = "fake-coder", *, default: FakeReply | None = None) -> None:
        self.model = model
        self.requests: list[RecordedRequest] = []
        self.max_in_flight = 0
        self._default = default or FakeReply.http_error(
            500, "fake server: no scripted reply left for this request"
        )
        self._queue: deque[FakeReply] = deque()
        self._responder: Responder | None = None
        self._lock = threading.Lock()
        self._in_flight = 0
        self._stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        # A short poll interval keeps shutdown (and so each test's teardown) quick.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    # ---- lifecycle ---------------------------------------------------------------------
    def start(self) -> FakeOpenAIServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes handlers sleeping on a slow reply
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.root_url}/v1"

    # ---- scripting ---------------------------------------------------------------------
    def enqueue(self, *replies: FakeReply) -> None:
        """Answers for the next chat requests, in order."""
        with self._lock:
            self._queue.extend(replies)

    def set_responder(self, responder: Responder | None) -> None:
        """Answer from a function of the request body once the queue is empty."""
        self._responder = responder

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    def chat_requests(self) -> list[dict[str, Any]]:
        """Bodies of the chat completion requests received so far."""
        with self._lock:
            return [r.body for r in self.requests if r.path.endswith("/chat/completions")]

    # ---- serving -----------------------------------------------------------------------
    def _next_reply(self, body: dict[str, Any]) -> FakeReply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self._responder is not None:
            return self._responder(body)
        return self._default

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass  # tests read server.requests instead of stderr noise

            def _record(self, body: Any) -> None:
                with server._lock:
                    server.requests.append(
                        RecordedRequest(
                            self.command, self.path, dict(self.headers), body, time.monotonic()
                        )
                    )

            def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None,
                      raw: str | None = None) -> None:
                data = (raw if raw is not None else json.dumps(payload)).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in (headers or {}).items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (e.g. its timeout fired): nothing to answer

            def _error(self, status: int, message: str,
                       headers: dict[str, str] | None = None) -> None:
                kind = "rate_limit_error" if status == 429 else "invalid_request_error"
                payload = {"error": {"message": message, "type": kind, "code": status}}
                self._send(status, payload, headers)

            def _read_json(self) -> Any:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    return json.loads(raw or b"null")
                except json.JSONDecodeError:
                    return {"_unparsable": raw.decode(errors="replace")}

            def do_GET(self) -> None:
                self._record(None)
                if self.path == "/health":
                    self._send(200, {})
                elif self.path == "/v1/models":
                    model = {"id": server.model, "object": "model", "owned_by": "fake"}
                    self._send(200, {"object": "list", "data": [model]})
                else:
                    self._error(404, f"no route {self.path}")

            def do_POST(self) -> None:
                body = self._read_json()
                self._record(body)
                if self.path == "/v1/chat/completions":
                    self._chat(body)
                elif self.path == "/v1/embeddings":
                    self._embeddings(body)
                else:
                    self._error(404, f"no route {self.path}")

            def _chat(self, body: Any) -> None:
                if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
                    self._error(400, "body must be a JSON object with a 'messages' list")
                    return
                problem = _check_response_format(body.get("response_format"))
                if problem:
                    self._error(400, problem)
                    return
                reply = server._next_reply(body)
                with server._lock:
                    server._in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server._in_flight)
                try:
                    if reply.delay_s > 0:
                        server._stopping.wait(reply.delay_s)
                    if reply.raw_body is not None:
                        self._send(reply.status, None, reply.headers, raw=reply.raw_body)
                    elif reply.status != 200:
                        self._error(reply.status, reply.error_message or "error", reply.headers)
                    else:
                        payload = _completion_body(
                            server.model, reply.content, reply.finish_reason, body
                        )
                        self._send(200, payload, reply.headers)
                finally:
                    with server._lock:
                        server._in_flight -= 1

            def _embeddings(self, body: Any) -> None:
                inputs = body.get("input") if isinstance(body, dict) else None
                if isinstance(inputs, str):
                    inputs = [inputs]
                if not isinstance(inputs, list) or not all(isinstance(t, str) for t in inputs):
                    self._error(400, "'input' must be a string or a list of strings")
                    return
                data = [
                    {"object": "embedding", "index": i, "embedding": hashed_embedding(text)}
                    for i, text in enumerate(inputs)
                ]
                tokens = sum(_count_tokens(t) for t in inputs)
                usage = {"prompt_tokens": tokens, "total_tokens": tokens}
                self._send(200, {"object": "list", "data": data, "model": body.get("model"),
                                 "usage": usage})

        return Handler
