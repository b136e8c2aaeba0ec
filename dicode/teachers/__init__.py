"""Teachers write child levels: the Teacher protocol, the LLM teacher, a registry by name."""

from dicode.teachers.base import (
    ExampleLevel,
    MutationInstruction,
    ParentLevel,
    PerformanceProfile,
    Teacher,
    TeacherRequest,
    TeacherResult,
    instruction_for_status,
)
from dicode.teachers.registry import TeacherContext, make_teacher, register_teacher, teacher_names

__all__ = [
    "ExampleLevel",
    "MutationInstruction",
    "ParentLevel",
    "PerformanceProfile",
    "Teacher",
    "TeacherContext",
    "TeacherRequest",
    "TeacherResult",
    "instruction_for_status",
    "make_teacher",
    "register_teacher",
    "teacher_names",
]
