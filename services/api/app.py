"""The archive's REST API: read-only inspection, two guarded mutations, a web page.

``create_app(db_url)`` assembles one router per resource (``services.api.routers``) over one
repository held in ``app.state`` and handed to routes by `deps.get_repository`. Runs are
addressed by name or numeric id. Mutations (pause/resume generation, submit a hand-written
level) need ``Authorization: Bearer $DICODE_API_TOKEN``; without a configured token they are
disabled. Errors answer ``{"detail": ...}`` (FastAPI's list for malformed requests).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles

from archive_db import ArchiveError, ArchiveRepository, NotFoundError
from dicode.levels.pipeline import Validator
from dicode.provenance import FIGURES
from services.api.metrics import RequestCounter, api_registry
from services.api.routers import (
    attempts,
    control,
    dashboard,
    experiments,
    levels,
    lineage,
    pages,
    runs,
    service,
    submissions,
)
from services.api.sandbox import Sandboxes

STATIC = Path(__file__).with_name("static")


def create_app(
    db_url: str,
    *,
    api_token: str | None = None,
    validator: Validator | None = None,
    figures: Path = FIGURES,
) -> FastAPI:
    """The API over the archive at ``db_url`` (opened, and migrated, once). ``validator``
    (optional) is a sandbox pool to validate submissions with; the caller closes it.
    ``figures`` is the directory whose experiment documents ``/experiments`` shows."""
    repository = ArchiveRepository.open(db_url)
    sandboxes = Sandboxes(validator)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        sandboxes.close()
        repository.close()

    app = FastAPI(
        lifespan=lifespan,
        title="dicode archive API",
        version="0.2.0",
        description="Runs, levels, lineage, generation attempts and metrics of dicode runs.",
    )
    app.state.repository = repository
    app.state.api_token = api_token
    app.state.sandboxes = sandboxes
    app.state.figures = figures
    app.state.registry, requests = api_registry(repository)
    app.add_middleware(RequestCounter, counter=requests)
    app.add_exception_handler(NotFoundError, _not_found)
    app.add_exception_handler(ArchiveError, _bad_record)
    for module in (
        service,
        runs,
        dashboard,
        experiments,
        levels,
        attempts,
        lineage,
        control,
        submissions,
        pages,
    ):
        app.include_router(module.router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


async def _not_found(_: Request, error: Exception) -> JSONResponse:
    return JSONResponse({"detail": str(error)}, status_code=404)


async def _bad_record(_: Request, error: Exception) -> JSONResponse:
    return JSONResponse({"detail": str(error)}, status_code=422)
