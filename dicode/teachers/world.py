"""What teachers need of a world: :class:`TeachingWorld`, a part of ``Domain``.

The package owns this protocol so that it never imports a world: the edge looks the world up
(``dicode.domains.get``) and hands the object to the teacher; every ``Domain`` is a
``TeachingWorld``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from dicode.levels.world import LevelWorld

if TYPE_CHECKING:
    import numpy as np

    from dicode.teachers.base import ParentLevel, PerformanceProfile
    from dicode.teachers.genome_base import GenomeCodec


class TeachingWorld(LevelWorld, Protocol):
    """A world as the prompts and the teachers see it (its levels validate as a ``LevelWorld``)."""

    def builder_api_docs(self) -> str:
        """The builder's API for prompts (rendered from its docstrings)."""
        ...

    def prompt_facts(self) -> dict[str, str]:
        """Game facts the prompt templates name (``$name`` placeholders), read from code."""
        ...

    def prompt_folder(self) -> Path:
        """The folder of this world's prompt templates (``system``, ``description``, ``code``,
        ``repair``, ``instruction_*``; ``.md``)."""
        ...

    def genome(self) -> GenomeCodec:
        """The mutation teacher's typed genome of this world's levels and its edits."""
        ...

    def target_parent(
        self, student: Any, target: PerformanceProfile, rng: np.random.Generator
    ) -> ParentLevel | None:
        """A parent that is the target game itself aimed at what the student fails there,
        written as a level by the world's genome (its description begins with
        ``TARGET_PARENT_LABEL``; its kind is TARGET, its profile ``target``), or None where the
        world cannot write one (yet). ``student`` is the run's student configuration
        (``Domain.ppo_config``: it names the target game's variant), ``target`` the target
        student's newest profile."""
        ...
