"""The generator as a Ray actor (embedded mode): an async actor running `Generator.run`."""

from __future__ import annotations

import asyncio
from typing import Any

import ray
from ray.util import metrics

from archive_db import ArchiveRepository
from services.generator.service import Generator
from services.placement import current_node
from services.runs import stored_settings


class GeneratorWorker:
    """Owns a `Generator` and its sandbox pool; `run()` until `stop()`.

    ``stream`` separates the parent draws of several generator actors on one run (as the pid does
    for generator processes); None keeps the single generator's draws.
    """

    def __init__(
        self, db_url: str, run_id: int, config: dict[str, Any], stream: int | None = None
    ) -> None:
        settings = stored_settings(config)
        self.repo = ArchiveRepository.open(db_url)
        self.generator = Generator(
            self.repo,
            run_id,
            settings.generator,
            settings.archive,
            domain=settings.domain,
            seed=settings.seed,
            stream=stream,
        )
        self._stop: asyncio.Event | None = None
        self._latency = metrics.Gauge("dicode_teacher_latency_s", "last attempt's latency")

    async def run(self, max_attempts: int | None = None) -> dict[str, Any]:
        self._stop = asyncio.Event()
        try:
            stats = await self.generator.run(self._stop, max_attempts)
        finally:
            await asyncio.to_thread(self.generator.close)
        return stats.as_dict()

    async def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    async def status(self) -> dict[str, Any]:
        """The generator's counters and the Ray node it runs on."""
        stats = self.generator.stats.as_dict()
        if stats["last_latency_s"] is not None:
            self._latency.set(float(stats["last_latency_s"]))
        return stats | {"node_id": current_node()}


# Async actor: attempts, status() and stop() share its event loop.
_OPTIONS: dict[str, Any] = {"num_cpus": 0, "max_concurrency": 8}
GeneratorActor: Any = ray.remote(**_OPTIONS)(GeneratorWorker)
