"""Every generation attempt into archive rows, accepted or not, by one function.

:func:`attempt_rows` builds the attempt row and, when the level was accepted, its level row
(bundle bytes from the sandbox verdict), stored in one transaction. A teacher's attempt
(:func:`record_result`: prompts, responses, repairs) and a level validated outside a teacher
(:func:`record_verdict`: seed levels, API submissions, files) both come through it; a rejected
attempt keeps its failing stage, its (bounded) error and its code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from archive_db.records import NewAttempt, NewLevel, RecordedAttempt
from archive_db.repository import ArchiveRepository
from dicode.levels.verdict import Verdict
from dicode.teachers.base import ModelExchange, TeacherResult, VerdictLike

BUNDLE_FORMAT = "npz"


def attempt_rows(
    *,
    domain: str,
    teacher: str,
    code: str | None,
    verdict: VerdictLike | None,
    latency_s: float,
    parent_id: int | None = None,
    failing_stage: str | None = None,
    error: str | None = None,
    exchanges: Sequence[ModelExchange] = (),
    description: str | None = None,
    name: str | None = None,
    reasoning: str | None = None,
    skill: str | None = None,
    meta: dict[str, Any] | None = None,
    created_iteration: int | None = None,
) -> tuple[NewAttempt, NewLevel | None]:
    """The attempt row and, when ``verdict`` accepted the level, its level row.

    ``failing_stage``/``error`` say why a rejected attempt failed (default: the verdict's).
    """
    bundle = getattr(verdict, "bundle", None)
    accepted = verdict is not None and bool(verdict.accepted) and bundle is not None
    stage = None if accepted else (failing_stage or getattr(verdict, "stage", None) or "unknown")
    why = None if accepted else (error or getattr(verdict, "error", None) or "rejected")
    attempt = NewAttempt(
        teacher=teacher,
        stage_reached="accepted" if accepted else str(stage),
        verdict="accepted" if accepted else "rejected",
        parent_id=parent_id,
        prompts=[{"stage": e.stage, "messages": e.messages} for e in exchanges],
        responses=[{k: v for k, v in asdict(e).items() if k != "messages"} for e in exchanges],
        code=code,
        failing_stage=stage,
        error=why,
        latency_s=latency_s,
        tokens_in=sum(e.prompt_tokens for e in exchanges),
        tokens_out=sum(e.completion_tokens for e in exchanges),
    )
    if not accepted or bundle is None:
        return attempt, None
    level = NewLevel(
        domain=domain,
        content_hash=bundle.content_hash,
        teacher=teacher,
        code=code or "",
        description=description or bundle.description,
        bundle=bundle.to_bytes(),
        bundle_format=BUNDLE_FORMAT,
        name=name,
        reasoning=reasoning,
        skill=skill,
        meta={"difficulty": dict(getattr(verdict, "difficulty", {}) or {})} | (meta or {}),
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
    *,
    child_limit: int | None = None,
) -> RecordedAttempt:
    """Store one teacher attempt (and its level when accepted) in the archive.

    ``child_limit``: the parent was drawn under the strict rule, so the level is refused
    (`ParentFullError`) when the parent has that many children by now; the level's meta says
    ``parent_rule: strict``.
    """
    strict = {} if child_limit is None else {"parent_rule": "strict"}
    attempt, level = attempt_rows(
        domain=domain,
        teacher=result.teacher,
        code=result.code,
        verdict=result.verdict,
        latency_s=result.latency_s,
        parent_id=parent_id,
        failing_stage=result.failing_stage,
        error=result.error,
        exchanges=result.exchanges,
        description=result.description,
        name=result.title,
        reasoning=result.reasoning,
        skill=result.skill,
        meta={"instruction": str(result.instruction), "repair_rounds": result.repair_rounds}
        | strict,
        created_iteration=created_iteration,
    )
    return repository.attempts.record(run_id, attempt, level, child_limit=child_limit)


def record_verdict(
    repository: ArchiveRepository,
    run_id: int,
    domain: str,
    teacher: str,
    code: str,
    verdict: Verdict,
    latency_s: float,
    *,
    parent_id: int | None = None,
    name: str | None = None,
) -> RecordedAttempt:
    """Store a level validated outside a teacher (seed levels, hand-written submissions)."""
    attempt, level = attempt_rows(
        domain=domain,
        teacher=teacher,
        code=code,
        verdict=verdict,
        latency_s=latency_s,
        parent_id=parent_id,
        name=name,
    )
    return repository.attempts.record(run_id, attempt, level)
