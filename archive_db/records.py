"""Plain, immutable records that cross the repository boundary (inputs and results).

Services never see ORM objects: they pass these in and get these back.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar

from dicode.archive.records import Edge, LevelNode

T = TypeVar("T")


def content_hash(*parts: str | bytes | None) -> str:
    """SHA-256 over the given parts (length-prefixed so part boundaries matter)."""
    digest = hashlib.sha256()
    for part in parts:
        data = b"" if part is None else part.encode() if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


@dataclass(frozen=True)
class RunInfo:
    id: int
    name: str
    domain: str
    config: dict[str, Any]
    seed: int
    status: str
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class NewLevel:
    """A level to insert. ``content_hash`` identifies it within a run (duplicates collapse)."""

    domain: str
    content_hash: str
    teacher: str
    code: str = ""
    description: str = ""
    bundle: bytes | None = None
    bundle_format: str | None = None
    name: str | None = None
    reasoning: str | None = None
    skill: str | None = None  # the skill the level targets (the skill instruction's)
    meta: dict[str, Any] = field(default_factory=dict)
    created_iteration: int | None = None
    parent_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class InsertedLevel:
    id: int
    created: bool  # False when a level with the same content hash already existed


@dataclass(frozen=True)
class LevelInfo(LevelNode):
    """A stored level with everything but its bundle (see `ArchiveRepository.get_bundle`): its
    lineage node's fields (status, score, sampling, teacher) and these."""

    run_id: int
    domain: str
    name: str | None
    description: str
    reasoning: str | None
    code: str
    bundle_format: str | None
    content_hash: str
    skill: str | None
    meta: dict[str, Any]
    created_at: datetime


@dataclass(frozen=True)
class NewAttempt:
    """One generation attempt as the teacher pipeline saw it (accepted or rejected)."""

    teacher: str
    stage_reached: str
    verdict: str  # "accepted" | "rejected"
    parent_id: int | None = None
    prompts: list[Any] = field(default_factory=list)
    responses: list[Any] = field(default_factory=list)
    code: str | None = None
    failing_stage: str | None = None
    error: str | None = None
    latency_s: float | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None


@dataclass(frozen=True)
class AttemptInfo:
    id: int
    run_id: int
    parent_id: int | None
    level_id: int | None
    teacher: str
    stage_reached: str
    prompts: list[Any]
    responses: list[Any]
    code: str | None
    verdict: str
    failing_stage: str | None
    error: str | None
    latency_s: float | None
    tokens_in: int | None
    tokens_out: int | None
    created_at: datetime


@dataclass(frozen=True)
class RecordedAttempt:
    attempt_id: int
    level: InsertedLevel | None


@dataclass(frozen=True)
class EvaluationInfo:
    id: int
    level_id: int
    student_iteration: int
    episodes: int
    successes: int
    success_rate: float | None
    mean_return: float | None
    per_goal: dict[str, Any]
    target_change: float | None
    created_at: datetime


@dataclass(frozen=True)
class CheckpointInfo:
    id: int
    run_id: int
    path: str
    iteration: int
    meta: dict[str, Any]
    created_at: datetime


@dataclass(frozen=True)
class EventInfo:
    id: int
    run_id: int | None
    kind: str
    payload: dict[str, Any]
    created_at: datetime


@dataclass(frozen=True)
class ActiveSet:
    """The active set of a run at one version: member ids and their scores."""

    version: int
    level_ids: tuple[int, ...]
    scores: tuple[float, ...]


@dataclass(frozen=True)
class ArchiveStats:
    levels: int
    accepted: int
    rejected: int
    edges: int
    active: int
    by_status: dict[str, int]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class LevelFilter:
    """What a level listing can be narrowed to (None: no condition)."""

    status: str | None = None
    active: bool | None = None
    sampled: bool | None = None  # False: never drawn for training yet
    teacher: str | None = None
    skill: str | None = None


EVERY_LEVEL = LevelFilter()


@dataclass(frozen=True)
class AttemptFilter:
    """What an attempt listing can be narrowed to (None: no condition)."""

    verdict: str | None = None
    failing_stage: str | None = None
    teacher: str | None = None
    parent_id: int | None = None
    level_id: int | None = None  # the attempts that made (or found again) this level


EVERY_ATTEMPT = AttemptFilter()


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a listing (oldest first) and how many rows the whole listing has."""

    total: int
    items: tuple[T, ...]


@dataclass(frozen=True)
class Subgraph:
    """Levels around one level and the lineage edges among them."""

    levels: tuple[LevelNode, ...]
    edges: tuple[Edge, ...]


# ---------------------------------------------------------------------- a run over time
@dataclass(frozen=True)
class ProgressPoint:
    """A student session: when it ended, its last iteration and the env steps so far."""

    time: datetime
    iteration: int
    env_steps: int | None


@dataclass(frozen=True)
class StatusPoint:
    """How many of the run's levels held each status letter at ``time``."""

    time: datetime
    counts: dict[str, int]


@dataclass(frozen=True)
class StageCount:
    """Attempts that ended at ``stage`` (``accepted`` or the stage that rejected them)."""

    stage: str
    verdict: str
    attempts: int


@dataclass(frozen=True)
class LatencyBucket:
    """Consecutive attempts (by id) summarised: the teacher's time per attempt."""

    first_attempt: int
    time: datetime
    attempts: int
    mean_s: float | None
    max_s: float | None


@dataclass(frozen=True)
class LearnabilityPoint:
    """Mean p(1−p) of the levels evaluated at student iterations ``iteration``…``last``."""

    iteration: int
    last_iteration: int
    evaluations: int
    mean: float


@dataclass(frozen=True)
class RunTimeline:
    """What a run's dashboard draws, each series bounded to a few hundred points."""

    progress: tuple[ProgressPoint, ...]
    status: tuple[StatusPoint, ...]
    stages: tuple[StageCount, ...]
    latency: tuple[LatencyBucket, ...]
    learnability: tuple[LearnabilityPoint, ...]
    active_scores: tuple[float, ...]
