"""The Tetris world as one object: everything the rest of the system needs of it.

Levels edit the start of a standard 10×20 game (cells, garbage, wells, piece weights or a fixed
sequence, a goal of lines within N pieces or survival); the student scores afterstates over all
162 placements; the target is the standard game, scored in lines per game (docs/tetris.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dicode.archive.config import ArchiveConfig
from dicode.domains.base import RolloutEvaluator
from dicode.domains.folder import StudentClasses, WorldFolder
from dicode.domains.tetris import level_checks
from dicode.domains.tetris.builder import BUILDER_VERSION
from dicode.domains.tetris.seeds import TARGET_LEVEL_FILE, seed_level_sources
from dicode.domains.tetris.student.config import PPOConfig
from dicode.settings import (
    EvaluatorSettings,
    GeneratorSettings,
    RunSettings,
    StudentSettings,
)

if TYPE_CHECKING:
    import numpy as np

    from dicode.levels.bundle import LevelBundle
    from dicode.teachers.base import PerformanceProfile

# A student small enough for 2 CPU cores: 5 slots (1 target + 4 levels) x 16 environments.
_QUICK_PPO = PPOConfig(
    num_slots=5, envs_per_slot=16, pool_size=8, num_steps=32, train_piece_cap=500, seed=0
)
_PROFILES = {
    "quick": RunSettings(
        profile="quick",
        domain="tetris",
        student=StudentSettings(ppo=_QUICK_PPO),
        evaluator=EvaluatorSettings(games=20, max_steps=500, every_s=45.0),
        archive=ArchiveConfig(active_capacity=100),
    ),
    "llm": RunSettings(
        profile="llm",
        domain="tetris",
        # 16 in flight: the most that stays model-bound (96 % of ideal) for a model answering
        # in 2 s; at 64 the serial sandbox binds (benchmarks/llm_inflight.py).
        generator=GeneratorSettings(teacher="llm", in_flight=16, max_untrained=16),
        student=StudentSettings(ppo=_QUICK_PPO),
        evaluator=EvaluatorSettings(games=20, max_steps=1000, every_s=60.0),
    ),
}


class TetrisDomain(WorldFolder):
    """The :class:`~dicode.domains.base.Domain` of Tetris."""

    name = "tetris"
    package = "dicode.domains.tetris"
    genome_fallback = "the standard game"
    builder_module = "dicode.domains.tetris.builder"
    builder_version = BUILDER_VERSION
    sandbox_limits = None
    pool_schema = level_checks.POOL_SCHEMA
    target_metrics = ("mean_lines", "mean_pieces")
    headline_label = "target lines"
    target_evaluation = EvaluatorSettings(games=20, max_steps=1_000)  # docs/evaluation.md
    ppo_class = PPOConfig
    run_profiles = _PROFILES

    def seed_sources(self) -> dict[str, str]:
        return seed_level_sources()

    def target_source(self) -> str:
        return TARGET_LEVEL_FILE.read_text(encoding="utf-8")

    def make_rollouts(self, steps: int) -> RolloutEvaluator:
        from dicode.domains.tetris.rollouts import TetrisRollouts

        return TetrisRollouts(steps=steps)

    def decode_pool(self, bundle: LevelBundle) -> Any:
        import jax.numpy as jnp

        from dicode.domains.tetris.schema import TetrisLevel

        names = TetrisLevel.__dataclass_fields__
        missing = set(names) - set(bundle.pool)
        if missing:
            raise ValueError(f"the level's pool lacks {sorted(missing)}")
        return TetrisLevel(**{name: jnp.asarray(bundle.pool[name]) for name in names})

    def target_genome(
        self, student: Any, target: PerformanceProfile, rng: np.random.Generator
    ) -> Any | None:
        from dicode.domains.tetris.genome_edits import target_genome

        del student  # one rule set: the standard game
        return target_genome(target.start_states, rng)

    def student_classes(self) -> StudentClasses:
        from dicode.domains.tetris.student.trainer import TetrisSlotTrainer, TetrisTargetProtocol

        return TetrisSlotTrainer, TetrisTargetProtocol


DOMAIN = TetrisDomain()
