"""Where figures came from: the commit, the numeric stack's versions, threads and machine.

Every benchmark writes its figures to ``docs/figures/<name>.json`` with this record beside
them, so a figure can be traced and a difference between two runs explained. A copy of the
tree without git (a container image, a tree copied to another machine) takes its commit from
``DICODE_COMMIT``, set by whoever copied it, and records its tree state as unknown.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import threading
import time
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ROOT / "docs" / "figures"
PACKAGES = (
    "numpy", "scipy", "jax", "jaxlib", "flax", "optax", "chex", "craftax", "ray", "sqlalchemy",
)  # fmt: skip
# Names the commit a copy of the tree without git was made from (who copies it sets it).
COMMIT_VARIABLE = "DICODE_COMMIT"
THREAD_VARIABLES = (
    "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "XLA_FLAGS",
    "JAX_PLATFORMS", "TF_NUM_INTRAOP_THREADS",
)  # fmt: skip


def _git(*args: str) -> str:
    try:
        done = subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return done.stdout.strip()


def cpu() -> dict[str, Any]:
    """The processor's model and vector extensions: XLA compiles for the host's instruction set,
    so the same run can differ in its last bits between machines with the same software stack."""
    model: str | None = None
    flags: set[str] = set()
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        text = ""
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "model name" and model is None:
            model = value.strip()
        elif key.strip() == "flags" and not flags:
            flags = set(value.split())
    vector = sorted(f for f in flags if f.startswith(("avx", "fma", "amx", "sse4")))
    return {"model": model or platform.processor() or None, "vector": vector}


def provenance() -> dict[str, Any]:
    """Commit, versions, thread settings and machine of this process."""
    versions: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    commit = _git("rev-parse", "HEAD")
    # Docs do not change figures (and the benchmarks themselves rewrite docs/).
    status = _git("status", "--porcelain", "--untracked-files=no", "--", ":!docs")
    dirty: bool | None = bool(status)
    if commit == "unknown":  # a copy of the tree without git (a container, another machine)
        commit, dirty = os.environ.get(COMMIT_VARIABLE, "unknown"), None
    return {
        "commit": commit,
        "tree_dirty": dirty,  # None: not known (no git beside the tree)
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "cpu": cpu(),
        "affinity": sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "versions": versions,
        "threads": {name: os.environ.get(name) for name in THREAD_VARIABLES},
        "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def load_averages(before: float) -> dict[str, float]:
    """The machine's 1-minute load average when a measurement began (``before``, from
    ``os.getloadavg()[0]``) and now: figures taken on a busy machine say so."""
    return {
        "load_average_before": round(before, 2),
        "load_average_after": round(os.getloadavg()[0], 2),
    }


class LoadMeter:
    """The machine's 1-minute load average, sampled every ``every_s`` seconds on a daemon thread
    while a run trains (a context manager). A long run's cost depends on what shared its cores
    (XLA's CPU threads spin while they wait, so an oversubscribed run burns CPU time without
    working): its record keeps the mean and the peak beside the machine's core count."""

    def __init__(self, every_s: float = 30.0) -> None:
        self.every_s = every_s
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="load-meter", daemon=True)

    def _sample(self) -> None:
        while True:
            self.samples.append(os.getloadavg()[0])
            if self._stop.wait(self.every_s):
                return

    def __enter__(self) -> LoadMeter:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.samples.append(os.getloadavg()[0])

    def figures(self) -> dict[str, float]:
        """``load_average_mean``, ``load_average_max`` over the samples and ``cpus``."""
        return {
            "load_average_mean": round(sum(self.samples) / len(self.samples), 2),
            "load_average_max": round(max(self.samples), 2),
            "cpus": float(os.cpu_count() or 0),
        }


def write_figures(name: str, payload: dict[str, Any]) -> Path:
    """Write ``docs/figures/<name>.json``: the payload plus this process's provenance."""
    FIGURES.mkdir(parents=True, exist_ok=True)
    path = FIGURES / f"{name}.json"
    document = {"benchmark": name, **payload, "provenance": provenance()}
    path.write_text(json.dumps(document, indent=2, sort_keys=False) + "\n")
    return path
