"""The sandbox runner: isolation, limits, and a caller that survives whatever a level does."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from dicode.levels.sandbox import (
    NO_BWRAP_WARNING,
    PROJECT_ROOT,
    UNSAFE_OPT_IN,
    WORKER_SCRIPT,
    SandboxLimits,
    SandboxPool,
)

from .helpers import TETRIS_BUILDER, TETRIS_SCHEMA, require_bubblewrap, stray_workers

# Reaches the real os module without imports: only possible with the static policy bypassed,
# which is exactly what these tests do to probe the process boundary itself.
FIND_OS = """
def find_os():
    for cls in ().__class__.__base__.__subclasses__():
        if cls.__name__ == "_wrap_close":
            return cls.__init__.__globals__
"""
GARBAGE_LEVEL = '"""Garbage."""\ndef build(level, rng):\n    level.garbage(5, holes=2)\n'


@pytest.fixture(scope="module")
def pool() -> Iterator[SandboxPool]:
    require_bubblewrap()
    with SandboxPool(
        TETRIS_BUILDER, TETRIS_SCHEMA, warm=2, limits=SandboxLimits(wall_seconds=4.0, cpu_seconds=2)
    ) as pool:
        yield pool


def test_pool_arrays_follow_the_schema_and_the_seed(pool: SandboxPool) -> None:
    first = pool.build(GARBAGE_LEVEL, pool_size=8, seed=1)
    again = pool.build(GARBAGE_LEVEL, pool_size=8, seed=1)
    other = pool.build(GARBAGE_LEVEL, pool_size=8, seed=2)
    assert first.ok and again.ok and other.ok
    assert first.arrays is not None and again.arrays is not None and other.arrays is not None
    assert first.arrays["board"].shape == (8, 20, 10) and first.arrays["board"].dtype == np.uint8
    np.testing.assert_array_equal(first.arrays["board"], again.arrays["board"])
    assert not np.array_equal(first.arrays["board"], other.arrays["board"])
    # Instances differ from each other: per-instance seeds.
    assert len({first.arrays["board"][i].tobytes() for i in range(8)}) > 1


def test_level_code_runs_in_another_process_with_an_empty_environment(pool: SandboxPool) -> None:
    os.environ["DICODE_SANDBOX_TEST_SECRET"] = "hunter2"
    try:
        source = FIND_OS + (
            "def build(level, rng):\n"
            "    o = find_os()\n"
            "    raise ValueError(f\"pid={o['getpid']()} env={dict(o['environ'])}\")\n"
        )
        result = pool.build('"""Probe."""\n' + source, pool_size=1)
    finally:
        del os.environ["DICODE_SANDBOX_TEST_SECRET"]
    assert not result.ok and result.error is not None
    match = re.search(r"pid=(\d+)", result.error)
    assert match and int(match.group(1)) != os.getpid()
    assert "hunter2" not in result.error and "DICODE" not in result.error


def test_a_crashing_worker_is_reported_and_the_pool_keeps_serving(pool: SandboxPool) -> None:
    source = FIND_OS + (
        "def build(level, rng):\n"
        "    find_os()['__builtins__']['__import__']('ctypes').string_at(0)\n"
    )
    result = pool.build('"""Crash."""\n' + source, pool_size=1)
    assert not result.ok
    assert "SIGSEGV" in str(result.error)
    assert pool.build(GARBAGE_LEVEL, pool_size=2).ok
    assert stray_workers(pool) == []


def test_sleeping_is_refused_by_the_system_call_filter(pool: SandboxPool) -> None:
    source = FIND_OS + (
        "def build(level, rng):\n    find_os()['__builtins__']['__import__']('time').sleep(100)\n"
    )
    result = pool.build('"""Sleep."""\n' + source, pool_size=1)
    assert not result.ok
    assert "PermissionError" in str(result.error) and result.run_seconds < 3


def test_a_hanging_level_is_killed_at_the_wall_clock_limit(pool: SandboxPool) -> None:
    """A busy loop with more CPU seconds allowed than wall-clock seconds: the wall clock ends it."""
    limits = SandboxLimits(wall_seconds=3.0, cpu_seconds=30)
    with SandboxPool(TETRIS_BUILDER, TETRIS_SCHEMA, warm=1, limits=limits) as slow:
        result = slow.build('"""Hang."""\ndef build(level, rng):\n    while True:\n        pass\n')
        assert not result.ok
        assert "timeout" in str(result.error)
        assert 2.5 < result.run_seconds < 15  # the 3 s limit plus killing and reaping under load
        assert slow.build(GARBAGE_LEVEL, pool_size=2).ok
        assert stray_workers(slow, pool) == []


def test_concurrent_builds_from_several_threads(pool: SandboxPool) -> None:
    results = []

    def work(seed: int) -> None:
        results.append(pool.build(GARBAGE_LEVEL, pool_size=4, seed=seed))

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 4 and all(r.ok for r in results)


def test_oversized_answers_are_refused() -> None:
    with SandboxPool(
        TETRIS_BUILDER, TETRIS_SCHEMA, warm=1, limits=SandboxLimits(answer_bytes=2_000)
    ) as small:
        result = small.build(GARBAGE_LEVEL, pool_size=32)
    assert not result.ok
    assert "answer exceeded 2000 bytes" in str(result.error)


def test_printing_is_captured_not_leaked(
    pool: SandboxPool, capfd: pytest.CaptureFixture[str]
) -> None:
    result = pool.build('"""Chatty."""\ndef build(level, rng):\n    print("hello")\n', pool_size=2)
    assert result.ok and result.printed == "hello\nhello\n"
    assert "hello" not in capfd.readouterr().out


def test_the_opt_in_without_bubblewrap_keeps_seccomp_and_rlimits_with_a_loud_warning(
    pool: SandboxPool, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setenv(UNSAFE_OPT_IN, "1")
    with SandboxPool(
        TETRIS_BUILDER, TETRIS_SCHEMA, warm=1, limits=SandboxLimits(wall_seconds=4.0)
    ) as plain:
        assert NO_BWRAP_WARNING in caplog.text and not plain.isolated
        good = plain.build(GARBAGE_LEVEL, pool_size=2)
        forker = FIND_OS + "def build(level, rng):\n    find_os()['fork']()\n"
        bad = plain.build('"""Fork."""\n' + forker, pool_size=1)
        reader = FIND_OS + (
            "def build(level, rng):\n"
            "    o = find_os()\n"
            "    o['read'](o['open'](f\"/proc/{o['getppid']()}/environ\", 0), 100)\n"
        )
        read = plain.build('"""Read."""\n' + reader, pool_size=1)
        assert stray_workers(plain, pool) == []
    assert good.ok and NO_BWRAP_WARNING in good.warnings
    assert not bad.ok and "Operation not permitted" in str(bad.error)
    assert not read.ok and "Operation not permitted" in str(read.error)


def test_open_is_refused_even_for_files_bubblewrap_shows(pool: SandboxPool) -> None:
    source = FIND_OS + (
        "def build(level, rng):\n"
        "    o = find_os()\n"
        f"    raise ValueError(o['read'](o['open']({str(WORKER_SCRIPT)!r}, 0), 200))\n"
    )
    result = pool.build('"""Read the worker."""\n' + source, pool_size=1)
    assert not result.ok and "Operation not permitted" in str(result.error)
    assert "one-shot sandbox worker" not in str(result.error)


def test_bubblewrap_hides_the_host_filesystem(pool: SandboxPool) -> None:
    """stat is allowed (it reads no content): what it sees is bubblewrap's view of the host."""
    paths = ("/etc/passwd", "/etc", "/home", "/var", "/opt", str(PROJECT_ROOT / "pyproject.toml"))
    source = FIND_OS + (
        "def build(level, rng):\n"
        "    o = find_os()\n"
        "    seen = []\n"
        f"    for path in {paths!r}:\n"
        "        try:\n"
        "            o['stat'](path)\n"
        "            seen.append(path)\n"
        "        except Exception:\n"
        "            pass\n"
        "    raise ValueError(f'visible={seen}')\n"
    )
    result = pool.build('"""Look around."""\n' + source, pool_size=1)
    assert not result.ok and result.warnings == []
    assert "visible=[]" in str(result.error)


