"""The web pages: the index (runs, levels, a level) and the archive browser's pages — a run's
dashboard, its lineage graph and attempts, one level, the experiments and one experiment. The
browser's pages share one HTML skeleton that loads the page's ES module
(``static/web/<page>.js``), which reads the JSON API; an unknown run, level or experiment is a
404 before any page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse

from services.api.deps import RecordId, Repository, SelectedExperiment, SelectedRun
from services.api.schemas import json_content

STATIC = Path(__file__).resolve().parents[1] / "static"
HTML: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/html": {"schema": {"type": "string"}}}},
}
# JSON beside an HTML route: a `model` would be filed under text/html.
UNKNOWN: dict[int | str, dict[str, Any]] = {
    404: {"content": json_content("ErrorMessage"), "description": "no such run/level/experiment"}
}

# The archive browser's pages differ only in their title and module.
BROWSER_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · dicode archive</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/web/common.css">
<script type="module" src="/static/web/{module}.js"></script>
</head>
<body>
<header></header>
<main id="main"><p class="muted">loading…</p></main>
</body>
</html>
"""

router = APIRouter(tags=["pages"], responses=HTML, default_response_class=HTMLResponse)


def _browser_page(title: str, module: str) -> HTMLResponse:
    return HTMLResponse(BROWSER_PAGE.format(title=title, module=module))


@router.get("/")
def index() -> FileResponse:
    """The single-page viewer over this API (``static/index.html``)."""
    return FileResponse(STATIC / "index.html", media_type="text/html")


@router.get("/runs/{run}", responses=UNKNOWN)
def dashboard_page(run: SelectedRun) -> HTMLResponse:
    """A run's dashboard: target curve, status letters, attempts, learnability, latency."""
    return _browser_page("Run dashboard", "dashboard")


@router.get("/runs/{run}/lineage", responses=UNKNOWN)
def lineage_page(run: SelectedRun) -> HTMLResponse:
    """A run's lineage graph (pan, zoom, open a level)."""
    return _browser_page("Lineage graph", "lineage")


@router.get("/runs/{run}/attempts", responses=UNKNOWN)
def attempts_page(run: SelectedRun) -> HTMLResponse:
    """A run's generation attempts, filtered by verdict and stage."""
    return _browser_page("Attempts", "attempts")


@router.get("/levels/{level_id}", responses=UNKNOWN)
def level_page(level_id: RecordId, repo: Repository) -> HTMLResponse:
    """One level: description, code, previews, history, family and the attempt that made it."""
    repo.levels.get(level_id)  # 404 for an unknown level
    return _browser_page("Level", "level")


@router.get("/experiments")
def experiments_page() -> HTMLResponse:
    """The experiments of the figures directory, each linked to its page."""
    return _browser_page("Experiments", "experiments")


@router.get("/experiments/{name}", responses=UNKNOWN)
def experiment_page(document: SelectedExperiment) -> HTMLResponse:
    """One experiment: each arm's mean learning curve with its 95 % band, and its table."""
    return _browser_page("Experiment", "experiments")
