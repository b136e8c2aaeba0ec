"""The Teacher protocol: what every teacher reads and the attempt record it always returns.

A teacher gets a parent level with its performance profile, the target game's profile, a
mutation instruction derived from the parent's status letter, and example levels; it returns a
:class:`TeacherResult` — description, code, sandbox verdict and every model exchange — whether
the attempt succeeded or not, so the archive can store all of it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from dicode.archive.status import status_letter


class MutationInstruction(StrEnum):
    """Which way the child should move relative to its parent; ``skill``: teach the skill the
    request names (one the target student lacks), whatever the parent's status."""

    HARDER = "harder"
    VARY = "vary"
    EASIER = "easier"
    SKILL = "skill"


# Status letters (dicode.archive.status): A if SR >= 0.75, B if >= 0.5, C if >= 0.25, else D.
# (The skill instruction is chosen by the generator from the target's profile, not by status.)
_INSTRUCTION_BY_STATUS = {
    "A": MutationInstruction.HARDER,
    "B": MutationInstruction.VARY,
    "C": MutationInstruction.VARY,
    "D": MutationInstruction.EASIER,
}


def instruction_for_status(status: str) -> MutationInstruction:
    """A → harder (mastered), B/C → vary (learning), D → easier (too hard or unplayed)."""
    try:
        return _INSTRUCTION_BY_STATUS[status.strip().upper()]
    except KeyError:
        raise ValueError(f"unknown status letter {status!r}; expected one of A, B, C, D") from None


@dataclass(frozen=True)
class PerformanceProfile:
    """How a student does on one level (or on the target game).

    ``success_rate_history`` is oldest first, one entry per training session;
    ``goal_metrics`` holds named per-goal figures (e.g. ``mean_lines``, ``mean_pieces``);
    ``skills`` the per-skill figures of the target protocol (Craftax: each achievement's success
    rate; Tetris: how far games get and how lines are cleared; maze: solve rate by maze
    property), ``figures`` the protocol's other figures the world's skill edits read,
    ``start_states`` states of the student's own evaluation games a skill level may start from
    (the evaluation's ``start_states``; Tetris: mid-game boards), and ``notes`` the world's own
    compact reading of them (``Domain.describe_skills``).
    """

    success_rate_history: tuple[float, ...] = ()
    goal_metrics: dict[str, float] = field(default_factory=dict)
    skills: dict[str, float] = field(default_factory=dict)
    figures: dict[str, float] = field(default_factory=dict)
    start_states: tuple[Any, ...] = ()
    notes: str = ""

    @property
    def latest_success_rate(self) -> float | None:
        return self.success_rate_history[-1] if self.success_rate_history else None

    def summary(self) -> str:
        """A compact, readable block for prompts."""
        if not self.success_rate_history and not self.goal_metrics:
            return "no training data yet"
        lines = []
        if self.success_rate_history:
            recent = ", ".join(f"{sr:.2f}" for sr in self.success_rate_history[-8:])
            lines.append(f"success rate per session (oldest first): {recent}")
        lines.extend(f"{name}: {value:g}" for name, value in sorted(self.goal_metrics.items()))
        if self.notes:
            lines.append(self.notes)
        return "\n".join(lines)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PerformanceProfile:
        def numbers(key: str) -> dict[str, float]:
            return {str(k): float(v) for k, v in data.get(key, {}).items()}

        return cls(
            success_rate_history=tuple(float(x) for x in data.get("success_rate_history", ())),
            goal_metrics=numbers("goal_metrics"),
            skills=numbers("skills"),
            figures=numbers("figures"),
            notes=str(data.get("notes", "")),
        )


@dataclass(frozen=True)
class ExampleLevel:
    """A level shown to the teacher as an example (from the archive or the seed levels)."""

    description: str
    code: str
    level_id: str | None = None


@dataclass(frozen=True)
class ParentLevel:
    """The level a child is generated from."""

    description: str
    code: str
    profile: PerformanceProfile = field(default_factory=PerformanceProfile)
    level_id: str | None = None

    @property
    def status(self) -> str:
        return status_letter(self.profile.latest_success_rate)


@dataclass(frozen=True)
class TeacherRequest:
    """Everything a teacher reads for one generation attempt."""

    parent: ParentLevel
    target_profile: PerformanceProfile
    instruction: MutationInstruction
    examples: tuple[ExampleLevel, ...] = ()
    seed: int = 0
    skill: str | None = None  # with instruction ``skill``: the skill the level should teach

    def __post_init__(self) -> None:
        if (self.instruction is MutationInstruction.SKILL) != (self.skill is not None):
            raise ValueError("the 'skill' instruction and a skill name go together")

    @classmethod
    def for_parent(
        cls,
        parent: ParentLevel,
        target_profile: PerformanceProfile,
        examples: tuple[ExampleLevel, ...] = (),
        seed: int = 0,
    ) -> TeacherRequest:
        """Request whose instruction follows from the parent's status letter."""
        return cls(parent, target_profile, instruction_for_status(parent.status), examples, seed)


