"""Generation control: pause and resume a run's generator (guarded)."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from services.api.auth import require_token
from services.api.deps import Repository, SelectedRun
from services.api.schemas import ErrorMessage, GenerationState
from services.generator.control import set_paused

router = APIRouter(
    prefix="/api/runs/{run}/generation",
    tags=["control"],
    dependencies=[Depends(require_token)],
    responses={
        401: {"model": ErrorMessage, "description": "missing or wrong bearer token"},
        403: {"model": ErrorMessage, "description": "no DICODE_API_TOKEN configured"},
        404: {"model": ErrorMessage, "description": "no such run"},
    },
)


@router.post("/pause")
def pause(run: SelectedRun, repo: Repository) -> GenerationState:
    """Stop starting new generation attempts (those in flight finish)."""
    set_paused(repo, run.id, True)
    return GenerationState(run=run.name, generation_paused=True)


@router.post("/resume")
def resume(run: SelectedRun, repo: Repository) -> GenerationState:
    """Start generation attempts again."""
    set_paused(repo, run.id, False)
    return GenerationState(run=run.name, generation_paused=False)
