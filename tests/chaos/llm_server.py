"""A misbehaving OpenAI-compatible model server (the one fake the suite allows: an LLM server).

Real HTTP on 127.0.0.1 (stdlib ``ThreadingHTTPServer`` in a thread) speaking the chat
completions wire protocol. Description calls (those with a ``response_format``) take the next
fault of a script; once the script is spent, and for code calls, it behaves: a description as
JSON, then a small valid Tetris level whose goal differs per call (so each is a new level).
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# What a flaky server, proxy or overloaded GPU box does to a request.
FAULTS = (
    "timeout",  # no answer before the client's deadline
    "rate_limited",  # 429 with Retry-After
    "server_error",  # 500
    "cut",  # the connection closed without a response
    "malformed_json",  # a 200 whose body is not JSON
    "truncated_json",  # a 200 whose JSON body stops half-way
    "slow_drip",  # a 200 sent a byte at a time, slower than any deadline
)
DESCRIPTION = {
    "reasoning": "The parent is cleared often: vary its goal.",
    "title": "Garbage with a gap",
    "description": "Objective: clear one line on three garbage rows within a few pieces.",
}
LEVEL = '''"""Three garbage rows with one gap each; clear a line within {pieces} pieces."""


def build(level, rng):
    level.garbage(3, holes=1)
    level.goal(lines=1, pieces={pieces})
'''


@dataclass(frozen=True)
class Received:
    """One chat request as the server saw it."""

    at: float  # monotonic seconds
    description: bool
    fault: str | None


def completion(model: str, content: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-chaos-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "finish_reason": "stop", "logprobs": None}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }


class ChaosModelServer:
    """Use as a context manager; ``script(*faults)`` queues the faults of the next calls."""

    def __init__(self, *, hold_s: float = 5.0, drip_s: float = 0.25, retry_after_s: int = 1,
                 model: str = "chaos-coder") -> None:
        self.model = model
        self.hold_s = hold_s  # how long a "timeout" request is held
        self.drip_s = drip_s  # seconds between two bytes of a slow drip
        self.retry_after_s = retry_after_s
        self.received: list[Received] = []
        self._faults: deque[str] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._levels = 0
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def script(self, *faults: str) -> None:
        unknown = set(faults) - set(FAULTS)
        assert not unknown, f"unknown faults {unknown}"
        with self._lock:
            self._faults.extend(faults)

    def __enter__(self) -> ChaosModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()  # wakes held and dripping handlers
        self._httpd.shutdown()
        self._httpd.server_close()

    def _take(self, description: bool) -> str | None:
        with self._lock:
            fault = self._faults.popleft() if description and self._faults else None
            self.received.append(Received(time.monotonic(), description, fault))
            return fault

    def _answer(self, description: bool) -> str:
        if description:
            return json.dumps(DESCRIPTION)
        with self._lock:
            self._levels += 1
            pieces = 10 + self._levels
        return f"<code>\n{LEVEL.format(pieces=pieces)}</code>"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None,
                      length: int | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body) if length is None else length))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(body)
                self.wfile.flush()

            def _error(self, status: int, message: str, headers: dict[str, str] | None = None
                       ) -> None:
                payload = {"error": {"message": message, "type": "server_error", "code": status}}
                self._send(status, json.dumps(payload).encode(), headers)

            def do_GET(self) -> None:
                models = {"object": "list", "data": [{"id": server.model, "object": "model"}]}
                self._send(200, json.dumps(models).encode())

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.path != "/v1/chat/completions":
                    self._error(404, f"no route {self.path}")
                    return
                request = json.loads(raw)
                description = request.get("response_format") is not None
                fault = server._take(description)
                # The client may give up first: that is the point of several faults.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self._serve(fault, description)

            def _serve(self, fault: str | None, description: bool) -> None:
                body = json.dumps(completion(server.model, server._answer(description))).encode()
                if fault == "timeout":
                    server._stopping.wait(server.hold_s)
                    self._send(200, body)
                elif fault == "rate_limited":
                    self._error(429, "rate limit reached, retry later",
                                {"Retry-After": str(server.retry_after_s)})
                elif fault == "server_error":
                    self._error(500, "CUDA error: an illegal memory access was encountered")
                elif fault == "cut":
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                elif fault == "malformed_json":
                    self._send(200, b'{"id": "chatcmpl-x", "choices": [oops, "not json"}')
                elif fault == "truncated_json":
                    self._send(200, body[: len(body) // 2])
                elif fault == "slow_drip":
                    self._drip(body)
                else:
                    self._send(200, body)

            def _drip(self, body: bytes) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                for byte in body:
                    if server._stopping.wait(server.drip_s):
                        return
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()

        return Handler
