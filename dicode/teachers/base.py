"""The Teacher protocol: what every teacher reads and the attempt record it always returns.

A teacher gets a parent level with its performance profile, the target game's profile, a
mutation instruction derived from the parent's status letter (or, on the ladder, from its
success against 0.5: :func:`ladder_instruction`), and example levels; it returns a
:class:`TeacherResult` — description, code, sandbox verdict and every model exchange — whether
the attempt succeeded or not, so the archive can store all of it. A parent is an archive level
or *target-derived*: the target game itself, written by the world aimed at what the target
student fails (``TeachingWorld.target_parent``).
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


#: The success the ladder aims a parent's children at: a level the student solves half the
#: time teaches most (learnability p(1 − p) peaks there).
LADDER_AIM = 0.5


def ladder_instruction(success: float | None, band: float) -> MutationInstruction:
    """The ladder's step from a parent's latest measured success ``success``:
    ``success >= 0.5 + band`` → harder, ``success <= 0.5 − band`` → easier, else vary.

    The status letters step at 0.75 and 0.25 and send unplayed levels easier; the ladder
    centres on ``LADDER_AIM`` with a band the run sets, and an unmeasured parent (``None``)
    is varied: nothing says which way it should go. ``band`` lies in (0, 0.5].
    """
    if not 0.0 < band <= LADDER_AIM:
        raise ValueError(f"the ladder's band must lie in (0, {LADDER_AIM}], got {band}")
    if success is None:
        return MutationInstruction.VARY
    if success >= LADDER_AIM + band:
        return MutationInstruction.HARDER
    if success <= LADDER_AIM - band:
        return MutationInstruction.EASIER
    return MutationInstruction.VARY


class ParentKind(StrEnum):
    """Where a parent comes from: the archive, or the target game aimed at the student's
    failures (written by the world, not stored: such a child has no parent id)."""

    ARCHIVE = "archive"
    TARGET = "target"


#: How a target-derived parent's description begins (prompts name it; people read it).
TARGET_PARENT_LABEL = "Target-derived parent"


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
    """The level a child is generated from: an archive level (with its id), or a
    target-derived one (``kind`` TARGET, no id; its profile is the target student's)."""

    description: str
    code: str
    profile: PerformanceProfile = field(default_factory=PerformanceProfile)
    level_id: str | None = None
    kind: ParentKind = ParentKind.ARCHIVE

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
        ladder_band: float | None = None,
    ) -> TeacherRequest:
        """Request whose instruction follows from the parent's status letter, or with a
        ``ladder_band`` from its latest success (:func:`ladder_instruction`)."""
        if ladder_band is None:
            instruction = instruction_for_status(parent.status)
        else:
            instruction = ladder_instruction(parent.profile.latest_success_rate, ladder_band)
        return cls(parent, target_profile, instruction, examples, seed)


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
    parent_kind: ParentKind = ParentKind.ARCHIVE

    @classmethod
    def for_request(cls, teacher: str, request: TeacherRequest) -> TeacherResult:
        """An empty record of one attempt at ``request``: its instruction, skill and parent
        (a target-derived parent has no id; its kind and the reasoning's first line say so)."""
        parent = request.parent
        return cls(
            teacher=teacher,
            instruction=request.instruction,
            parent_id=parent.level_id,
            skill=request.skill,
            parent_kind=parent.kind,
        )

    def note_parent(self) -> None:
        """Begin the reasoning with the parent's kind when it is target-derived, so the
        archive's level row (which keeps the reasoning, not the kind) says where it came from."""
        if self.parent_kind is ParentKind.TARGET:
            note = f"{TARGET_PARENT_LABEL} (the target game aimed at the student's failures)."
            self.reasoning = note if not self.reasoning else f"{note}\n{self.reasoning}"

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
            "parent_kind": str(self.parent_kind),
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
