"""The Craftax world as one object: everything the rest of the system needs of it.

Levels edit worlds made by Craftax's own generator (blocks, mobs, floor, inventory, stats) and
set bounded rule multipliers and a goal (a subset of the 67 achievements); the student is
PPO-RNN or PPO-GTrXL (profile ``smoke_gtrxl``) over the pool engine; the target is the real
Craftax-Symbolic game, scored in % of the maximum return (docs/craftax.md).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from dicode.archive.config import ArchiveConfig
from dicode.domains.base import Pool, RolloutEvaluator
from dicode.domains.craftax import level_checks
from dicode.domains.craftax.builder import BUILDER_VERSION
from dicode.domains.craftax.student.config import EVAL_ENVS, EVAL_MAX_STEPS, CraftaxPPOConfig
from dicode.domains.folder import StudentClasses, WorldFolder
from dicode.levels.sandbox import SandboxLimits
from dicode.settings import (
    EvaluatorSettings,
    GeneratorSettings,
    RunSettings,
    StudentSettings,
)
from dicode.student.curriculum import CurriculumConfig

if TYPE_CHECKING:
    import numpy as np

    from dicode.levels.bundle import LevelBundle
    from dicode.teachers.base import PerformanceProfile

# Craftax on 2 CPU cores, to check the whole loop: 4 slots (the target + 3 levels, so the 7 seed
# levels are trained within 3 sessions and generated ones soon after) x 4 envs, a narrow GRU,
# short sessions, an 8-game evaluation capped at 500 steps, one generation attempt in flight.
_SMOKE_PPO = CraftaxPPOConfig(
    num_slots=4,
    envs_per_slot=4,
    pool_size=16,
    num_steps=32,
    num_minibatches=2,
    update_epochs=2,
    layer_size=64,
    seed=0,
)
_PROFILES = {
    "smoke": RunSettings(
        profile="smoke",
        domain="craftax",
        generator=GeneratorSettings(in_flight=1, max_untrained=4, pool_size=4),
        student=StudentSettings(
            ppo=_SMOKE_PPO,
            curriculum=CurriculumConfig(target_fraction=0.25),
            iterations_per_session=2,
            checkpoint_every=5,  # sessions take ~1 s once compiled
        ),
        evaluator=EvaluatorSettings(games=8, max_steps=500, every_s=15.0),
        archive=ArchiveConfig(active_capacity=20),
    ),
}
# The same smoke run with DiCode's student, PPO-GTrXL (narrow: 32 wide, 2 heads, 16-step memory).
_SMOKE_GTRXL_PPO = replace(
    _SMOKE_PPO, student="gtrxl", gtrxl_embed=32, gtrxl_heads=2, gtrxl_memory=16
)
_PROFILES["smoke_gtrxl"] = replace(
    _PROFILES["smoke"],
    profile="smoke_gtrxl",
    student=replace(_PROFILES["smoke"].student, ppo=_SMOKE_GTRXL_PPO),
)


class CraftaxDomain(WorldFolder):
    """The :class:`~dicode.domains.base.Domain` of Craftax."""

    name = "craftax"
    package = "dicode.domains.craftax"
    genome_fallback = "the unmodified game (every achievement as goal)"
    builder_module = "dicode.domains.craftax.builder"
    builder_version = BUILDER_VERSION
    # A Craftax world is ~0.27 MB: a pool of 32 needs a larger answer and more memory.
    sandbox_limits = SandboxLimits(
        wall_seconds=20.0, memory_bytes=1024 * 2**20, answer_bytes=64 * 2**20
    )
    pool_schema = level_checks.POOL_SCHEMA
    target_metrics = ("percent_of_max", "mean_return")
    headline_label = "target % of max"
    target_evaluation = EvaluatorSettings(games=EVAL_ENVS, max_steps=EVAL_MAX_STEPS)
    ppo_class = CraftaxPPOConfig
    run_profiles = _PROFILES

    def base_worlds(self, seed: int, count: int) -> Pool | None:
        from dicode.domains.craftax.state_codec import generate_base_worlds  # JAX, parent only

        return generate_base_worlds(seed, count)

    def rules_of(self, pool: Pool) -> dict[str, float]:
        return level_checks.rules_of(pool)

    def make_rollouts(self, steps: int) -> RolloutEvaluator:
        from dicode.domains.craftax.rollouts import CraftaxRollouts

        return CraftaxRollouts(steps=steps)

    def decode_pool(self, bundle: LevelBundle) -> Any:
        return level_checks.pool_to_bundle(bundle.pool)  # re-checked: stored data is data

    def target_genome(
        self, student: Any, target: PerformanceProfile, rng: np.random.Generator
    ) -> Any | None:
        from dicode.domains.craftax.skills import target_genome

        del student  # one target game: the full game
        return target_genome(target.skills, rng)

    def student_classes(self) -> StudentClasses:
        from dicode.domains.craftax.student.trainer import CraftaxSlotTrainer, CraftaxTargetProtocol

        return CraftaxSlotTrainer, CraftaxTargetProtocol


DOMAIN = CraftaxDomain()
