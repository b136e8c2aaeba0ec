"""The mutation teacher: the embedded default that writes levels without a language model.

ACCEL-style: read the parent into the domain's typed genome (AST only — the parent's code is
never run here), apply one or two typed edits in the direction the instruction asks for, write
the child as readable level code whose docstring says what the level is and what changed from
the parent, and validate it through the same sandbox pipeline as every other teacher. Each
world's genome is a :class:`~dicode.teachers.genome_base.GenomeCodec` from its domain object
(``Domain.genome``: the world's ``genome`` and ``genome_edits`` modules).
Each call returns one :class:`~dicode.teachers.base.TeacherResult`, accepted or not; nothing
here raises on a bad parent or a failing sandbox.
"""

from __future__ import annotations

import asyncio
import textwrap
import time
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from dicode.teachers.base import (
    CodeRound,
    MutationInstruction,
    ParentKind,
    TeacherRequest,
    TeacherResult,
    Validate,
)
from dicode.teachers.genome_base import GenomeCodec, GenomeReading, Mutation, SkillTarget
from dicode.teachers.registry import TeacherContext

TEACHER_NAME = "mutation"
# How much of the parent's description the child's docstring quotes.
PARENT_SUMMARY_CHARS = 240
DOC_WIDTH = 96


@dataclass(frozen=True)
class ChildDraft:
    """A written but not yet validated child."""

    code: str
    description: str
    mutation: Mutation[Any]
    reading: GenomeReading[Any]  # how the parent was read (exact or fallback)


@dataclass
class MutationTeacher:
    """Writes children by typed genome edits; validates each child in the sandbox.

    ``seed`` and the request's ``seed`` together seed the edits, so the same request always
    gives the same child. ``max_edits`` bounds the edits per harder/easier child (vary: one).
    ``codec`` is the genome of the world whose levels are edited (``Domain.genome()``).
    """

    validate: Validate
    codec: GenomeCodec = field(repr=False)
    seed: int = 0
    max_edits: int = 2
    name: str = TEACHER_NAME

    def write_child(self, request: TeacherRequest) -> ChildDraft:
        """The child's code and how it came about, without validating it."""
        rng = np.random.default_rng([self.seed, request.seed])
        reading = self.codec.read(request.parent.code)
        mutation = None
        if request.skill is not None:
            profile = request.target_profile
            target = SkillTarget(
                request.skill, profile.skills, profile.figures, profile.start_states
            )
            mutation = self.codec.teach(reading.genome, target, rng)
        if mutation is None:  # no skill asked, or none this world can teach from the parent
            instruction = request.instruction
            if instruction is MutationInstruction.SKILL:
                instruction = MutationInstruction.VARY
            mutation = self.codec.mutate(reading.genome, instruction, rng, self.max_edits)
        text = child_description(request, reading, mutation, self.codec)
        child = replace(mutation.child, description=text).normalized()
        return ChildDraft(self.codec.write(child), child.description, mutation, reading)

    async def propose(self, request: TeacherRequest) -> TeacherResult:
        started = time.perf_counter()
        result = TeacherResult.for_request(self.name, request)
        try:
            draft = self.write_child(request)
        except Exception as exc:  # a bug in the edits must not stop the caller's loop
            result.failing_stage = "teacher"
            result.error = f"the mutation failed: {type(exc).__name__}: {exc}"
            result.latency_s = time.perf_counter() - started
            return result
        code = draft.code
        result.code = code
        result.description = draft.description
        result.title = title(draft.mutation)
        result.reasoning = reasoning(draft.reading, draft.mutation)
        result.note_parent()
        try:
            # The sandbox call blocks (it waits on a worker process): keep the event loop free.
            verdict = await asyncio.to_thread(self.validate, code)
        except Exception as exc:
            result.failing_stage = "sandbox"
            result.error = f"the validator failed: {type(exc).__name__}: {exc}"
            result.rounds.append(CodeRound(0, code, "genome", False, "sandbox", result.error))
            result.latency_s = time.perf_counter() - started
            return result
        result.verdict = verdict
        if not verdict.accepted:
            result.failing_stage = verdict.stage
            result.error = verdict.error
        result.rounds.append(
            CodeRound(
                0,
                code,
                "genome",
                bool(verdict.accepted),
                None if verdict.accepted else verdict.stage,
                verdict.error,
            )
        )
        result.latency_s = time.perf_counter() - started
        return result


def title(mutation: Mutation[Any]) -> str:
    """A one-line label: instruction and the edit kinds, e.g. ``harder: add_garbage + ...``."""
    kinds = " + ".join(edit.kind for edit in mutation.edits)
    return f"{mutation.instruction}: {kinds}"


def reasoning(reading: GenomeReading[Any], mutation: Mutation[Any]) -> str:
    """Why the child looks as it does, for the attempt record."""
    lines = [f"{edit.kind}: {edit.note}" for edit in mutation.edits]
    if not reading.exact:
        lines.append("parent outside the genome grammar: " + "; ".join(reading.unsupported))
    return "\n".join(lines)


def child_description(
    request: TeacherRequest,
    reading: GenomeReading[Any],
    mutation: Mutation[Any],
    codec: GenomeCodec,
) -> str:
    """The child's docstring: what the level is, then how it differs from its parent."""
    parent = request.parent
    parent_name = parent.level_id or (
        "a target-derived parent" if parent.kind is ParentKind.TARGET else "the parent level"
    )
    asked = request.instruction
    change = (
        f"Mutation ({mutation.instruction}) of {parent_name}: "
        + "; ".join(edit.note for edit in mutation.edits)
        + "."
    )
    paragraphs = [codec.describe(mutation.child), change]
    if mutation.instruction is not asked and asked is MutationInstruction.SKILL:
        paragraphs.append(
            f"No level teaching {request.skill} could be made from this parent, so the level "
            "was varied."
        )
    elif mutation.instruction is not asked:
        paragraphs.append(
            f"No {asked} edit applied (every field is at its bound), so the level was varied."
        )
    if not reading.exact:
        paragraphs.append(
            "The parent's code lies outside the mutation genome ("
            + "; ".join(reading.unsupported)
            + f"), so this child starts from {codec.fallback}."
        )
    parent_summary = _first_paragraph(parent.description)
    if parent_summary:
        paragraphs.append(f"Parent: {parent_summary}")
    return "\n\n".join(textwrap.fill(p, DOC_WIDTH) for p in paragraphs)


def _first_paragraph(text: str) -> str:
    first = text.strip().split("\n\n", 1)[0].replace("\n", " ").strip()
    if len(first) > PARENT_SUMMARY_CHARS:
        first = first[: PARENT_SUMMARY_CHARS - 1].rstrip() + "…"
    return first


def build_mutation_teacher(context: TeacherContext) -> MutationTeacher:
    """Registry factory: options ``max_edits`` (default 2); any world (its ``genome()``)."""
    max_edits = int(context.options.get("max_edits", 2))
    if max_edits < 1:
        raise ValueError(f"max_edits must be >= 1, got {max_edits}")
    return MutationTeacher(
        context.validate, context.world.genome(), seed=context.seed, max_edits=max_edits
    )
