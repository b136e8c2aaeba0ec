"""A model server as a child process on 127.0.0.1, for the duration of a ``with`` block.

What the llama.cpp server (``local_llm``) and the vLLM server (``vllm_server``) share: a free
port, the start with its output in a log, the wait until ``/v1/models`` answers, and the stop.
The child dies with its parent, so no server outlives a killed test or benchmark.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from types import TracebackType
from typing import Self

import httpx

_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child: get SIGTERM when the parent dies."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except OSError:  # not Linux / no glibc: the with-block still stops the server normally
        pass


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LocalServer:
    """An OpenAI-compatible server process; subclasses say how it starts (``command``).

    ``own_session``: the server runs in its own process group and the stop reaches the whole
    group (vLLM forks an engine process of its own).
    """

    name = "the server"
    own_session = False
    poll_s = 0.5  # between readiness checks
    stop_timeout_s = 15.0  # after SIGTERM, before SIGKILL

    def __init__(self, *, startup_timeout_s: float, log_path: Path | None) -> None:
        self.startup_timeout_s = startup_timeout_s
        self.log_path = log_path
        self.port = free_port()
        self.startup_s: float | None = None  # seconds until it answered
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        raise NotImplementedError

    def environment(self) -> dict[str, str] | None:
        """The child's environment (None: ours)."""
        return None

    def __enter__(self) -> Self:
        started = time.monotonic()
        # The child keeps its own copy of the log's descriptor; ours is closed right away.
        with open(self.log_path or os.devnull, "wb") as log:
            self._process = subprocess.Popen(
                self.command(), stdout=log, stderr=subprocess.STDOUT, env=self.environment(),
                start_new_session=self.own_session, preexec_fn=_die_with_parent,
            )  # fmt: skip
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        self.startup_s = time.monotonic() - started
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout_s
        assert self._process is not None
        hint = f"; see {self.log_path}" if self.log_path else ""
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                code = self._process.returncode
                raise RuntimeError(f"{self.name} exited with code {code} at start-up{hint}")
            try:
                if httpx.get(f"{self.base_url}/models", timeout=2.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(self.poll_s)
        raise RuntimeError(f"{self.name} not ready after {self.startup_timeout_s:g} s{hint}")

    def stop(self) -> None:
        """SIGTERM, SIGKILL after ``stop_timeout_s`` (to the group with ``own_session``); reap."""
        if self._process is None:
            return
        process, self._process = self._process, None
        for sig, wait_s in ((signal.SIGTERM, self.stop_timeout_s), (signal.SIGKILL, 10.0)):
            try:
                if self.own_session:
                    os.killpg(process.pid, sig)
                else:
                    process.send_signal(sig)
            except ProcessLookupError:
                break
            try:
                process.wait(timeout=wait_s)
            except subprocess.TimeoutExpired:
                continue
            if self.own_session:  # the leader is gone; a forked process may linger a moment
                time.sleep(0.5)
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
            break
        process.wait()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
