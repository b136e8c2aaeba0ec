"""The seam between the world-neutral system and one world: the :class:`Domain` protocol.

A world lives in one folder, ``dicode/domains/<world>/``, and exposes everything the rest of the
system needs through one object (``dicode/domains/<world>/domain.py``), looked up by name with
``dicode.domains.get`` once, at the edge (the CLI, the services, the benchmarks), and passed
down as the object. Nothing outside ``dicode/domains/`` asks which world it is working on: the
validation pipeline, the sandbox, the renderers, the teachers, the student loop and the
services all go through this protocol. The library's packages own the parts they use
(``dicode.levels.world.LevelWorld``, ``dicode.teachers.world.TeachingWorld``) and never import
a world; ``Domain`` extends them. Methods that need JAX import it when called, so looking a
world up stays cheap (the sandbox worker and the CLI's ``--help`` never pay for JAX).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from dicode.levels.world import Pool, RolloutEvaluator, RolloutReport
from dicode.teachers.world import TeachingWorld

if TYPE_CHECKING:
    from dicode.levels.bundle import LevelBundle
    from dicode.settings import EvaluatorSettings, RunSettings, StudentSettings
    from dicode.student.loop import SlotTrainer

# The level pipeline's names a world implements, offered beside ``Domain`` to the worlds.
__all__ = ["Domain", "Pool", "RolloutEvaluator", "RolloutReport", "TargetProtocol"]


class TargetProtocol(Protocol):
    """A world's target-game evaluation, run on a student checkpoint (compiled once)."""

    def read_params(self, checkpoint: Path) -> Any:
        """The network parameters stored in a checkpoint file of the world's student."""
        ...

    def measure(self, params: Any) -> dict[str, Any]:
        """Play the protocol; the figures of ``Domain.target_metrics`` come first, the per-skill
        figures under ``"skills"`` (``{skill: rate in [0, 1]}``)."""
        ...


class Domain(TeachingWorld, Protocol):
    """Everything one world provides (see the module docstring).

    Its levels as code — builder, sandbox schema, checks, rollouts, renderers — are the
    ``LevelWorld`` part (``dicode.levels.world``); prompts and genome the ``TeachingWorld``
    part (``dicode.teachers.world``); the rest is declared here.
    """

    def seed_sources(self) -> dict[str, str]:
        """Hand-written seed levels by name, easy first, the target game among them."""
        ...

    # --- target game and student ------------------------------------------------------------
    target_metrics: tuple[str, ...]  # figures of a target evaluation, the headline first
    headline_label: str  # how people read the headline, e.g. "target lines"
    target_evaluation: EvaluatorSettings  # the target protocol's games and step cap by default

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

    def trains_target_on_device(self) -> bool:
        """Its trainer runs the target game as a device program (several seeds at once:
        ``dicode.student.target_program.DeviceTargetTrainer``)."""
        ...

    def decode_pool(self, bundle: LevelBundle) -> Any:
        """A stored level bundle as the slot data the world's trainer places."""
        ...

    def pool_difficulty(self, pool: Any) -> dict[str, float]:
        """What a decoded pool asks of the student, as figures a run averages over what it
        trained (the maze: ``walls`` and ``path``, moves from start to goal); empty where the
        world measures none."""
        ...

    def make_target_protocol(
        self, student: StudentSettings, evaluator: EvaluatorSettings
    ) -> TargetProtocol:
        """The target-game evaluation of checkpoints of ``student`` (imports JAX)."""
        ...
