"""Runs: the list, one run with its config, counts and pause flag, and its time series."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any

from fastapi import APIRouter, Query

from archive_db.kinds import SESSION_EVENT, TARGET_EVENT
from dicode import domains
from services.api.deps import MAX_ID, Repository, SelectedRun
from services.api.schemas import (
    ErrorMessage,
    MetricPoint,
    RunDetail,
    RunMetrics,
    RunSummary,
)
from services.generator.control import is_paused

router = APIRouter(prefix="/api/runs", tags=["runs"])
UNKNOWN_RUN: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorMessage, "description": "no such run"}
}


@router.get("")
def list_runs(repo: Repository) -> list[RunSummary]:
    """Every run, oldest first."""
    return [RunSummary.model_validate(run) for run in repo.runs.all()]


@router.get("/{run}", responses=UNKNOWN_RUN)
def get_run(run: SelectedRun, repo: Repository) -> RunDetail:
    """A run with its stored config, archive counts and generation state."""
    return RunDetail.model_validate(
        asdict(run)
        | {"stats": repo.statistics.counts(run.id), "generation_paused": is_paused(repo, run.id)}
    )


@router.get("/{run}/metrics", responses=UNKNOWN_RUN)
def run_metrics(
    run: SelectedRun,
    repo: Repository,
    after_id: Annotated[int, Query(ge=0, le=MAX_ID, description="only events after this id")] = 0,
) -> RunMetrics:
    """Time series: student sessions and target evaluations (each point has its time)."""

    def series(kind: str) -> list[MetricPoint]:
        events = repo.events.listing(run_id=run.id, kind=kind, after_id=after_id)
        return [
            MetricPoint.model_validate(e.payload | {"event_id": e.id, "time": e.created_at})
            for e in events
        ]

    world = domains.get(run.domain)
    return RunMetrics(
        headline=world.target_metrics[0],
        headline_label=world.headline_label,
        student=series(SESSION_EVENT),
        target=series(TARGET_EVENT),
    )
