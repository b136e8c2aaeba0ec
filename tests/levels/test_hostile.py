"""Every hostile level is rejected with a clear error and leaves no trace.

For each file in tests/hostile_levels: the verdict names the expected stage and error; no file
appeared; the socket the test listens on saw no connection; no worker process is left; the
secret planted in the test's environment and in a file appears in no output. Files marked
``# wall:`` are also run straight through the sandbox, skipping the static policy, to show
the process boundary holds on its own. The escapes are also submitted through the real API:
no secret reaches an attempt row or a response.
"""

from __future__ import annotations

import os
import re
import resource
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from archive_db import ArchiveRepository
from dicode import domains
from dicode.levels.pipeline import Validator
from dicode.levels.sandbox import SandboxLimits
from services.api.app import create_app
from tests.services.conftest import ServerThread, new_run

from .helpers import require_bubblewrap, stray_workers

HOSTILE_DIR = Path(__file__).resolve().parents[1] / "hostile_levels"
HOSTILE_FILES = sorted(HOSTILE_DIR.glob("*.py"))
WALL_FILES = [path for path in HOSTILE_FILES if "# wall:" in path.read_text()]
PLACEHOLDER_PORT = "47613"
PLACEHOLDER_PREFIX = "/tmp/dicode_hostile"
LIMITS = SandboxLimits(wall_seconds=5.0, cpu_seconds=2)


def _header(source: str, key: str) -> str:
    match = re.search(rf"^# {key}: (.*)$", source, re.MULTILINE)
    assert match, f"hostile level lacks a '# {key}:' line"
    return match.group(1).strip()


@pytest.fixture(scope="module")
def secret() -> Iterator[str]:
    token = f"dicode-secret-{uuid.uuid4().hex}"
    os.environ["DICODE_HOSTILE_SECRET"] = token
    yield token
    del os.environ["DICODE_HOSTILE_SECRET"]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory, secret: str) -> Path:
    """A directory standing in for /tmp: hostile paths point here; it holds a secret file."""
    root = tmp_path_factory.mktemp("hostile")
    (root / "dicode_hostile_secret.txt").write_text(secret)
    return root


@pytest.fixture(scope="module")
def listener() -> Iterator[socket.socket]:
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.setblocking(False)
    yield server
    server.close()


@pytest.fixture(scope="module")
def validator(secret: str) -> Iterator[Validator]:
    require_bubblewrap()
    # Created after the secret is in os.environ: workers must not inherit it.
    # No engine rollouts: every hostile level is rejected before the engine would run.
    with Validator(
        domains.get("tetris"), pool_size=4, warm=2, limits=LIMITS, rollouts=False
    ) as validator:
        yield validator


def _materialise(path: Path, workspace: Path, listener: socket.socket) -> str:
    source = path.read_text()
    port = str(listener.getsockname()[1])
    return source.replace(PLACEHOLDER_PREFIX, str(workspace / "dicode_hostile")).replace(
        PLACEHOLDER_PORT, port
    )


def _assert_no_side_effects(
    validator: Validator, workspace: Path, listener: socket.socket, outputs: list[str], secret: str
) -> None:
    assert sorted(p.name for p in workspace.iterdir()) == ["dicode_hostile_secret.txt"]
    assert not list(Path("/tmp").glob("dicode_hostile_pwned*"))
    with pytest.raises(BlockingIOError):
        connection, _ = listener.accept()
        connection.close()
    assert stray_workers(validator.sandbox) == []
    for text in outputs:
        assert secret not in text


@pytest.mark.parametrize("path", HOSTILE_FILES, ids=[p.stem for p in HOSTILE_FILES])
def test_hostile_level_is_rejected_without_side_effects(
    path: Path,
    validator: Validator,
    workspace: Path,
    listener: socket.socket,
    secret: str,
    capfd: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    source = _materialise(path, workspace, listener)
    verdict = validator.validate(source)

    assert not verdict.accepted
    assert verdict.bundle is None
    assert verdict.stage == _header(source, "expect-stage"), verdict.error
    assert verdict.error and re.search(_header(source, "expect-error"), verdict.error), (
        verdict.error
    )
    captured = capfd.readouterr()
    outputs = [verdict.to_json(), captured.out, captured.err, caplog.text]
    _assert_no_side_effects(validator, workspace, listener, outputs, secret)


@pytest.mark.parametrize("path", WALL_FILES, ids=[p.stem for p in WALL_FILES])
def test_sandbox_alone_contains_escape_attempts(
    path: Path,
    validator: Validator,
    workspace: Path,
    listener: socket.socket,
    secret: str,
    capfd: pytest.CaptureFixture[str],
) -> None:
    """Static policy bypassed: the level runs in the sandbox, and still nothing gets out."""
    source = _materialise(path, workspace, listener)
    started = time.perf_counter()
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = validator.sandbox.build(source, pool_size=2)
    seconds = time.perf_counter() - started

    if _header(source, "wall") == "rejected":
        assert not result.ok
        assert result.error
    if "# wall-error:" in source:
        assert re.search(_header(source, "wall-error"), str(result.error)), result.error
    if result.ok:  # whatever the level did, an accepted pool has exactly the requested size
        assert result.arrays and {a.shape[0] for a in result.arrays.values()} == {2}
    if result.bad_answer:  # a forged answer costs the parent neither time nor memory
        assert result.run_seconds < 2.0 and seconds < 2.0 + LIMITS.startup_seconds
        assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before < 200 * 1024
    captured = capfd.readouterr()
    outputs = [str(result.error), result.printed, *result.warnings, captured.out, captured.err]
    _assert_no_side_effects(validator, workspace, listener, outputs, secret)


def test_escapes_submitted_through_the_api_leave_no_secret(
    validator: Validator,
    workspace: Path,
    listener: socket.socket,
    secret: str,
    tmp_path: Path,
) -> None:
    """The leak channel: an error text is stored as an attempt and served by the API."""
    url = f"sqlite:///{tmp_path}/archive.sqlite"
    repo = ArchiveRepository.open(url)
    new_run(repo, "hostile")
    token = {"Authorization": "Bearer hostile-token"}
    app = create_app(url, api_token="hostile-token", validator=validator)
    answers: list[str] = []
    with ServerThread(app) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        for path in WALL_FILES:
            code = _materialise(path, workspace, listener)
            answer = client.post("/api/runs/hostile/levels", json={"code": code}, headers=token)
            assert answer.status_code == 422, (path.name, answer.text)
            answers.append(answer.text)
        listing = client.get("/api/runs/hostile/attempts", params={"limit": 500})
        answers.append(listing.text)
        for attempt in listing.json()["items"]:
            answers.append(client.get(f"/api/attempts/{attempt['id']}").text)
    rows = [repr(a) for a in repo.attempts.listing(repo.runs.get("hostile").id)]
    repo.close()
    assert len(rows) == len(WALL_FILES)
    _assert_no_side_effects(validator, workspace, listener, answers + rows, secret)


def test_there_are_enough_hostile_levels() -> None:
    assert len(HOSTILE_FILES) >= 60
    assert len(WALL_FILES) >= 18
