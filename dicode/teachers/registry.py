"""Teachers by name, for the CLI and the generator service.

Each entry is a ``"module:function"`` path to a factory taking a :class:`TeacherContext`, imported
only when that teacher is asked for (the LLM teacher pulls in the ``openai`` SDK; the mutation
teacher needs nothing of it). Adding a teacher = one line in ``_FACTORIES``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dicode.teachers.base import Teacher, Validate
from dicode.teachers.world import TeachingWorld

_FACTORIES: dict[str, str] = {
    "llm": "dicode.teachers.llm_teacher:build_llm_teacher",
    "mutation": "dicode.teachers.mutation:build_mutation_teacher",
}


@dataclass(frozen=True)
class TeacherContext:
    """What a factory may use to build its teacher."""

    world: TeachingWorld  # the world whose levels are written, looked up by the caller
    validate: Validate
    seed: int = 0
    options: dict[str, Any] = field(default_factory=dict)  # teacher-specific settings
    # Attempts the caller keeps going at once; each has at most one model call open, so the
    # LLM teacher lets this many calls run together.
    in_flight: int = 4


TeacherFactory = Callable[[TeacherContext], Teacher]


def teacher_names() -> list[str]:
    """Names accepted by :func:`make_teacher`."""
    return sorted(_FACTORIES)


def register_teacher(name: str, factory_path: str) -> None:
    """Make ``name`` available, given a ``"module:function"`` factory path."""
    _FACTORIES[name] = factory_path


def make_teacher(name: str, context: TeacherContext) -> Teacher:
    """Build the teacher called ``name``; unknown names get the list of known ones."""
    if name not in _FACTORIES:
        raise ValueError(f"unknown teacher {name!r}; known teachers: {', '.join(teacher_names())}")
    module_name, _, function_name = _FACTORIES[name].partition(":")
    factory: TeacherFactory = getattr(importlib.import_module(module_name), function_name)
    return factory(context)
