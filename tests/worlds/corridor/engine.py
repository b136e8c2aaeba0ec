"""The corridor engine: one environment as pure JAX functions (``dicode.environment``).

Actions: 0 step left, 1 step right; a wall or the corridor's end leaves the agent where it is.
Observation: the agent's cell, the goal's cell (one-hot each) and the walls: 48 floats.
Reaching the goal pays 1 and ends the episode; otherwise the reward is 0 and the episode ends
after ``max_steps`` steps (a static field of the params: a change is a new compile).
``info``: ``success`` and ``completed`` (the goal reached by this very step) and ``length``.
Params are one pool entry of a level; :func:`make_slots` stacks pools into slots, leaves
``(S, K, ...)``. Neither function draws anything: the key is the interface's.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from tests.worlds.corridor.level_checks import LENGTH, MAX_STEPS

NUM_ACTIONS = 2
OBS_SIZE = 3 * LENGTH


@struct.dataclass
class CorridorParams:
    """One level instance and the episode's step cap (static)."""

    cells: jax.Array  # (16,) bool walls
    start: jax.Array  # () int32
    goal: jax.Array  # () int32
    max_steps: int = struct.field(pytree_node=False, default=MAX_STEPS)


@struct.dataclass
class CorridorState:
    cells: jax.Array  # copied at reset: a new level in the slot never changes a running episode
    pos: jax.Array
    goal: jax.Array
    time: jax.Array


def make_slots(pools: list[dict[str, np.ndarray]], pool_size: int) -> CorridorParams:
    """Host pools as slot params, leaves ``(S, K, ...)``: each pool cycled or cut to K."""
    fitted = [{k: v[np.arange(pool_size) % len(v)] for k, v in pool.items()} for pool in pools]

    def stack(name: str, dtype: type) -> jax.Array:
        return jnp.asarray(np.stack([pool[name] for pool in fitted]).astype(dtype))

    return CorridorParams(stack("cells", bool), stack("start", np.int32), stack("goal", np.int32))


def observe(state: CorridorState) -> jax.Array:
    where = jax.nn.one_hot(jnp.stack([state.pos, state.goal]), LENGTH).reshape(-1)
    return jnp.concatenate([where, state.cells.astype(jnp.float32)])


def reset(key: jax.Array, params: CorridorParams) -> tuple[jax.Array, CorridorState]:
    state = CorridorState(params.cells, params.start, params.goal, jnp.zeros((), jnp.int32))
    return observe(state), state


def step(
    key: jax.Array, state: CorridorState, action: jax.Array, params: CorridorParams
) -> tuple[jax.Array, CorridorState, jax.Array, jax.Array, dict[str, jax.Array]]:
    ahead = jnp.clip(state.pos + 2 * action - 1, 0, LENGTH - 1)
    pos = jnp.where(state.cells[ahead], state.pos, ahead)
    time = state.time + 1
    success = pos == state.goal
    state = CorridorState(state.cells, pos, state.goal, time)
    done = success | (time >= params.max_steps)
    info = {"success": success, "completed": success, "length": time}
    return observe(state), state, success.astype(jnp.float32), done, info
