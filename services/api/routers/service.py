"""Liveness and Prometheus exposition."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from sqlalchemy.exc import SQLAlchemyError

from services.api.deps import Repository
from services.api.schemas import ErrorMessage, Health

router = APIRouter(tags=["service"])


class PrometheusResponse(Response):
    media_type = CONTENT_TYPE_LATEST


@router.get(
    "/healthz", responses={503: {"model": ErrorMessage, "description": "archive unreachable"}}
)
def healthz(repo: Repository) -> Health:
    """Liveness and database reachability."""
    try:
        runs = len(repo.runs.all())
    except SQLAlchemyError as error:
        raise HTTPException(503, f"archive unreachable: {error}") from error
    return Health(status="ok", runs=runs)


@router.get(
    "/metrics",
    response_class=PrometheusResponse,
    responses={200: {"content": {CONTENT_TYPE_LATEST: {"schema": {"type": "string"}}}}},
)
def prometheus(request: Request) -> PrometheusResponse:
    """Prometheus exposition: archive counts per run and request counters."""
    return PrometheusResponse(generate_latest(request.app.state.registry))