@runtime_checkable
class VerdictLike(Protocol):
    """The part of the sandbox's verdict a teacher relies on (read-only)."""

    @property
    def accepted(self) -> bool: ...

    @property
    def stage(self) -> str: ...

    @property
    def error(self) -> str | None: ...


# The sandbox entry point a teacher validates through: source text in, verdict out. It runs
# the code in a separate sandboxed process; teachers never import or exec generated code.
Validate = Callable[[str], VerdictLike]


@dataclass
class ModelExchange:
    """One prompt sent to a model and what came back, with cost and latency."""

    stage: str  # "description", "code", "repair-1", "repair-2", …
    messages: list[dict[str, Any]]
    response: str | None
    error: str | None
    error_kind: str | None
    finish_reason: str | None
    latency_s: float
    prompt_tokens: int
    completion_tokens: int
    http_attempts: int


@dataclass
class CodeRound:
    """One code candidate (initial or repaired) and the sandbox's judgement of it."""

    round: int  # 0 = code stage, 1.. = repair rounds
    code: str | None
    extraction: str | None  # "tag" / "fence" / "bare", None if nothing was extracted
    accepted: bool
    stage: str | None  # failing stage, None when accepted
    error: str | None


@dataclass
class TeacherResult:
    """One generation attempt, recorded whatever happened.

    ``failing_stage`` is None when accepted; otherwise one of ``description`` (model call or
    JSON failed), ``code`` (model call failed or no code in the answer), ``sandbox`` (the
    validator itself broke) or the sandbox verdict's own stage name (syntax, import, build, …).
    """

    teacher: str
    instruction: MutationInstruction
    description: str | None = None
    title: str | None = None
    reasoning: str | None = None
    code: str | None = None
    verdict: VerdictLike | None = None
    failing_stage: str | None = None
    error: str | None = None
    exchanges: list[ModelExchange] = field(default_factory=list)
    rounds: list[CodeRound] = field(default_factory=list)
    latency_s: float = 0.0
    parent_id: str | None = None
    skill: str | None = None  # the skill the level targets (the request's)

    @property
    def accepted(self) -> bool:
        return self.verdict is not None and bool(self.verdict.accepted)

    @property
    def prompt_tokens(self) -> int:
        return sum(e.prompt_tokens for e in self.exchanges)

    @property
    def completion_tokens(self) -> int:
        return sum(e.completion_tokens for e in self.exchanges)

    @property
    def repair_rounds(self) -> int:
        return max(0, len(self.rounds) - 1)

    def to_record(self) -> dict[str, Any]:
        """JSON-safe dict of the whole attempt (the verdict reduced to its plain fields)."""
        verdict = None
        if self.verdict is not None:
            verdict = {
                "accepted": self.verdict.accepted,
                "stage": self.verdict.stage,
                "error": self.verdict.error,
            }
            for extra in ("difficulty", "warnings", "timings"):
                value = getattr(self.verdict, extra, None)
                if value is not None:
                    verdict[extra] = _json_safe(value)
        return {
            "teacher": self.teacher,
            "instruction": str(self.instruction),
            "skill": self.skill,
            "parent_id": self.parent_id,
            "accepted": self.accepted,
            "failing_stage": self.failing_stage,
            "error": self.error,
            "title": self.title,
            "description": self.description,
            "reasoning": self.reasoning,
            "code": self.code,
            "verdict": verdict,
            "latency_s": self.latency_s,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "repair_rounds": self.repair_rounds,
            "rounds": [asdict(r) for r in self.rounds],
            "exchanges": [asdict(e) for e in self.exchanges],
        }


def _json_safe(value: Any) -> Any:
    """Plain JSON types from dataclasses / pydantic models / numpy scalars in a verdict."""
    if hasattr(value, "model_dump"):
        return _json_safe(value.model_dump())
    if hasattr(value, "__dataclass_fields__"):
        return _json_safe(asdict(value))
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    if hasattr(value, "item"):
        return value.item()
    return value


class Teacher(Protocol):
    """Anything that writes a child level for a request. Must not raise on bad model output."""

    name: str

    async def propose(self, request: TeacherRequest) -> TeacherResult:
        """One generation attempt, always returned as a record."""
        ...
