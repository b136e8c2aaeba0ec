"""The web pages: the index (runs, levels, a level) and the archive browser's pages — a run's
dashboard, its lineage graph and attempts, one level. Each is a static HTML file whose ES
modules (``static/web/``) read the JSON API; an unknown run or level is a 404 before any page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse

from services.api.deps import RecordId, Repository, SelectedRun
from services.api.schemas import json_content

STATIC = Path(__file__).resolve().parents[1] / "static"
WEB = STATIC / "web"
HTML: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/html": {"schema": {"type": "string"}}}},
}
# JSON beside an HTML route: a `model` would be filed under text/html.
UNKNOWN: dict[int | str, dict[str, Any]] = {
    404: {"content": json_content("ErrorMessage"), "description": "no such run/level"}
}

router = APIRouter(tags=["pages"], responses=HTML, default_response_class=HTMLResponse)


def _page(path: Path) -> FileResponse:
    return FileResponse(path, media_type="text/html")


@router.get("/")
def index() -> FileResponse:
    """The single-page viewer over this API (``static/index.html``)."""
    return _page(STATIC / "index.html")


@router.get("/runs/{run}", responses=UNKNOWN)
def dashboard_page(run: SelectedRun) -> FileResponse:
    """A run's dashboard: target curve, status letters, attempts, learnability, latency."""
    return _page(WEB / "dashboard.html")


@router.get("/runs/{run}/lineage", responses=UNKNOWN)
def lineage_page(run: SelectedRun) -> FileResponse:
    """A run's lineage graph (pan, zoom, open a level)."""
    return _page(WEB / "lineage.html")


@router.get("/runs/{run}/attempts", responses=UNKNOWN)
def attempts_page(run: SelectedRun) -> FileResponse:
    """A run's generation attempts, filtered by verdict and stage."""
    return _page(WEB / "attempts.html")


@router.get("/levels/{level_id}", responses=UNKNOWN)
def level_page(level_id: RecordId, repo: Repository) -> FileResponse:
    """One level: description, code, previews, history, family and the attempt that made it."""
    repo.get_level(level_id)  # 404 for an unknown level
    return _page(WEB / "level.html")
