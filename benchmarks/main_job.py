"""The main job (``dicode run``, what ``make run`` runs) as a benchmark's background: started
in its own process with its runs folder and API port, stopped as Ctrl-C stops it."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from dicode.provenance import ROOT


@contextmanager
def main_job(
    runs_dir: Path, port: int, minutes: float, *extra: str, profile: str = "quick"
) -> Iterator[subprocess.Popen[bytes]]:
    """``dicode run --profile <profile>`` (no Ray dashboard) for at most ``minutes``; a job that
    ended with an error raises `SystemExit` with the end of its log when the block ends."""
    command = [
        str(Path(sys.executable).with_name("dicode")), "run", "--profile", profile,
        "--runs-dir", str(runs_dir), "--port", str(port), "--no-dashboard",
        "--minutes", str(minutes), *extra,
    ]  # fmt: skip
    job = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        yield job
    finally:
        job.send_signal(signal.SIGINT)  # what Ctrl-C does: a clean stop
        try:
            _, err = job.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            job.kill()
            _, err = job.communicate()
    if job.returncode not in (0, -signal.SIGINT, 130):
        raise SystemExit(f"dicode run ended with {job.returncode}: {err.decode()[-2000:]}")
