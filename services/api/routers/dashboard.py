"""A run's dashboard: the target curve on both time axes and the run's series over time."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import asdict

from fastapi import APIRouter

from archive_db.kinds import TARGET_EVENT
from archive_db.records import ProgressPoint
from dicode import domains
from services.api.deps import Repository, SelectedRun
from services.api.schemas import Dashboard, ErrorMessage, RunSummary, TargetPoint

router = APIRouter(
    tags=["runs"], responses={404: {"model": ErrorMessage, "description": "no such run"}}
)


@router.get("/api/runs/{run}/dashboard")
def run_dashboard(run: SelectedRun, repo: Repository) -> Dashboard:
    """Target curve, levels per status letter, attempts per stage, teacher latency and
    learnability (what ``/runs/{run}`` draws; poll it while the run goes)."""
    timeline = repo.timelines.of_run(run.id)
    world = domains.get(run.domain)
    headline = world.target_metrics[0]
    evaluations = repo.events.listing(run_id=run.id, kind=TARGET_EVENT)
    sessions = _Sessions(timeline.progress)
    series = asdict(timeline)
    del series["progress"]  # only maps target points onto env steps
    return Dashboard.model_validate(
        series
        | {
            "run": RunSummary.model_validate(run),
            "headline": headline,
            "headline_label": world.headline_label,
            "stats": repo.statistics.counts(run.id),
            "target": [
                TargetPoint(
                    iteration=e.payload["iteration"],
                    env_steps=sessions.env_steps_at(e.payload["iteration"]),
                    time=e.created_at,
                    value=_number(e.payload.get(headline)),
                )
                for e in evaluations
                if isinstance(e.payload.get("iteration"), int)
            ],
        }
    )


class _Sessions:
    """Env steps by iteration. A checkpoint's iteration is a session's last one: the newest
    session at or before it says how many env steps the evaluated student had taken."""

    def __init__(self, progress: tuple[ProgressPoint, ...]) -> None:
        ordered = sorted(progress, key=lambda p: p.iteration)
        self._iterations = [p.iteration for p in ordered]
        self._steps = [p.env_steps for p in ordered]

    def env_steps_at(self, iteration: int) -> int | None:
        before = bisect_right(self._iterations, iteration)
        return self._steps[before - 1] if before else None


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
