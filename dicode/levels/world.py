"""What the level pipeline needs of a world: :class:`LevelWorld`, a part of ``Domain``.

The package owns this protocol so that it never imports a world: callers at the edge look the
world up (``dicode.domains.get``) and pass the object down; every ``Domain`` is a
``LevelWorld``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from PIL import Image

    from dicode.levels.answer import PoolSchema
    from dicode.levels.bundle import LevelBundle
    from dicode.levels.sandbox import SandboxLimits

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


class LevelWorld(Protocol):
    """A world as the sandbox, the validation pipeline and the renderers see it."""

    name: str
    builder_module: str  # imported inside the sandbox worker: NumPy and the stdlib only
    builder_version: str  # recorded in every bundle's provenance
    sandbox_limits: SandboxLimits | None  # None: the sandbox's defaults
    pool_schema: PoolSchema  # field → (dtype, instance shape): every sandbox answer, exactly

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

    def render_text(self, bundle: LevelBundle, count: int) -> str:
        """The first ``count`` pool instances as text."""
        ...

    def render_image(self, bundle: LevelBundle, index: int, cell: int) -> Image.Image:
        """One pool instance as a picture, ``cell`` pixels per grid cell."""
        ...
