"""Levels: a run's levels filtered and paged in SQL, one level in full, and its previews."""

from __future__ import annotations

import io
from dataclasses import asdict
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Response

from archive_db import ArchiveRepository
from archive_db.records import LevelFilter
from dicode import domains
from dicode.levels.bundle import LevelBundle
from dicode.levels.render import render_instances_image, render_instances_text
from services.api.deps import Limit, Offset, RecordId, Repository, SelectedRun, TextFilter
from services.api.schemas import (
    UNPROCESSABLE,
    BundleError,
    BundleSummary,
    ErrorMessage,
    LevelDetail,
    LevelPage,
    LevelSummary,
    Preview,
    StatusLetter,
    json_content,
)

MAX_PREVIEW = 8  # instances drawn by one preview request
PreviewCount = Annotated[int, Query(ge=1, le=MAX_PREVIEW, description="instances drawn")]

router = APIRouter(
    tags=["levels"], responses={404: {"model": ErrorMessage, "description": "no such run/level"}}
)


class PNGResponse(Response):
    media_type = "image/png"


@router.get("/api/runs/{run}/levels")
def list_levels(
    run: SelectedRun,
    repo: Repository,
    status: StatusLetter | None = None,
    active: bool | None = None,
    sampled: Annotated[bool | None, Query(description="trained on at least once")] = None,
    teacher: TextFilter = None,
    skill: TextFilter = None,
    limit: Limit = 50,
    offset: Offset = 0,
) -> LevelPage:
    """Levels of a run, oldest first, filtered and paged by the database."""
    page = repo.levels.page(
        run.id, LevelFilter(status, active, sampled, teacher, skill), limit=limit, offset=offset
    )
    items = [LevelSummary.model_validate(level) for level in page.items]
    return LevelPage(total=page.total, offset=offset, limit=limit, items=items)


@router.get("/api/levels/{level_id}")
def get_level(level_id: RecordId, repo: Repository) -> LevelDetail:
    """Description, code, bundle summary, performance history, parents and children."""
    level = repo.levels.get(level_id)
    return LevelDetail.model_validate(
        asdict(level)
        | {
            "bundle": _bundle_summary(repo.get_bundle(level_id)),
            "history": repo.evaluations.history(level_id),
            "parents": repo.lineage.parents(level_id),
            "children": repo.lineage.children(level_id),
        }
    )


@router.get(
    "/api/levels/{level_id}/preview",
    responses={422: {"content": UNPROCESSABLE, "description": "the bundle cannot be drawn"}},
)
def level_preview(level_id: RecordId, repo: Repository, instances: PreviewCount = 2) -> Preview:
    """The first ``instances`` of the level's pool as text, drawn by its domain's renderer
    (Tetris: boards side by side; Craftax: goal, rules, player and a map crop)."""
    bundle = _stored_bundle(repo, level_id)
    try:
        text = render_instances_text(domains.get(bundle.domain), bundle, instances)
    except ValueError as error:
        raise HTTPException(422, f"level {level_id}: {error}") from error
    return Preview(level_id=level_id, domain=bundle.domain, text=text)


@router.get(
    "/api/levels/{level_id}/preview.png",
    response_class=PNGResponse,
    responses={
        200: {"content": {"image/png": {"schema": {"type": "string", "format": "binary"}}}},
        404: {"content": json_content("ErrorMessage"), "description": "no level or no bundle"},
        422: {"content": UNPROCESSABLE, "description": "the bundle cannot be drawn"},
    },
)
def level_preview_png(
    level_id: RecordId, repo: Repository, instances: PreviewCount = 2
) -> PNGResponse:
    """The same instances as one PNG strip (Craftax: the player's whole floor)."""
    bundle = _stored_bundle(repo, level_id)
    buffer = io.BytesIO()
    try:
        image = render_instances_image(domains.get(bundle.domain), bundle, instances)
        image.save(buffer, format="PNG")
    except ValueError as error:
        raise HTTPException(422, f"level {level_id}: {error}") from error
    return PNGResponse(buffer.getvalue())


def _stored_bundle(repo: ArchiveRepository, level_id: int) -> LevelBundle:
    data = repo.get_bundle(level_id)
    if data is None:
        raise HTTPException(404, f"level {level_id} has no stored bundle")
    try:
        return LevelBundle.from_bytes(data)
    except ValueError as error:
        raise HTTPException(422, f"level {level_id}: {error}") from error


def _bundle_summary(data: bytes | None) -> BundleSummary | BundleError | None:
    if data is None:
        return None
    try:
        bundle = LevelBundle.from_bytes(data)
    except ValueError as error:
        return BundleError(error=str(error))
    arrays: dict[str, Any] = {name: list(array.shape) for name, array in bundle.pool.items()}
    return BundleSummary(
        goal=bundle.goal,
        rules=bundle.rules,
        pool_size=bundle.pool_size,
        arrays=arrays,
        provenance=bundle.provenance(),
        bytes=len(data),
    )
