"""The sandbox fails closed: without its walls no level code runs, and every caller says why.

Covered: no bubblewrap on PATH, a bubblewrap that cannot create namespaces, a worker that
cannot install its rlimits; the validator, ``dicode levels validate``, ``dicode run``, the
generator and the experiment runner each refuse with the reason and the fix. Only
``DICODE_UNSAFE_NO_BUBBLEWRAP=1`` opts out (tested in test_sandbox.py).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from archive_db import ArchiveRepository
from archive_db.kinds import GENERATOR_STAGE
from archive_db.records import AttemptFilter
from dicode import domains
from dicode.domains.tetris.seeds import seed_level_sources
from dicode.levels.pipeline import Validator
from dicode.levels.sandbox import (
    PROJECT_ROOT,
    UNSAFE_OPT_IN,
    WORKER_SCRIPT,
    SandboxPool,
    SandboxUnavailable,
)
from dicode.levels.verdict import SANDBOX_UNAVAILABLE
from services.generator.service import Generator
from tests.services.conftest import TINY, new_run

from .helpers import TETRIS_BUILDER, TETRIS_SCHEMA, require_bubblewrap

LEVEL = seed_level_sources()["01_tetris_well"]
NO_BWRAP_PATH = "/nonexistent-dicode-path"


@pytest.fixture
def without_bubblewrap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", NO_BWRAP_PATH)
    monkeypatch.delenv(UNSAFE_OPT_IN, raising=False)


def _my_workers() -> list[int]:
    """Sandbox worker processes this test process started (bubblewrap or the worker itself)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError):
            continue
        if str(WORKER_SCRIPT) in cmdline and parent == os.getpid():
            found.append(int(entry.name))
    return found


def test_no_bubblewrap_no_worker_and_a_reason_with_the_fix(without_bubblewrap: None) -> None:
    before = _my_workers()
    with SandboxPool(TETRIS_BUILDER, TETRIS_SCHEMA, warm=2) as pool:
        assert pool.unavailable is not None
        result = pool.build(LEVEL, pool_size=2)
        assert pool.idle_pids() == [] and _my_workers() == before
    assert result.unavailable and not result.ok and result.arrays is None
    message = str(result.error)
    assert "bubblewrap" in message and "apt-get install bubblewrap" in message
    assert UNSAFE_OPT_IN in message


def test_the_validator_names_the_stage_and_keeps_going(without_bubblewrap: None) -> None:
    with Validator(domains.get("tetris"), pool_size=2, warm=1, rollouts=False) as validator:
        first = validator.validate(LEVEL)
        again = validator.validate(LEVEL)
    for verdict in (first, again):
        assert not verdict.accepted and verdict.bundle is None
        assert verdict.stage == SANDBOX_UNAVAILABLE
        assert verdict.error and "bubblewrap" in verdict.error


def test_a_bubblewrap_that_cannot_create_namespaces_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Stands in for a host that forbids unprivileged user namespaces (what bwrap then prints).
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv(UNSAFE_OPT_IN, raising=False)
    with SandboxPool(TETRIS_BUILDER, TETRIS_SCHEMA, warm=1) as pool:
        result = pool.build(LEVEL, pool_size=1)
    assert result.unavailable
    assert "cannot create its namespaces" in str(result.error)
    assert "No permissions to create new namespace" in str(result.error)
    assert "unprivileged_userns_clone" in str(result.error)
    assert "docs/levels.md" in str(result.error)


def test_a_worker_that_cannot_set_its_rlimits_refuses_the_level() -> None:
    """A hard open-files limit below the worker's own cap: the rlimit cannot be installed."""
    require_bubblewrap()
    script = (
        "import resource\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (32, 32))\n"
        "from dicode.levels.sandbox import SandboxPool\n"
        "from dicode import domains\n"
        "schema = domains.get('tetris').pool_schema\n"
        f"with SandboxPool({TETRIS_BUILDER!r}, schema, warm=1) as pool:\n"
        f"    result = pool.build({LEVEL!r}, pool_size=1)\n"
        "print(result.unavailable)\n"
        "print(result.error)\n"
    )
    answer = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)},
    )
    assert answer.returncode == 0, answer.stderr
    unavailable, error = answer.stdout.splitlines()[:2]
    assert unavailable == "True"
    assert "could not put up its walls" in error and "RLIMIT_NOFILE" in error


def _dicode(
    *args: str, path: str, module: str = "services.cli"
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != UNSAFE_OPT_IN}
    env["PATH"] = path
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=PROJECT_ROOT,
        env=env,
    )


def test_levels_validate_exits_2_with_the_reason_and_the_fix(tmp_path: Path) -> None:
    level = tmp_path / "level.py"
    level.write_text(LEVEL)
    answer = _dicode("levels", "validate", str(level), path=NO_BWRAP_PATH)
    assert answer.returncode == 2, answer.stdout + answer.stderr
    assert "bubblewrap" in answer.stderr and "apt-get install bubblewrap" in answer.stderr
    assert UNSAFE_OPT_IN in answer.stderr
    assert "ACCEPTED" not in answer.stdout


