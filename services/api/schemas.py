"""Response (and request) bodies of the API: every JSON route answers one of these, so
``/openapi.json`` documents each field. Built from the archive's records by attribute name."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from services.api.deps import MAX_TEXT

MAX_CODE_CHARS = 100_000
SUMMARY_CHARS = 200  # of a level's description in listings

StatusLetter = Literal["A", "B", "C", "D"]
Verdict = Literal["accepted", "rejected"]


class FromRecord(BaseModel):
    """A body filled from an archive record's same-named attributes."""

    model_config = ConfigDict(from_attributes=True)


class ErrorMessage(BaseModel):
    """Every error but a malformed request (FastAPI's own 422 list) answers this."""

    detail: str


def json_content(*names: str) -> dict[str, Any]:
    """OpenAPI content of a JSON answer that is one of the named component schemas, for what
    one ``model`` cannot say: either of several shapes, or JSON beside a non-JSON route (FastAPI
    files a ``model`` under the route's own media type)."""
    refs = [{"$ref": f"#/components/schemas/{name}"} for name in names]
    return {"application/json": {"schema": refs[0] if len(refs) == 1 else {"anyOf": refs}}}


# A 422 from the route itself (a detail string) or from FastAPI for a malformed request.
UNPROCESSABLE = json_content("ErrorMessage", "HTTPValidationError")


class Health(BaseModel):
    status: Literal["ok"]
    runs: int


# ---------------------------------------------------------------------- runs
class RunSummary(FromRecord):
    id: int
    name: str
    domain: str
    seed: int
    status: str
    created_at: datetime
    updated_at: datetime


class ArchiveCounts(FromRecord):
    levels: int
    accepted: int = Field(description="accepted generation attempts")
    rejected: int = Field(description="rejected generation attempts")
    edges: int
    active: int
    by_status: dict[StatusLetter, int]


class RunDetail(RunSummary):
    config: dict[str, Any] = Field(description="the run's stored settings")
    stats: ArchiveCounts
    generation_paused: bool


class MetricPoint(BaseModel):
    """One event's payload (iteration and the figures of its kind) with its id and time."""

    model_config = ConfigDict(extra="allow")

    event_id: int
    time: datetime


class RunMetrics(BaseModel):
    headline: str = Field(description="the world's headline figure in target points")
    headline_label: str = Field(description="how people read the headline figure")
    student: list[MetricPoint] = Field(description="student_session events")
    target: list[MetricPoint] = Field(description="target_eval events")


class TargetPoint(BaseModel):
    """One target evaluation on both time axes."""

    iteration: int
    env_steps: int | None = Field(description="of the newest session at or before it")
    time: datetime
    value: float | None = Field(description="the world's headline figure")


class StatusPoint(FromRecord):
    time: datetime
    counts: dict[StatusLetter, int]


class StageCount(FromRecord):
    stage: str = Field(description='"accepted" or the stage that rejected the attempts')
    verdict: Verdict
    attempts: int


class LatencyBucket(FromRecord):
    first_attempt: int
    time: datetime
    attempts: int
    mean_s: float | None
    max_s: float | None


class LearnabilityPoint(FromRecord):
    iteration: int
    last_iteration: int
    evaluations: int
    mean: float = Field(description="mean p(1-p) of the levels evaluated in these iterations")


class Dashboard(BaseModel):
    """A run's dashboard: every series bounded to a few hundred points."""

    run: RunSummary
    headline: str
    headline_label: str
    stats: ArchiveCounts
    target: list[TargetPoint]
    status: list[StatusPoint] = Field(description="levels per status letter over wall time")
    stages: list[StageCount]
    latency: list[LatencyBucket] = Field(description="teacher seconds per attempt, by attempt")
    learnability: list[LearnabilityPoint]
    active_scores: list[float] = Field(description="learnability of each active-set level")


# ---------------------------------------------------------------------- levels
class LevelFields(FromRecord):
    id: int
    run_id: int
    domain: str
    name: str | None
    teacher: str
    skill: str | None = Field(description="the skill the level targets, if a skill edit made it")
    status: StatusLetter
    success_rate: float | None
    score: float = Field(
        description="the priority the student ranks levels by: learnability p(1-p), or with "
        "transfer scoring p(1-p)·2^clip(w·t, -2, 2), t the level's transfer to the target"
    )
    active: bool
    times_sampled: int
    last_sampled: int | None
    created_iteration: int | None
    created_at: datetime


def _summary(text: str) -> str:
    return text[:SUMMARY_CHARS]


class LevelSummary(LevelFields):
    description: Annotated[str, AfterValidator(_summary)] = Field(
        description=f"the first {SUMMARY_CHARS} characters"
    )


class LevelPage(BaseModel):
    total: int = Field(description="levels matching the filters")
    offset: int
    limit: int
    items: list[LevelSummary]


class Evaluation(FromRecord):
    student_iteration: int
    episodes: int
    successes: int
    success_rate: float | None
    mean_return: float | None
    per_goal: dict[str, Any]
    target_change: float | None = Field(
        description="the target figure's change over the session, credited to the levels "
        "trained in it (none when the target was not measured on both sides)"
    )
    created_at: datetime


