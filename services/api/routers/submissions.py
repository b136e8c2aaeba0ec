"""Hand-written levels submitted to a run (guarded): validated in the API's sandbox and stored
as attempts of the ``human`` teacher, accepted or not."""

from __future__ import annotations

import time

from fastapi import APIRouter, Depends, HTTPException, Response

from archive_db.kinds import HUMAN_TEACHER
from archive_db.recording import record_verdict
from dicode.levels.verdict import SANDBOX_UNAVAILABLE, Verdict
from services.api.auth import require_token
from services.api.deps import Repository, SelectedRun
from services.api.sandbox import SandboxPools
from services.api.schemas import ErrorMessage, SubmissionResult, SubmittedLevel, json_content

router = APIRouter(tags=["levels"])


@router.post(
    "/api/runs/{run}/levels",
    status_code=201,
    dependencies=[Depends(require_token)],
    responses={
        # FastAPI's own answer to a body that is not JSON at all (before validation).
        400: {"model": ErrorMessage, "description": "the body cannot be parsed as JSON"},
        401: {"model": ErrorMessage, "description": "missing or wrong bearer token"},
        403: {"model": ErrorMessage, "description": "no DICODE_API_TOKEN configured"},
        404: {"model": ErrorMessage, "description": "no such run or parent level"},
        422: {
            "content": json_content("SubmissionResult", "ErrorMessage", "HTTPValidationError"),
            "description": "rejected by the sandbox: the stored attempt with its failing stage "
            "and error (a parent from another run: a detail; a malformed body: FastAPI's list)",
        },
        503: {
            "model": SubmissionResult,
            "description": "the sandbox cannot put up its walls on this host (the level did "
            "not run; the attempt is stored)",
        },
    },
)
def submit_level(
    run: SelectedRun,
    body: SubmittedLevel,
    repo: Repository,
    sandboxes: SandboxPools,
    response: Response,
) -> SubmissionResult:
    """Validate a hand-written level in the sandbox and record it as an attempt (stored in
    every case): 201 with the new level when accepted."""
    if body.parent_id is not None and repo.levels.get(body.parent_id).run_id != run.id:
        raise HTTPException(422, f"level {body.parent_id} is not in run {run.name!r}")
    started = time.perf_counter()
    verdict = sandboxes.validate(run.domain, body.code)
    recorded = record_verdict(
        repo,
        run.id,
        run.domain,
        HUMAN_TEACHER,
        body.code,
        verdict,
        time.perf_counter() - started,
        parent_id=body.parent_id,
        name=body.name,
    )
    if verdict.stage == SANDBOX_UNAVAILABLE:
        response.status_code = 503
    elif not verdict.accepted:
        response.status_code = 422
    return SubmissionResult(
        attempt_id=recorded.attempt_id,
        accepted=verdict.accepted,
        stage=verdict.stage,
        error=verdict.error,
        level_id=None if recorded.level is None else recorded.level.id,
        duplicate=recorded.level is not None and not recorded.level.created,
        detail=None if verdict.accepted else _reason(verdict),
    )


def _reason(verdict: Verdict) -> str:
    return f"rejected at stage {verdict.stage!r}" + (f": {verdict.error}" if verdict.error else "")
