"""The maze world as one object: everything the rest of the system needs of it.

Levels write walls, start and goal of a 13×13 grid maze through a builder; the engine is a
partially observed maze (5×5 egocentric view, left/right/forward, reward ``1 − 0.9·t/T`` at
the goal, T = 250); the student is PPO with a GRU; the target game is domain randomisation
(25 random walls, random start and goal) and the target protocol the zero-shot solve rate on a
fixed set of hand-designed held-out mazes (docs/maze.md). JAX is imported only inside the
methods that need it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dicode.archive.config import ArchiveConfig
from dicode.domains.base import RolloutEvaluator
from dicode.domains.folder import StudentClasses, WorldFolder
from dicode.domains.maze import level_checks
from dicode.domains.maze.builder import BUILDER_VERSION
from dicode.domains.maze.grid import MAX_STEPS
from dicode.domains.maze.student.config import EVAL_EPISODES, MazePPOConfig
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

# The whole loop on 2 CPU cores: 4 slots (the target + 3 levels, so the 10 seed levels are
# trained within 4 sessions and generated ones soon after) x 32 envs x 64 steps, a small
# network; an iteration takes ~0.3 s here once compiled (~15 s), so a session of 4 iterations
# is ~1 s and a checkpoint every 10 sessions; 4 episodes per held-out maze every 30 s.
_QUICK_PPO = MazePPOConfig(
    num_slots=4,
    envs_per_slot=32,
    pool_size=32,
    target_refresh=8,
    num_steps=64,
    num_minibatches=4,
    update_epochs=4,
    embed_size=64,
    hidden_size=64,
    seed=0,
)
# Larger, for learning curves on a CPU: 2 slots x 64 envs x 128 steps.
_TRAIN_PPO = MazePPOConfig(num_slots=2, envs_per_slot=64, pool_size=64, seed=0)
_PROFILES = {
    "quick": RunSettings(
        profile="quick",
        domain="maze",
        generator=GeneratorSettings(in_flight=1, max_untrained=8, pool_size=8),
        student=StudentSettings(
            ppo=_QUICK_PPO,
            curriculum=CurriculumConfig(target_fraction=0.25),
            iterations_per_session=4,
            checkpoint_every=10,
        ),
        evaluator=EvaluatorSettings(games=4, max_steps=250, every_s=30.0),
        archive=ArchiveConfig(active_capacity=50),
    ),
    "cpu": RunSettings(
        profile="cpu",
        domain="maze",
        generator=GeneratorSettings(in_flight=1, max_untrained=8, pool_size=16),
        student=StudentSettings(
            ppo=_TRAIN_PPO,
            curriculum=CurriculumConfig(target_fraction=0.5),
            iterations_per_session=2,
            checkpoint_every=20,
        ),
        evaluator=EvaluatorSettings(games=10, max_steps=250, every_s=60.0),
        archive=ArchiveConfig(active_capacity=100),
    ),
    "llm": RunSettings(
        profile="llm",
        domain="maze",
        generator=GeneratorSettings(teacher="llm", in_flight=4, max_untrained=16, pool_size=8),
        student=StudentSettings(
            ppo=_QUICK_PPO,
            curriculum=CurriculumConfig(target_fraction=0.25),
            checkpoint_every=10,
        ),
        evaluator=EvaluatorSettings(games=4, max_steps=250, every_s=60.0),
    ),
}


class MazeDomain(WorldFolder):
    """The :class:`~dicode.domains.base.Domain` of the grid maze."""

    name = "maze"
    package = "dicode.domains.maze"
    genome_fallback = "the target game (25 random walls, a random start and goal)"
    builder_module = "dicode.domains.maze.builder"
    builder_version = BUILDER_VERSION
    sandbox_limits = None  # a maze instance is 179 numbers: the sandbox's defaults suffice
    pool_schema = level_checks.POOL_SCHEMA
    target_metrics = ("solve_rate", "mean_return")
    headline_label = "held-out solve rate"
    target_evaluation = EvaluatorSettings(games=EVAL_EPISODES, max_steps=MAX_STEPS)
    ppo_class = MazePPOConfig
    run_profiles = _PROFILES

    def make_rollouts(self, steps: int) -> RolloutEvaluator:
        from dicode.domains.maze.rollouts import MazeRollouts

        return MazeRollouts(steps=steps)

    def decode_pool(self, bundle: LevelBundle) -> Any:
        return level_checks.decode(bundle.pool)  # re-checked: stored data is data

    def pool_difficulty(self, pool: Any) -> dict[str, float]:
        return level_checks.difficulty(pool)

    def target_genome(
        self, student: Any, target: PerformanceProfile, rng: np.random.Generator
    ) -> Any | None:
        from dicode.domains.maze.genome_edits import target_genome

        # The run's target family (MazePPOConfig.target) makes the mazes; the start begins a
        # few moves from the goal whatever the profile: the ladder, not a figure, moves it.
        del target
        return target_genome(student.target, rng)

    def student_classes(self) -> StudentClasses:
        from dicode.domains.maze.student.trainer import MazeSlotTrainer, MazeTargetProtocol

        return MazeSlotTrainer, MazeTargetProtocol


DOMAIN = MazeDomain()