def test_dicode_run_refuses_to_start(tmp_path: Path) -> None:
    answer = _dicode(
        "run", "--minutes", "1", "--runs-dir", str(tmp_path), "--no-dashboard",
        path=NO_BWRAP_PATH,
    )  # fmt: skip
    assert answer.returncode == 2, answer.stdout + answer.stderr
    assert "bubblewrap" in answer.stderr and UNSAFE_OPT_IN in answer.stderr
    assert not any(tmp_path.iterdir())  # no run was created


def test_the_experiment_runner_refuses_a_curriculum_arm_before_any_run(tmp_path: Path) -> None:
    figures = tmp_path / "figures.json"
    answer = _dicode(
        "maze_long_paths", "--variants", "target,dicode_skills", "--out", str(tmp_path / "runs"),
        "--figures", str(figures), path=NO_BWRAP_PATH, module="benchmarks.experiment",
    )  # fmt: skip
    assert answer.returncode == 2, answer.stdout + answer.stderr
    assert "bubblewrap" in answer.stderr and UNSAFE_OPT_IN in answer.stderr
    assert not figures.exists() and not (tmp_path / "runs").exists()


def test_seeding_without_walls_stores_nothing_and_seeds_once_they_are_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refused seed is not the level's fault: stored as rejected, it would never be tried
    again, and the run would have no parent to generate from."""
    require_bubblewrap()
    repo = ArchiveRepository.open(f"sqlite:///{tmp_path}/archive.sqlite")
    run_id = new_run(repo)
    settings = replace(TINY.generator, sandbox_retry_s=0.05)
    with monkeypatch.context() as walled:
        walled.setenv("PATH", NO_BWRAP_PATH)
        walled.delenv(UNSAFE_OPT_IN, raising=False)
        with Validator(domains.get("tetris"), pool_size=2, warm=1, rollouts=False) as walled_off:
            generator = Generator(repo, run_id, settings, TINY.archive, validator=walled_off)
            with pytest.raises(SandboxUnavailable, match="bubblewrap"):
                generator.seed_archive()

            async def serve_briefly() -> None:  # the service waits for the sandbox; it keeps going
                stop = asyncio.Event()
                asyncio.get_running_loop().call_later(0.5, stop.set)
                await generator.run(stop)

            asyncio.run(serve_briefly())
            assert generator.stats.started == 0 and not generator.may_start()
    assert repo.attempts.listing(run_id) == []
    with Validator(domains.get("tetris"), pool_size=2, warm=1, rollouts=False) as validator:
        generator = Generator(repo, run_id, TINY.generator, TINY.archive, validator=validator)
        assert generator.seed_archive() == len(domains.get("tetris").seed_sources())
    assert all(a.verdict == "accepted" for a in repo.attempts.listing(run_id))
    repo.close()


def test_the_generator_stores_refused_attempts_with_their_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_bubblewrap()
    before = _my_workers()
    repo = ArchiveRepository.open(f"sqlite:///{tmp_path}/archive.sqlite")
    run_id = new_run(repo)
    with Validator(domains.get("tetris"), pool_size=4, warm=1, rollouts=False) as validator:
        Generator(repo, run_id, TINY.generator, TINY.archive, validator=validator).seed_archive()
    monkeypatch.setenv("PATH", NO_BWRAP_PATH)
    monkeypatch.delenv(UNSAFE_OPT_IN, raising=False)
    with Validator(domains.get("tetris"), pool_size=4, warm=1, rollouts=False) as walled_off:
        generator = Generator(repo, run_id, TINY.generator, TINY.archive, validator=walled_off)
        generator.generate(2)
        assert not generator.may_start()  # it waits before trying again
    refused = repo.attempts.listing(run_id, AttemptFilter(failing_stage=SANDBOX_UNAVAILABLE))
    assert len(refused) == 2
    for attempt in refused:
        assert attempt.verdict == "rejected" and attempt.code and "def build" in attempt.code
        assert attempt.error and "bubblewrap" in attempt.error
    assert _my_workers() == before  # the walled-off validator started no worker
    repo.close()


def test_an_attempt_that_fails_outside_the_teacher_is_stored(tmp_path: Path) -> None:
    require_bubblewrap()
    repo = ArchiveRepository.open(f"sqlite:///{tmp_path}/archive.sqlite")
    run_id = new_run(repo)  # no seed levels: there is no parent to draw
    with Validator(domains.get("tetris"), pool_size=4, warm=1, rollouts=False) as validator:
        generator = Generator(repo, run_id, TINY.generator, TINY.archive, validator=validator)
        asyncio.run(generator.attempt(1))
    stored = repo.attempts.listing(run_id)
    assert len(stored) == 1
    assert stored[0].failing_stage == GENERATOR_STAGE and stored[0].verdict == "rejected"
    assert stored[0].error and "no level to generate from" in stored[0].error
    repo.close()