def test_workers_die_with_a_caller_that_is_killed(pool: SandboxPool) -> None:
    """A caller killed outright (SIGKILL, no clean-up) leaves no sandbox worker behind."""
    script = (
        "import sys, time\n"
        "from dicode.levels.sandbox import SandboxPool\n"
        f"pool = SandboxPool({TETRIS_BUILDER!r}, {{}}, warm=2)\n"
        "while len(pool.idle_pids()) < 2:\n"
        "    time.sleep(0.05)\n"
        "print(*pool.idle_pids(), flush=True)\n"
        "time.sleep(60)\n"
    )
    caller = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)},
    )
    assert caller.stdout is not None
    worker_pids = [int(pid) for pid in caller.stdout.readline().split()]
    assert len(worker_pids) == 2
    caller.kill()
    caller.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(pid) for pid in worker_pids):
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in worker_pids)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited; only its parent's wait is missing


def test_the_worker_side_imports_neither_jax_nor_flax() -> None:
    """The builder and worker run in every sandbox process; JAX would cost seconds there."""
    probe = (
        "import sys\n"
        f"sys.path.insert(0, {str(PROJECT_ROOT)!r})\n"
        "import dicode.domains.tetris.builder, dicode.levels.worker, dicode.levels.seccomp\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('jax', 'flax', 'jaxlib')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-I", "-c", probe], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
