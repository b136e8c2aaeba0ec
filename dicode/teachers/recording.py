"""Turning a :class:`TeacherResult` into archive rows: every attempt, accepted or not.

An accepted attempt carries its level (bundle bytes from the sandbox verdict) and is stored in
the same transaction as the attempt; a rejected one keeps its failing stage and error.
"""

from __future__ import annotations

from dataclasses import asdict

from archive_db.records import NewAttempt, NewLevel, RecordedAttempt
from archive_db.repository import ArchiveRepository
from dicode.teachers.base import TeacherResult

BUNDLE_FORMAT = "npz"


def stage_reached(result: TeacherResult) -> str:
    """The furthest stage the attempt got to (its failing stage, or ``accepted``)."""
    if result.accepted:
        return "accepted"
    return result.failing_stage or "unknown"


def archive_rows(
    result: TeacherResult,
    domain: str,
    parent_id: int | None = None,
    created_iteration: int | None = None,
) -> tuple[NewAttempt, NewLevel | None]:
    """The attempt row and, when accepted, the level row for ``result``."""
    attempt = NewAttempt(
        teacher=result.teacher,
        stage_reached=stage_reached(result),
        verdict="accepted" if result.accepted else "rejected",
        parent_id=parent_id,
        prompts=[{"stage": e.stage, "messages": e.messages} for e in result.exchanges],
        responses=[
            {k: v for k, v in asdict(e).items() if k != "messages"} for e in result.exchanges
        ],
        code=result.code,
        failing_stage=None if result.accepted else (result.failing_stage or "unknown"),
        error=None if result.accepted else (result.error or "rejected without a message"),
        latency_s=result.latency_s,
        tokens_in=result.prompt_tokens,
        tokens_out=result.completion_tokens,
    )
    if not result.accepted:
        return attempt, None
    bundle = getattr(result.verdict, "bundle", None)
    if bundle is None:
        raise ValueError("an accepted verdict must carry its level bundle")
    level = NewLevel(
        domain=domain,
        content_hash=bundle.content_hash,
        teacher=result.teacher,
        code=result.code or "",
        description=result.description or bundle.description,
        bundle=bundle.to_bytes(),
        bundle_format=BUNDLE_FORMAT,
        name=result.title,
        reasoning=result.reasoning,
        meta={
            "instruction": str(result.instruction),
            "difficulty": dict(getattr(result.verdict, "difficulty", {}) or {}),
            "repair_rounds": result.repair_rounds,
        },
        created_iteration=created_iteration,
        parent_ids=() if parent_id is None else (parent_id,),
    )
    return attempt, level


def record_result(
    repository: ArchiveRepository,
    run_id: int,
    result: TeacherResult,
    domain: str,
    parent_id: int | None = None,
    created_iteration: int | None = None,
) -> RecordedAttempt:
    """Store one attempt (and its level when accepted) in the archive."""
    attempt, level = archive_rows(result, domain, parent_id, created_iteration)
    return repository.record_attempt(run_id, attempt, level)
