"""Starting Ray for the embedded service (one machine, inside the `dicode run` process).

Ray ≥ 2.5x turns on token authentication for new local clusters (``RAY_AUTH_MODE``): a token is
generated under ``~/.ray`` and the dashboard asks for it. The embedded run keeps that default
unless the user chose otherwise; ``auth="disabled"`` switches it off for this process (only
sensible on a single trusted machine, e.g. in tests). ``local_mode`` no longer exists, so even
tests start a real local cluster.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import ray


def jax_cache_env() -> dict[str, str]:
    """JAX's persistent compilation cache for every actor: a restarted student, evaluator or
    validator loads its compiled functions instead of compiling them again (minutes on 2 cores).
    """
    default = Path.home() / ".cache" / "dicode" / "jax"
    return {
        "JAX_COMPILATION_CACHE_DIR": os.environ.get("DICODE_JAX_CACHE", str(default)),
        "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "1",
    }


def actor_runtime_env() -> dict[str, Any]:
    """The runtime environment of every actor, on one machine or a cluster of local nodes."""
    return {"env_vars": {
        "PYTHONPATH": os.environ.get("PYTHONPATH", os.getcwd()), **jax_cache_env()
    }}


def start_local_ray(
    *,
    num_cpus: int | None = None,
    dashboard: bool = True,
    dashboard_port: int = 8265,
    auth: str | None = None,
    resources: dict[str, float] | None = None,
) -> dict[str, Any]:
    """``ray.init`` a fresh local cluster; returns where its dashboard is (if any).

    ``resources``: custom resources the one local node carries, so actors placed by resources
    (`services.placement`) still find a node on a single machine.
    """
    if auth is not None:
        os.environ["RAY_AUTH_MODE"] = auth
    context = ray.init(
        # "local": a cluster of its own; without an address ray.init joins any cluster that
        # another process runs on this machine (found through /tmp/ray).
        address="local",
        num_cpus=num_cpus,
        resources=resources or None,
        include_dashboard=dashboard,
        dashboard_host="127.0.0.1",
        dashboard_port=dashboard_port,
        log_to_driver=False,
        ignore_reinit_error=True,
        # Actors import the library from the working tree; never pickle a package upload.
        runtime_env=actor_runtime_env(),
    )
    url = getattr(context, "dashboard_url", None)
    return {"dashboard_url": f"http://{url}" if url else None}
