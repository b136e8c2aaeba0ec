"""The corridor as one object: everything the rest of the system needs of this world.

``WorldFolder`` answers the methods that hand over to this folder's modules of fixed names
(``builder``, ``level_checks``, ``render``, ``skills``, ``genome`` + ``genome_edits``,
``seed_levels``), the student's (``ppo_class``, ``run_profiles``, ``student_classes``) and the
defaults of levels built from scratch; what is left here is the world's own. The folder names
itself from its module path, so it runs wherever ``DICODE_WORLDS`` finds it. JAX is imported
only by the methods that need it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from dicode.domains.base import RolloutEvaluator
from dicode.domains.folder import StudentClasses, WorldFolder
from dicode.settings import EvaluatorSettings, RunSettings
from tests.worlds.corridor import level_checks
from tests.worlds.corridor.builder import BUILDER_VERSION
from tests.worlds.corridor.config import CorridorConfig

if TYPE_CHECKING:
    from dicode.levels.bundle import LevelBundle

_PACKAGE = __name__.rsplit(".", 1)[0]


class CorridorDomain(WorldFolder):
    name = "corridor"
    package = _PACKAGE
    genome_fallback = "the target game (16 free cells, random start and goal)"
    builder_module = f"{_PACKAGE}.builder"
    builder_version = BUILDER_VERSION
    sandbox_limits = None  # the sandbox's defaults
    pool_schema = level_checks.POOL_SCHEMA
    target_metrics = ("solve_rate", "games")
    headline_label = "target solve rate"
    target_evaluation = EvaluatorSettings(games=32, max_steps=level_checks.MAX_STEPS)
    ppo_class = CorridorConfig
    # No run presets: `dicode run` needs one, `dicode train`, `eval` and `levels` do not.
    run_profiles: Mapping[str, RunSettings] = MappingProxyType({})

    def make_rollouts(self, steps: int) -> RolloutEvaluator:
        from tests.worlds.corridor.rollouts import CorridorRollouts

        return CorridorRollouts(min(steps, level_checks.MAX_STEPS))

    def decode_pool(self, bundle: LevelBundle) -> Any:
        return level_checks.decode(bundle.pool)  # re-checked: stored data is data

    def student_classes(self) -> StudentClasses:
        from tests.worlds.corridor.student import CorridorTargetProtocol, CorridorTrainer

        return CorridorTrainer, CorridorTargetProtocol


DOMAIN = CorridorDomain()
