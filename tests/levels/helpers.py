"""Shared helpers for the levels tests: the bubblewrap requirement and process inspection for
side-effect checks."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from dicode import domains
from dicode.levels.sandbox import WORKER_SCRIPT, SandboxPool, isolation_problem

TETRIS_BUILDER = domains.get("tetris").builder_module
TETRIS_SCHEMA = domains.get("tetris").pool_schema


def require_bubblewrap() -> None:
    """Skip without a working bubblewrap; under CI=true fail instead (the walls must be tested)."""
    problem = isolation_problem()
    if problem is None:
        return
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"CI=true and the sandbox walls cannot be tested: {problem}")
    pytest.skip(problem)


def _processes() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) for every process we can see."""
    table: dict[int, tuple[int, str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        table[int(entry.name)] = (parent, cmdline)
    return table


def stray_workers(*pools: SandboxPool, settle_seconds: float = 5.0) -> list[str]:
    """Worker processes that are not warm idle workers of ``pools`` (or their children).

    Polls for up to ``settle_seconds`` so a worker that the pool is starting right now (not yet
    idle) is not mistaken for one left behind.
    """
    deadline = time.monotonic() + settle_seconds
    while True:
        table = _processes()
        allowed = {pid for pool in pools for pid in pool.idle_pids()}
        changed = True
        while changed:
            children = {pid for pid, (ppid, _) in table.items() if ppid in allowed}
            changed = not children <= allowed
            allowed |= children
        stray = [
            f"{pid}: {cmd}"
            for pid, (_, cmd) in table.items()
            if str(WORKER_SCRIPT) in cmd and pid not in allowed and _ours_or_orphaned(pid, table)
        ]
        if not stray or time.monotonic() > deadline:
            return stray
        time.sleep(0.2)


def _ours_or_orphaned(pid: int, table: dict[int, tuple[int, str]]) -> bool:
    """Was the worker ``pid`` started by this test process, or left to init? Workers that
    another program on the machine started, alive under it, are not ours to judge."""
    while pid in table and str(WORKER_SCRIPT) in table[pid][1]:
        pid = table[pid][0]  # up through bubblewrap and the worker itself
    return pid == os.getpid() or pid in (0, 1) or pid not in table
