"""The seam between the world-neutral system and one world: the :class:`Domain` protocol.

A world lives in one folder, ``dicode/domains/<world>/``, and exposes everything the rest of the
system needs through one object (``dicode/domains/<world>/domain.py``), looked up by name with
``dicode.domains.get``. Nothing outside ``dicode/domains/`` asks which world it is working on:
the validation pipeline, the sandbox, the renderers, the teachers, the student loop and the
services all go through this protocol. Methods that need JAX import it when called, so looking
a world up stays cheap (the sandbox worker and the CLI's ``--help`` never pay for JAX).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    from PIL import Image

    from dicode.levels.answer import PoolSchema
    from dicode.levels.bundle import LevelBundle
    from dicode.levels.sandbox import SandboxLimits
    from dicode.settings import EvaluatorSettings, RunSettings, StudentSettings
    from dicode.student.loop import SlotTrainer
    from dicode.teachers.genome_base import GenomeCodec

Pool = dict[str, np.ndarray]  # a level's K initial states: arrays with a leading axis K


@dataclass(frozen=True)
class RolloutReport:
    """What engine rollouts over a pool found."""

    solved_at_reset: int  # instances whose goal already holds at reset
    difficulty: dict[str, float]  # e.g. random_success, heuristic_success (recorded, not gates)
    problem: str | None = None  # another reason to reject found by playing (e.g. blocked spawn)


class RolloutEvaluator(Protocol):
    """Plays a pool in the real engine; compiled once, reused for every level."""

    def evaluate(self, pool: Pool, seed: int) -> RolloutReport: ...


class TargetProtocol(Protocol):
    """A world's target-game evaluation, run on a student checkpoint (compiled once)."""

    def read_params(self, checkpoint: Path) -> Any:
        """The network parameters stored in a checkpoint file of the world's student."""
        ...

    def measure(self, params: Any) -> dict[str, Any]:
        """Play the protocol; the figures of ``Domain.target_metrics`` come first, the per-skill
        figures under ``"skills"`` (``{skill: rate in [0, 1]}``)."""
        ...


class Domain(Protocol):
    """Everything one world provides (see the module docstring)."""

    name: str
    # --- levels as code -------------------------------------------------------------------
    builder_module: str  # imported inside the sandbox worker: NumPy and the stdlib only
    builder_version: str  # recorded in every bundle's provenance
    sandbox_limits: SandboxLimits | None  # None: the sandbox's defaults
    pool_schema: PoolSchema  # field → (dtype, instance shape): every sandbox answer, exactly

    def builder_api_docs(self) -> str:
        """The builder's API for prompts (rendered from its docstrings)."""
        ...

    def prompt_facts(self) -> dict[str, str]:
        """Game facts the prompt templates name (``$name`` placeholders), read from code."""
        ...

    def seed_sources(self) -> dict[str, str]:
        """Hand-written seed levels by name, easy first, the target game among them."""
        ...

    def target_source(self) -> str:
        """The target game written as a level (used to warm the pipeline up)."""
        ...

    def base_worlds(self, seed: int, count: int) -> Pool | None:
        """Worlds the level code edits, made in the parent and sent to the sandbox as data
        (Craftax); None when levels build from scratch."""
        ...

    def check_pool(self, pool: Pool) -> dict[str, int]:
        """Check the sandbox's arrays against the state schema; returns the goal.

        Raises ``ValueError`` naming the problem."""
        ...

    def rules_of(self, pool: Pool) -> dict[str, float]:
        """The bounded rule parameters the level sets (empty when the world has none)."""
        ...

    def impossible_goal(self, pool: Pool) -> str | None:
        """Why the goal can provably never be met, or None."""
        ...

    def make_rollouts(self, steps: int) -> RolloutEvaluator:
        """The engine rollouts of the validation pipeline (imports JAX)."""
        ...

    # --- people and judges ----------------------------------------------------------------
    def render_text(self, bundle: LevelBundle, count: int) -> str:
        """The first ``count`` pool instances as text."""
        ...

    def render_image(self, bundle: LevelBundle, index: int, cell: int) -> Image.Image:
        """One pool instance as a picture, ``cell`` pixels per grid cell."""
        ...

    # --- teachers ---------------------------------------------------------------------------
    def genome(self) -> GenomeCodec:
        """The mutation teacher's typed genome of this world's levels and its edits."""
        ...

    # --- target game and student ------------------------------------------------------------
    target_metrics: tuple[str, ...]  # figures of a target evaluation, the headline first
    headline_label: str  # how people read the headline, e.g. "target lines"

    def describe_skills(self, figures: Mapping[str, Any]) -> str:
        """A target evaluation's skill profile in a few lines, for prompts and people."""
        ...

    def frontier_skills(self, figures: Mapping[str, Any]) -> list[str]:
        """Skills to teach next, best first: rarely mastered, while what they build on is
        (the skill instruction's candidates; empty when nothing qualifies)."""
        ...

    def profiles(self) -> Mapping[str, RunSettings]:
        """Named run presets (``dicode run --domain <world> --profile <name>``)."""
        ...

    def ppo_config(self, values: Mapping[str, Any]) -> Any:
        """The world's student configuration from stored values (unknown keys: ValueError)."""
        ...

    def make_trainer(self, student: StudentSettings, evaluator: EvaluatorSettings) -> SlotTrainer:
        """The world's compiled student over ``student.ppo``'s slots, evaluating itself with
        ``evaluator``'s protocol settings (imports JAX)."""
        ...

    def decode_pool(self, bundle: LevelBundle) -> Any:
        """A stored level bundle as the slot data the world's trainer places."""
        ...

    def make_target_protocol(
        self, student: StudentSettings, evaluator: EvaluatorSettings
    ) -> TargetProtocol:
        """The target-game evaluation of checkpoints of ``student`` (imports JAX)."""
        ...
