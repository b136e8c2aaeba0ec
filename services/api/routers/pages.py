"""The web page: runs, levels with status letters, a level's code, history and lineage."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse

STATIC = Path(__file__).resolve().parents[1] / "static"

router = APIRouter(tags=["pages"])


@router.get(
    "/",
    response_class=HTMLResponse,
    responses={200: {"content": {"text/html": {"schema": {"type": "string"}}}}},
)
def index() -> FileResponse:
    """The single-page viewer over this API (``static/index.html``)."""
    return FileResponse(STATIC / "index.html", media_type="text/html")