class BundleSummary(BaseModel):
    """Goal, rules, pool size and array shapes of a stored bundle (not the arrays)."""

    goal: dict[str, int]
    rules: dict[str, float]
    pool_size: int
    arrays: dict[str, list[int]]
    provenance: dict[str, Any]
    bytes: int


class BundleError(BaseModel):
    error: str = Field(description="why the stored bundle could not be read")


class LevelDetail(LevelFields):
    description: str
    reasoning: str | None
    code: str
    meta: dict[str, Any]
    content_hash: str
    bundle: BundleSummary | BundleError | None
    history: list[Evaluation]
    parents: list[int]
    children: list[int]


class Preview(BaseModel):
    level_id: int
    domain: str
    text: str


# ---------------------------------------------------------------------- attempts
class AttemptSummary(FromRecord):
    id: int
    run_id: int
    teacher: str
    verdict: Verdict
    stage_reached: str
    failing_stage: str | None
    error: str | None
    parent_id: int | None
    level_id: int | None
    latency_s: float | None
    tokens_in: int | None
    tokens_out: int | None
    created_at: datetime


class AttemptDetail(AttemptSummary):
    code: str | None
    prompts: list[Any]
    responses: list[Any]


class AttemptPage(BaseModel):
    total: int = Field(description="attempts matching the filters")
    offset: int
    limit: int
    items: list[AttemptDetail | AttemptSummary] = Field(
        description="with code, prompts and responses when asked for ``full``"
    )


# ---------------------------------------------------------------------- lineage
class GraphNode(FromRecord):
    id: int
    status: StatusLetter
    success_rate: float | None
    score: float
    active: bool
    teacher: str
    times_sampled: int
    last_sampled: int | None
    created_iteration: int | None


class GraphEdge(FromRecord):
    parent: int
    child: int


class Graph(FromRecord):
    nodes: list[GraphNode]
    edges: list[GraphEdge]


class Lineage(Graph):
    root: int
    depth: int


class ViewNode(GraphNode):
    instruction: str | None = Field(description="what the edge into it asked for")
    hidden: int = Field(description="descendants folded into this node")


class ViewEdge(GraphEdge):
    instruction: str | None = Field(description="harder, easier, vary or skill")


class LineageView(BaseModel):
    """The lineage graph a browser draws (collapsed beyond ``max_nodes``, see ``rule``)."""

    total: int = Field(description="levels in the run")
    rule: str = Field(description="which levels are drawn and how the rest is folded")
    nodes: list[ViewNode]
    edges: list[ViewEdge]


# ---------------------------------------------------------------------- mutations
class GenerationState(BaseModel):
    run: str
    generation_paused: bool


class SubmittedLevel(BaseModel):
    """A hand-written level: Python source defining the domain's level contract."""

    code: str = Field(min_length=1, max_length=MAX_CODE_CHARS)
    parent_id: int | None = Field(default=None, ge=1, description="level it derives from")
    name: str | None = Field(default=None, max_length=MAX_TEXT)


class SubmissionResult(BaseModel):
    """The stored attempt of a submission, and its level when the sandbox accepted it."""

    attempt_id: int
    accepted: bool
    stage: str = Field(description='"accepted" or the stage that rejected the level')
    error: str | None
    level_id: int | None
    duplicate: bool = Field(description="the run held a level with this content already")
    detail: str | None = Field(description="why it was not accepted (null when accepted)")


# ---------------------------------------------------------------------- experiments
class ExperimentSummary(BaseModel):
    """An experiment document of the figures directory (``services.experiment_view``)."""

    name: str = Field(description="the figures file's name without .json")
    headline: str = Field(description="the figure the arms are compared on")
    baseline: str
    arms: list[str] = Field(description="the arms that ran, in the tables' order")
    runs: int


class BandPoint(FromRecord):
    env_steps: float
    mean: float = Field(description="over the seeds evaluated at these env steps")
    low: float | None = Field(description="95 % t-interval of the mean; null for one seed")
    high: float | None
    n: int = Field(description="seeds evaluated at these env steps")


class SeedFigure(FromRecord):
    seed: int
    figure: float = Field(description="the run's mean of its last three evaluations")


class Difference(FromRecord):
    diff: float = Field(description="the arm's mean run figure minus the baseline's")
    low: float = Field(description="95 % Welch interval")
    high: float
    moved: bool = Field(description="the interval excludes zero")


class ExperimentArm(FromRecord):
    name: str
    note: str
    n: int
    mean: float = Field(description="of the run figures")
    std: float = Field(description="sample std of the run figures (0 for one seed)")
    seeds: list[SeedFigure]
    vs_baseline: Difference | None = Field(description="null for the baseline or one seed")
    curve: list[BandPoint] = Field(description="the mean learning curve over seeds")
    without_curve: int = Field(description="runs whose record kept no curve")


class ExperimentDetail(FromRecord):
    name: str
    protocol: str
    headline: str
    baseline: str
    arms: list[ExperimentArm]
