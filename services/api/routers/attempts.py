"""Generation attempts: a run's attempts filtered and paged by the database, and one in full."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from archive_db.records import AttemptFilter
from services.api.deps import MAX_ID, Limit, Offset, RecordId, Repository, SelectedRun, TextFilter
from services.api.schemas import AttemptDetail, AttemptPage, AttemptSummary, ErrorMessage, Verdict

router = APIRouter(
    tags=["attempts"],
    responses={404: {"model": ErrorMessage, "description": "no such run/attempt"}},
)


@router.get("/api/runs/{run}/attempts")
def list_attempts(
    run: SelectedRun,
    repo: Repository,
    verdict: Verdict | None = None,
    teacher: TextFilter = None,
    failing_stage: TextFilter = None,
    parent_id: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
    level_id: Annotated[
        int | None, Query(ge=1, le=MAX_ID, description="the attempts that made this level")
    ] = None,
    full: Annotated[bool, Query(description="add code, prompts and responses")] = False,
    limit: Limit = 50,
    offset: Offset = 0,
) -> AttemptPage:
    """Attempts with their verdicts and errors, oldest first (levels exist only for accepted
    ones, so ``verdict`` filters attempts, not levels)."""
    page = repo.attempts.page(
        run.id,
        AttemptFilter(
            verdict=verdict,
            failing_stage=failing_stage,
            teacher=teacher,
            parent_id=parent_id,
            level_id=level_id,
        ),
        limit=limit,
        offset=offset,
    )
    shape = AttemptDetail if full else AttemptSummary
    items = [shape.model_validate(attempt) for attempt in page.items]
    return AttemptPage(total=page.total, offset=offset, limit=limit, items=items)


@router.get("/api/attempts/{attempt_id}")
def get_attempt(attempt_id: RecordId, repo: Repository) -> AttemptDetail:
    """One attempt with its code, prompts and raw responses."""
    return AttemptDetail.model_validate(repo.attempts.get(attempt_id))
