"""The archive's REST API: read-only inspection, two guarded mutations, a web page.

``create_app(db_url)`` builds the FastAPI app (OpenAPI docs at ``/docs``). Runs are addressed
by name or numeric id. Mutations (pause/resume generation, submit a hand-written level) need
``Authorization: Bearer $DICODE_API_TOKEN``; without a configured token they are disabled.
"""

from __future__ import annotations

import io
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

import networkx as nx
from fastapi import Depends, FastAPI, HTTPException, Query, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, generate_latest
from prometheus_client.core import GaugeMetricFamily
from pydantic import BaseModel, Field
from sqlalchemy.exc import SQLAlchemyError

from archive_db import ArchiveError, ArchiveRepository, NotFoundError
from archive_db.records import RunInfo
from dicode.archive.export import graph_json
from dicode.levels.bundle import LevelBundle
from dicode.levels.pipeline import Validator
from dicode.levels.render import render_instances_image, render_instances_text
from dicode.levels.verdict import SANDBOX_UNAVAILABLE, Verdict
from services.api import views
from services.api.auth import require_token
from services.generator.control import is_paused, set_paused
from services.generator.service import HUMAN_TEACHER, record_verdict
from services.student.sessions import SESSION_EVENT
from services.student.target import TARGET_EVENT

STATIC = Path(__file__).with_name("static")
MAX_PAGE = 500
MAX_CODE_CHARS = 100_000
MAX_PREVIEW = 8  # instances drawn by one preview request


class SubmittedLevel(BaseModel):
    """A hand-written level: Python source defining the domain's level contract."""

    code: str = Field(min_length=1, max_length=MAX_CODE_CHARS)
    parent_id: int | None = Field(default=None, ge=1, description="level it derives from")
    name: str | None = Field(default=None, max_length=200)


