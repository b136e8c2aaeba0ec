"""Liveness for container healthchecks: a service touches a file; the check reads its age.

``python -m services.heartbeat PATH [MAX_AGE_S]`` exits 0 if PATH was touched within MAX_AGE_S.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path


def touch(path: str | Path) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).touch()


async def beat(path: str | Path, every_s: float = 10.0) -> None:
    """Touch ``path`` every ``every_s`` seconds, forever (run it as a task)."""
    while True:
        await asyncio.to_thread(touch, path)
        await asyncio.sleep(every_s)


def fresh(path: str | Path, max_age_s: float) -> bool:
    try:
        return time.time() - Path(path).stat().st_mtime <= max_age_s
    except FileNotFoundError:
        return False


if __name__ == "__main__":
    target = sys.argv[1] if len(sys.argv) > 1 else "/tmp/dicode.heartbeat"
    max_age = float(sys.argv[2]) if len(sys.argv) > 2 else 60.0
    sys.exit(0 if fresh(target, max_age) else 1)
