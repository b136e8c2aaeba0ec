"""Prometheus exposition of the API: archive counts per run (read at scrape time) and a
request counter by route template and status code."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client import CollectorRegistry, Counter
from prometheus_client.core import GaugeMetricFamily
from sqlalchemy.exc import SQLAlchemyError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from archive_db import ArchiveRepository

COUNTS = ("levels", "accepted", "rejected", "edges", "active")


def api_registry(repo: ArchiveRepository) -> tuple[CollectorRegistry, Counter]:
    """A registry of its own per app (several apps may live in one process) and its counter."""
    registry = CollectorRegistry()
    registry.register(_ArchiveCollector(repo))
    requests = Counter("dicode_api_requests", "API requests", ["path", "code"], registry=registry)
    return registry, requests


class RequestCounter:
    """ASGI middleware: counts each answered request under its route's template."""

    def __init__(self, app: ASGIApp, counter: Counter) -> None:
        self.app = app
        self.counter = counter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 500

        async def noting_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, noting_status)
        finally:
            # The router leaves the matched route in the scope (templates, not raw paths).
            path = getattr(scope.get("route"), "path", "unmatched")
            self.counter.labels(path, str(status)).inc()


class _ArchiveCollector:
    """Archive counts per run, read at scrape time."""

    def __init__(self, repo: ArchiveRepository) -> None:
        self.repo = repo

    def collect(self) -> Iterator[GaugeMetricFamily]:
        families = {
            key: GaugeMetricFamily(
                f"dicode_archive_{key}", f"archive {key} per run", labels=["run"]
            )
            for key in COUNTS
        }
        try:
            for run in self.repo.runs.all():
                stats = self.repo.statistics.counts(run.id).as_dict()
                for key, family in families.items():
                    family.add_metric([run.name], float(stats[key]))
        except SQLAlchemyError:
            return  # the scrape still answers; /healthz reports the outage
        yield from families.values()