def create_app(
    db_url: str, *, api_token: str | None = None, validator: Validator | None = None
) -> FastAPI:
    """The API over the archive at ``db_url`` (opened, and migrated, once)."""
    repo = ArchiveRepository.open(db_url)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        for own in app.state.validators.values():
            if own is not validator:
                own.close()
        repo.close()

    app = FastAPI(
        lifespan=lifespan,
        title="dicode archive API",
        version="0.1.0",
        description="Runs, levels, lineage, generation attempts and metrics of dicode runs.",
    )
    app.state.repo = repo
    app.state.api_token = api_token
    # One sandbox pool per domain, started on the first submission to a run of that domain.
    app.state.validators = {} if validator is None else {validator.spec.name: validator}
    app.state.validator_lock = threading.Lock()
    registry = _registry(repo)
    requests_total = Counter(
        "dicode_api_requests", "API requests", ["path", "code"], registry=registry
    )

    @app.middleware("http")
    async def count_requests(request: Request, call_next: Any) -> Response:
        response: Response = await call_next(request)
        route = request.scope.get("route")
        path = getattr(route, "path", "unmatched")
        requests_total.labels(path, str(response.status_code)).inc()
        return response

    @app.exception_handler(NotFoundError)
    async def not_found(_: Request, error: NotFoundError) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, status_code=404)

    @app.exception_handler(ArchiveError)
    async def bad_record(_: Request, error: ArchiveError) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, status_code=422)

    def run_of(run: str) -> RunInfo:
        key: str | int = int(run) if run.isdigit() else run
        return repo.get_run(key)

    def level_in_run(level_id: int) -> Any:
        return repo.get_level(level_id)

    def stored_bundle(level_id: int) -> LevelBundle:
        data = repo.get_bundle(level_id)
        if data is None:
            raise HTTPException(404, f"level {level_id} has no stored bundle")
        try:
            return LevelBundle.from_bytes(data)
        except ValueError as error:
            raise HTTPException(422, f"level {level_id}: {error}") from error

    # ------------------------------------------------------------------ service
    @app.get("/healthz", tags=["service"])
    def healthz() -> dict[str, Any]:
        """Liveness and database reachability."""
        try:
            runs = len(repo.list_runs())
        except SQLAlchemyError as error:
            raise HTTPException(503, f"archive unreachable: {error}") from error
        return {"status": "ok", "runs": runs}

    @app.get("/metrics", tags=["service"], response_class=Response)
    def prometheus() -> Response:
        """Prometheus exposition: archive counts per run and request counters."""
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)

    # ------------------------------------------------------------------ runs
    @app.get("/api/runs", tags=["runs"])
    def list_runs() -> list[dict[str, Any]]:
        return [views.run_view(r) for r in repo.list_runs()]

    @app.get("/api/runs/{run}", tags=["runs"])
    def get_run(run: str) -> dict[str, Any]:
        """A run with its stored config, archive counts and generation state."""
        info = run_of(run)
        return views.run_view(info) | {
            "config": info.config,
            "stats": repo.stats(info.id).as_dict(),
            "generation_paused": is_paused(repo, info.id),
        }

    @app.get("/api/runs/{run}/levels", tags=["levels"])
    def list_levels(
        run: str,
        status: Annotated[Literal["A", "B", "C", "D"] | None, Query()] = None,
        active: bool | None = None,
        teacher: str | None = None,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> dict[str, Any]:
        """Levels of a run, oldest first, filtered and paginated."""
        info = run_of(run)
        levels = repo.list_levels(info.id, status=status, active=active)
        if teacher is not None:
            levels = [lvl for lvl in levels if lvl.teacher == teacher]
        page = levels[offset : offset + limit]
        return {
            "total": len(levels),
            "offset": offset,
            "limit": limit,
            "items": [views.level_summary(lvl) for lvl in page],
        }

    @app.get("/api/runs/{run}/attempts", tags=["attempts"])
    def list_attempts(
        run: str,
        verdict: Annotated[Literal["accepted", "rejected"] | None, Query()] = None,
        teacher: str | None = None,
        failing_stage: str | None = None,
        full: bool = False,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> dict[str, Any]:
        """Generation attempts with their verdicts and errors (``full`` adds code and prompts)."""
        info = run_of(run)
        rows = repo.list_attempts(
            info.id,
            verdict=verdict,
            teacher=teacher,
            failing_stage=failing_stage,
            limit=limit,
            offset=offset,
        )
        return {
            "offset": offset,
            "limit": limit,
            "items": [views.attempt_view(a, full=full) for a in rows],
        }

    @app.get("/api/attempts/{attempt_id}", tags=["attempts"])
    def get_attempt(attempt_id: int) -> dict[str, Any]:
        return views.attempt_view(repo.get_attempt(attempt_id), full=True)

    @app.get("/api/runs/{run}/graph", tags=["lineage"], response_model=None)
    def whole_graph(
        run: str, format: Literal["json", "graphml"] = "json"
    ) -> dict[str, Any] | Response:
        """The run's whole lineage graph as JSON or GraphML."""
        graph = views.lineage_graph(repo, run_of(run).id)
        if format == "graphml":
            buffer = io.BytesIO()
            nx.write_graphml(graph, buffer)
            return Response(buffer.getvalue(), media_type="application/graphml+xml")
        return graph_json(graph)

    @app.get("/api/runs/{run}/metrics", tags=["runs"])
    def run_metrics(run: str, after_id: Annotated[int, Query(ge=0)] = 0) -> dict[str, Any]:
        """Time series: student sessions and target evaluations (each point has its time)."""
        info = run_of(run)
        series: dict[str, list[dict[str, Any]]] = {}
        for kind, name in ((SESSION_EVENT, "student"), (TARGET_EVENT, "target")):
            series[name] = [
                e.payload | {"event_id": e.id, "time": e.created_at.isoformat()}
                for e in repo.list_events(run_id=info.id, kind=kind, after_id=after_id)
            ]
        return series

    # ------------------------------------------------------------------ levels
    @app.get("/api/levels/{level_id}", tags=["levels"])
    def get_level(level_id: int) -> dict[str, Any]:
        """Description, code, bundle summary, performance history, parents and children."""
        return views.level_detail(repo, level_in_run(level_id))

    @app.get("/api/levels/{level_id}/lineage", tags=["lineage"])
    def level_lineage(
        level_id: int, depth: Annotated[int, Query(ge=1, le=50)] = 3
    ) -> dict[str, Any]:
        """Ancestors and descendants of a level up to ``depth`` generations."""
        level = level_in_run(level_id)
        graph = views.lineage_graph(repo, level.run_id)
        return graph_json(views.neighbourhood(graph, level_id, depth)) | {"root": level_id}

    @app.get("/api/levels/{level_id}/preview", tags=["levels"])
    def level_preview(
        level_id: int, instances: Annotated[int, Query(ge=1, le=MAX_PREVIEW)] = 2
    ) -> dict[str, Any]:
        """The first ``instances`` of the level's pool as text, drawn by its domain's renderer
        (Tetris: boards side by side; Craftax: goal, rules, player and a map crop)."""
        bundle = stored_bundle(level_id)
        try:
            text = render_instances_text(bundle, instances)
        except ValueError as error:
            raise HTTPException(422, f"level {level_id}: {error}") from error
        return {"level_id": level_id, "domain": bundle.domain, "text": text}

    @app.get("/api/levels/{level_id}/preview.png", tags=["levels"], response_class=Response)
    def level_preview_png(
        level_id: int, instances: Annotated[int, Query(ge=1, le=MAX_PREVIEW)] = 2
    ) -> Response:
        """The same instances as one PNG strip (Craftax: the player's whole floor)."""
        bundle = stored_bundle(level_id)
        buffer = io.BytesIO()
        try:
            render_instances_image(bundle, instances).save(buffer, format="PNG")
        except ValueError as error:
            raise HTTPException(422, f"level {level_id}: {error}") from error
        return Response(buffer.getvalue(), media_type="image/png")

    # ------------------------------------------------------------------ mutations
    guarded = [Depends(require_token)]

    @app.post("/api/runs/{run}/generation/pause", tags=["control"], dependencies=guarded)
    def pause(run: str) -> dict[str, Any]:
        """Stop starting new generation attempts (those in flight finish)."""
        info = run_of(run)
        set_paused(repo, info.id, True)
        return {"run": info.name, "generation_paused": True}

    @app.post("/api/runs/{run}/generation/resume", tags=["control"], dependencies=guarded)
    def resume(run: str) -> dict[str, Any]:
        info = run_of(run)
        set_paused(repo, info.id, False)
        return {"run": info.name, "generation_paused": False}

    @app.post("/api/runs/{run}/levels", tags=["levels"], dependencies=guarded, status_code=201)
    def submit_level(run: str, body: SubmittedLevel) -> JSONResponse:
        """Validate a hand-written level in the sandbox and record it as an attempt.

        201 with the new level when accepted; 422 with the failing stage and error when the
        sandbox rejects it; 503 when the sandbox cannot put up its walls on this host (the level
        did not run). The attempt is stored in every case.
        """
        info = run_of(run)
        if body.parent_id is not None:
            parent = repo.get_level(body.parent_id)
            if parent.run_id != info.id:
                raise HTTPException(422, f"level {body.parent_id} is not in run {info.name!r}")
        started = time.perf_counter()
        verdict = _validate(app, info.domain, body.code)
        recorded = record_verdict(
            repo,
            info.id,
            info.domain,
            HUMAN_TEACHER,
            body.code,
            verdict,
            time.perf_counter() - started,
            parent_id=body.parent_id,
            name=body.name,
        )
        answer = {
            "attempt_id": recorded.attempt_id,
            "accepted": verdict.accepted,
            "stage": verdict.stage,
            "error": verdict.error,
            "level_id": None if recorded.level is None else recorded.level.id,
            "duplicate": recorded.level is not None and not recorded.level.created,
        }
        status = 201 if verdict.accepted else 422
        if verdict.stage == SANDBOX_UNAVAILABLE:
            status = 503
        return JSONResponse(answer, status_code=status)

    # ------------------------------------------------------------------ web page
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    return app


def _validate(app: FastAPI, domain: str, code: str) -> Verdict:
    """One validation at a time through the API's own (lazily started) sandbox pool of the
    run's domain."""
    with app.state.validator_lock:
        if domain not in app.state.validators:
            app.state.validators[domain] = Validator(domain, pool_size=8, warm=1, rollout_steps=150)
        validator: Validator = app.state.validators[domain]
        return validator.validate(code)


def _registry(repo: ArchiveRepository) -> CollectorRegistry:
    registry = CollectorRegistry()
    registry.register(_ArchiveCollector(repo))
    return registry


class _ArchiveCollector:
    """Archive counts per run, read at scrape time."""

    def __init__(self, repo: ArchiveRepository) -> None:
        self.repo = repo

    def collect(self) -> Iterator[GaugeMetricFamily]:
        families = {
            key: GaugeMetricFamily(
                f"dicode_archive_{key}", f"archive {key} per run", labels=["run"]
            )
            for key in ("levels", "accepted", "rejected", "edges", "active")
        }
        try:
            runs = self.repo.list_runs()
            for run in runs:
                stats = self.repo.stats(run.id).as_dict()
                for key, family in families.items():
                    family.add_metric([run.name], float(stats[key]))
        except SQLAlchemyError:
            return  # the scrape still answers; /healthz reports the outage
        yield from families.values()
