"""The target game's reset pool: K standard Craftax worlds, a few replaced every iteration.

The pool engine never generates worlds while training, so the target slot would otherwise
replay the same K worlds forever; writing ``target_refresh`` new ones in per iteration keeps
it close to Craftax's fresh-world-per-episode game at a small host cost. World j is the j-th
of the run's own stream (``generate_indexed_worlds``) and lives at pool position ``j % K``, so
the pool after any number of refreshes is rebuilt on resume from the counter alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dicode.domains.craftax.bundle import CraftaxBundle, target_bundle
from dicode.domains.craftax.schema import StateArrays
from dicode.domains.craftax.state_codec import generate_indexed_worlds

# Offset of the training world stream from the run seed: keeps training worlds apart from
# other streams seeded by small integers (the evaluation key derives its worlds differently).
_STREAM_OFFSET = 1_000_003


@dataclass
class TargetPool:
    """Host copy of the target pool and how many worlds of the stream were made so far."""

    seed: int
    pool_size: int
    generated: int = 0  # worlds made so far (the checkpointed counter)
    pool: StateArrays = field(default_factory=dict)

    def __post_init__(self) -> None:
        first = max(self.generated, self.pool_size) - self.pool_size
        self.generated = first + self.pool_size
        indices = sorted(range(first, self.generated), key=lambda j: j % self.pool_size)
        self.pool = generate_indexed_worlds(self.seed + _STREAM_OFFSET, indices)

    def bundle(self) -> CraftaxBundle:
        """The target game over the current pool (normal rules, no goal)."""
        return target_bundle(self.pool)

    def refresh(self, count: int) -> tuple[np.ndarray, StateArrays]:
        """Make the next ``count`` worlds; return their pool positions and the worlds."""
        indices = list(range(self.generated, self.generated + count))
        worlds = generate_indexed_worlds(self.seed + _STREAM_OFFSET, indices)
        positions = np.asarray(indices, np.int32) % self.pool_size
        for name, value in worlds.items():
            self.pool[name][positions] = value
        self.generated += count
        return positions, worlds
