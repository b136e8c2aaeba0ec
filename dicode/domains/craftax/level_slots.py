"""Craftax level slots: S levels' params stacked, N envs stepped over them, finished envs
restarted from their slot's pool — compiled once for a whole run.

Slots are :class:`~dicode.domains.craftax.engine.CraftaxParams` with leaves ``(S, K, ...)``
(``dicode.environment``): slot s holds a pool of K start worlds, each entry with the slot's
rules and goal. Env i plays slot ``env_slot[i]``. Swapping a level writes new arrays into a
slot (:func:`write_slot`); shapes never change, so nothing recompiles.

Restarting an env copies a uniformly drawn pool world of its slot — what ``engine.reset``
does, on the rows that need it: few envs finish per step and a Craftax world is large, so the
rows are scattered in batches of max(8, N/16) inside a ``while_loop`` (usually zero or one
pass): the batch state is updated in place, never copied or selected as a whole.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from craftax.craftax.craftax_state import EnvState

from dicode.domains.craftax import engine
from dicode.domains.craftax.bundle import CraftaxBundle, resize_pool
from dicode.domains.craftax.engine import CraftaxParams
from dicode.domains.craftax.state_codec import arrays_to_state
from dicode.environment import Environment, Transition, draw_entries, pool_size, slot_params

_MIN_SCATTER_RESETS = 8


def make_slots(bundles: Sequence[CraftaxBundle], size: int) -> CraftaxParams:
    """Stack bundles into slots; every pool is cycled or cut to ``size`` worlds."""
    if not bundles:
        raise ValueError("make_slots needs at least one bundle")
    pools = [resize_pool(b.pool, size) for b in bundles]
    stacked = {name: np.stack([p[name] for p in pools]) for name in pools[0]}

    def per_entry(rows: list[np.ndarray]) -> jax.Array:
        return jnp.asarray(np.repeat(np.stack(rows)[:, None], size, axis=1))

    return CraftaxParams(
        world=arrays_to_state(stacked, batch_dims=2),
        rules=per_entry([np.asarray(b.rules) for b in bundles]),
        goal=per_entry([np.asarray(b.goal) for b in bundles]),
    )


def bundle_to_slot(bundle: CraftaxBundle, size: int) -> CraftaxParams:
    """One bundle as a single slot (leading axis 1), ready for :func:`write_slot`."""
    return make_slots([bundle], size)


def write_slot(slots: CraftaxParams, index: jax.Array, level: CraftaxParams) -> CraftaxParams:
    """Write a one-slot ``level`` into slot ``index`` (a traced int: no recompilation)."""
    return jax.tree_util.tree_map(lambda all_, one: all_.at[index].set(one[0]), slots, level)


def write_pool_entries(
    slots: CraftaxParams, index: jax.Array, positions: jax.Array, worlds: EnvState
) -> CraftaxParams:
    """Overwrite pool entries ``positions`` (R,) of slot ``index`` with ``worlds`` (leading
    axis R), e.g. to refresh the target game's pool with new worlds; rules and goal stay."""
    world = jax.tree_util.tree_map(
        lambda all_, new: all_.at[index, positions].set(new), slots.world, worlds
    )
    return dataclasses.replace(slots, world=world)


def slot_levels(slots: CraftaxParams, env_slot: jax.Array) -> CraftaxParams:
    """Every env's params for stepping: its slot's rules and goal (entry 0's world, which a
    step never reads)."""
    return slot_params(slots, env_slot, jnp.zeros_like(env_slot))


def reset(key: jax.Array, slots: CraftaxParams, env_slot: jax.Array) -> tuple[jax.Array, EnvState]:
    """Start every env on a uniformly drawn pool world of its slot. ``env_slot``: (N,) int32."""
    levels = slot_params(slots, env_slot, draw_entries(key, slots, env_slot))
    return jax.vmap(engine.reset, in_axes=(None, 0))(key, levels)


def restart(
    key: jax.Array, states: EnvState, which: jax.Array, slots: CraftaxParams, env_slot: jax.Array
) -> tuple[jax.Array, EnvState]:
    """Restart the envs where ``which`` (N,) holds from a random pool world of their slot
    (e.g. after a new level was written into it); the others keep playing."""
    states = _restart_rows(key, states, env_slot, which, slots)
    return jax.vmap(engine.observe)(states, slot_levels(slots, env_slot)), states


def step(
    key: jax.Array,
    states: EnvState,
    action: jax.Array,
    slots: CraftaxParams,
    env_slot: jax.Array,
    env: Environment[Any, EnvState, Any] = engine,
    wrap: Callable[[CraftaxParams], Any] = lambda levels: levels,
) -> Transition:
    """Step all N envs with ``env`` (the engine, or a wrapper over it whose params are
    ``wrap(levels)``); finished ones restart from their slot's pool. Returns ``(obs, states,
    reward, done, info)``, ``info`` and ``done`` of the steps before the restarts."""
    step_key, reset_key = jax.random.split(key)
    levels = slot_levels(slots, env_slot)
    keys = jax.random.split(step_key, env_slot.shape[0])
    _, states, reward, done, info = jax.vmap(env.step)(keys, states, action, wrap(levels))
    states = _restart_rows(reset_key, states, env_slot, done, slots)
    return jax.vmap(engine.observe)(states, levels), states, reward, done, info


def _restart_rows(
    key: jax.Array, states: EnvState, env_slot: jax.Array, which: jax.Array, slots: CraftaxParams
) -> EnvState:
    """Replace the rows where ``which`` holds by a random pool world of their slot (module
    docstring: scattered in batches)."""
    num_envs = which.shape[0]
    batch = max(_MIN_SCATTER_RESETS, num_envs // 16)
    picks = jax.random.randint(key, (num_envs,), 0, pool_size(slots))

    def scatter(carry: tuple[EnvState, jax.Array]) -> tuple[EnvState, jax.Array]:
        states, pending = carry
        rows = jnp.nonzero(pending, size=batch, fill_value=num_envs)[0]
        safe = jnp.minimum(rows, num_envs - 1)
        src_slot, src_pick = env_slot[safe], picks[safe]
        states = jax.tree_util.tree_map(
            lambda x, p: x.at[rows].set(p[src_slot, src_pick], mode="drop"), states, slots.world
        )
        return states, pending.at[rows].set(False, mode="drop")

    states, _ = jax.lax.while_loop(lambda carry: carry[1].any(), scatter, (states, which))
    return states
