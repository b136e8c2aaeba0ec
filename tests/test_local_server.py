"""The process handling the real model servers share (``tests.support.local_server``): ready
when ``/v1/models`` answers, a start-up failure named, nothing left running after the block."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
import pytest

from tests.support.local_server import LocalServer


class StaticServer(LocalServer):
    """Python's file server over a folder holding ``v1/models``: a stand-in that answers."""

    name = "the file server"

    def __init__(self, root: Path, *, own_session: bool = False) -> None:
        super().__init__(startup_timeout_s=30.0, log_path=root / "server.log")
        self.root = root
        self.own_session = own_session

    def command(self) -> list[str]:
        return [sys.executable, "-m", "http.server", str(self.port), "--bind", "127.0.0.1",
                "--directory", str(self.root)]  # fmt: skip


@pytest.mark.parametrize("own_session", [False, True])
def test_the_server_answers_in_the_block_and_is_gone_after(
    tmp_path: Path, own_session: bool
) -> None:
    (tmp_path / "v1").mkdir()
    (tmp_path / "v1" / "models").write_text('{"data": []}')
    server = StaticServer(tmp_path, own_session=own_session)
    with server:
        assert server.startup_s is not None
        assert httpx.get(f"{server.base_url}/models").json() == {"data": []}
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{server.base_url}/models", timeout=2.0)


def test_a_server_that_exits_at_start_up_is_named(tmp_path: Path) -> None:
    class Broken(StaticServer):
        def command(self) -> list[str]:
            return [sys.executable, "-c", "raise SystemExit(3)"]

    with pytest.raises(RuntimeError, match=r"the file server exited with code 3 at start-up"):
        Broken(tmp_path).__enter__()
