"""The maze's target game on the device (``dicode.student.target_program.TargetGame``).

As the host trainer's ``TargetPool``: every slot holds the same pool of K target mazes, maze
``j`` of the run's stream at position ``j % K``; before every iteration ``target_refresh`` new
mazes of the family are written over the oldest. Here the mazes are made on the device
(``device_mazes``, the same families and distributions; maze j drawn from the seed's stream key
folded with j), so a run never waits on the host.
"""

from __future__ import annotations

import flax.struct
import jax
import jax.numpy as jnp

from dicode.domains.maze.device_mazes import stream_mazes
from dicode.domains.maze.engine import MazeParams
from dicode.domains.maze.student.config import MazePPOConfig
from dicode.domains.maze.student.slot_world import MazeSlots

# The device's target stream is apart from the trainer's host stream and the evaluation's.
TARGET_STREAM = 2_000_029


@flax.struct.dataclass
class TargetMazes:
    """One seed's target pool (leaves ``(K, ...)``), its stream key and mazes made so far."""

    pool: MazeParams
    key: jax.Array
    generated: jax.Array  # () int32


class MazeTargetGame:
    """The target pool of ``config`` (family ``config.target``) refreshed on the device."""

    def __init__(self, config: MazePPOConfig) -> None:
        self.config = config

    def initial(self, seed: int) -> TargetMazes:
        key = jax.random.fold_in(jax.random.PRNGKey(seed), TARGET_STREAM)
        pool = jax.jit(stream_mazes, static_argnums=(0, 3))(
            self.config.target, key, jnp.int32(0), self.config.pool_size
        )
        return TargetMazes(pool, key, jnp.int32(self.config.pool_size))

    def next_slots(self, state: TargetMazes) -> tuple[TargetMazes, MazeSlots]:
        c = self.config
        pool, generated = state.pool, state.generated
        if c.target_refresh:
            fresh = stream_mazes(c.target, state.key, generated, c.target_refresh)
            positions = (generated + jnp.arange(c.target_refresh)) % c.pool_size
            pool = jax.tree_util.tree_map(lambda x, y: x.at[positions].set(y), pool, fresh)
            generated = generated + c.target_refresh
        levels = jax.tree_util.tree_map(
            lambda x: jnp.broadcast_to(x, (c.num_slots, *x.shape)), pool
        )
        slots = MazeSlots(levels, jnp.zeros((c.num_slots,), bool))
        return TargetMazes(pool, state.key, generated), slots
