"""The `Domain` methods every world answers the same way, from its own folder.

A world's folder holds modules of fixed names and functions: ``builder`` (``builder_api_docs``,
``prompt_facts``), ``level_checks`` (``check_pool``, ``impossible_goal``), ``render``
(``pool_text``, ``pool_image``), ``skills`` (``describe_skills``, ``frontier_skills``),
``genome`` and ``genome_edits`` (the mutation teacher's genome), and ``seed_levels``
(``SEED_LEVEL_NAMES``, ``seed_level_source``: `packaged_seed_source` reads a seed kept as a
module of that package; a world that keeps its seeds otherwise overrides ``seed_sources`` and
``target_source``). Its prompt templates are a ``prompts/`` folder of the world's package
when it has one (a world outside the library brings its own), else ``dicode/prompts/<world>/``;
``$DICODE_PROMPTS_DIR/<world>/`` overrides both.
`WorldFolder` hands each of those methods to the module of that name under the world's
``package``, so a world's ``domain.py`` keeps only what is its own. It also answers
``profiles`` and ``ppo_config`` from the class's ``run_profiles`` and ``ppo_class``,
``make_trainer`` and ``make_target_protocol`` from the world's `student_classes`, and, for
levels built from scratch, ``base_worlds`` (None) and ``rules_of`` (no rules). A target-derived
parent (``target_parent``) is the genome a world's ``target_genome`` makes, written by its
``genome`` module; a world without one (the default) writes none. A module is
imported when a method first needs it: ``render`` pulls in PIL, and looking a world up must stay
cheap.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import replace
from importlib import import_module, resources
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from dicode.levels.world import Pool
from dicode.settings import config_from

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image

    from dicode.domains.base import TargetProtocol
    from dicode.levels.bundle import LevelBundle
    from dicode.settings import EvaluatorSettings, RunSettings, StudentSettings
    from dicode.student.loop import SlotTrainer
    from dicode.teachers.base import ParentLevel, PerformanceProfile
    from dicode.teachers.genome_base import GenomeCodec

#: What a trainer has that runs its target game on the device (``target_program``).
DEVICE_TARGET_METHODS = ("target_game", "evaluate_batch")

# A world's slot trainer and target protocol classes, each made from (its PPO config, the
# evaluation's games, its step cap).
StudentClasses = tuple[
    Callable[[Any, int, int], "SlotTrainer"], Callable[[Any, int, int], "TargetProtocol"]
]


def packaged_seed_source(package: str, names: tuple[str, ...], name: str) -> str:
    """The source text of seed level ``name`` (what the sandbox runs and the archive stores):
    the module ``<name>.py`` of ``package``, one of the world's seed levels ``names``."""
    if name not in names:
        raise KeyError(f"unknown seed level {name!r} in {package}; known: {names}")
    return resources.files(package).joinpath(f"{name}.py").read_text(encoding="utf-8")


class WorldFolder:
    """Base of a world's Domain class; set ``package`` to the world's folder as a module path."""

    name: str  # the world's name: its folder's
    package: str  # e.g. "dicode.domains.maze"
    genome_fallback: str  # what a child of a parent outside the genome grammar starts from
    ppo_class: type[Any]  # the world's student configuration (`ppo_config` reads into it)
    run_profiles: Mapping[str, RunSettings]  # the named run presets (`profiles`)

    def _module(self, name: str) -> ModuleType:
        return import_module(f"{self.package}.{name}")

    def builder_api_docs(self) -> str:
        return self._module("builder").builder_api_docs()

    def prompt_facts(self) -> dict[str, str]:
        return self._module("builder").prompt_facts()

    def prompt_folder(self) -> Path:
        from dicode.teachers.prompts import ENV_PROMPTS_DIR, prompts_root

        own = Path(str(resources.files(self.package).joinpath("prompts")))
        if own.is_dir() and not os.environ.get(ENV_PROMPTS_DIR):
            return own
        return prompts_root() / self.name

    def check_pool(self, pool: Pool) -> dict[str, int]:
        return self._module("level_checks").check_pool(pool)

    def impossible_goal(self, pool: Pool) -> str | None:
        return self._module("level_checks").impossible_goal(pool)

    def render_text(self, bundle: LevelBundle, count: int) -> str:
        return self._module("render").pool_text(bundle, count)

    def render_image(self, bundle: LevelBundle, index: int, cell: int) -> Image.Image:
        return self._module("render").pool_image(bundle, index, cell)

    def describe_skills(self, figures: Mapping[str, Any]) -> str:
        return self._module("skills").describe_skills(figures)

    def frontier_skills(self, figures: Mapping[str, Any]) -> list[str]:
        return self._module("skills").frontier_skills(figures)

    def genome(self) -> GenomeCodec:
        from dicode.teachers.genome_base import GenomeCodec

        genome, edits = self._module("genome"), self._module("genome_edits")
        return GenomeCodec(
            genome.read_genome, genome.write_level, genome.describe, edits.mutate,
            fallback=self.genome_fallback, teach=edits.teach,
        )  # fmt: skip

    def target_parent(
        self, student: Any, target: PerformanceProfile, rng: np.random.Generator
    ) -> ParentLevel | None:
        from dicode.teachers.base import TARGET_PARENT_LABEL, ParentKind, ParentLevel

        genome = self.target_genome(student, target, rng)
        if genome is None:
            return None
        genome = replace(genome, description=f"{TARGET_PARENT_LABEL}: {genome.description}")
        code = self._module("genome").write_level(genome)
        return ParentLevel(genome.description, code, target, kind=ParentKind.TARGET)

    def target_genome(
        self, student: Any, target: PerformanceProfile, rng: np.random.Generator
    ) -> Any | None:
        """The world's genome of its target game aimed at the target student's failures
        (``target_parent``); None: this world writes no target-derived parent."""
        return None

    def seed_sources(self) -> dict[str, str]:
        seeds = self._module("seed_levels")
        return {name: seeds.seed_level_source(name) for name in seeds.SEED_LEVEL_NAMES}

    def target_source(self) -> str:
        return self._module("seed_levels").seed_level_source("target_game")

    # --- levels built from scratch unless a world overrides these -------------------------------

    def base_worlds(self, seed: int, count: int) -> Pool | None:
        return None

    def rules_of(self, pool: Pool) -> dict[str, float]:
        return {}

    # --- the student -----------------------------------------------------------------------------

    def profiles(self) -> Mapping[str, RunSettings]:
        return self.run_profiles

    def ppo_config(self, values: Mapping[str, Any]) -> Any:
        return config_from(self.ppo_class, dict(values))

    def student_classes(self) -> StudentClasses:
        """The world's slot trainer and target protocol classes; a world imports them here,
        when called (they pull in JAX)."""
        raise NotImplementedError(f"{type(self).__name__} names no student classes")

    def make_trainer(self, student: StudentSettings, evaluator: EvaluatorSettings) -> SlotTrainer:
        return self.student_classes()[0](student.ppo, evaluator.games, evaluator.max_steps)

    def pool_difficulty(self, pool: Any) -> dict[str, float]:
        return {}

    def trains_target_on_device(self) -> bool:
        trainer = self.student_classes()[0]
        return all(callable(getattr(trainer, name, None)) for name in DEVICE_TARGET_METHODS)

    def make_target_protocol(
        self, student: StudentSettings, evaluator: EvaluatorSettings
    ) -> TargetProtocol:
        return self.student_classes()[1](student.ppo, evaluator.games, evaluator.max_steps)
