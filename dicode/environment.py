"""The environment interface every world's engine implements (the gymnax shape), and slots.

An engine is a module of pure, jit- and vmap-friendly functions over ONE environment:

- ``reset(key, params) -> (obs, state)``: start an episode;
- ``step(key, state, action, params) -> (obs, state, reward, done, info)``: one step, no
  auto-reset (what follows ``done`` is the caller's: a wrapper or the trainer's loop).

``params`` carries the level — one entry of a level's pool of start states, with its rules and
goal — and the world's fixed settings (static fields: changing one is a new compile). ``info``
holds at least ``success`` (the level's goal holds) and ``completed`` (the goal was completed by
this very step: what DiCode's completion bonus pays for, ``dicode.student.bonus``).

**Slots** are not an engine feature. A student's S level slots are one params pytree whose
leaves carry two leading axes ``(S, K)`` — slot s holds a pool of K entries — and environment
i plays slot ``env_slot[i]``: :func:`slot_params` indexes the stack into per-environment
params, which the engine's functions take under ``jax.vmap``. Swapping a level writes other
arrays of the same shapes into the stack, so nothing recompiles.
"""

from __future__ import annotations

from typing import Any, Protocol, TypeVar

import jax
import jax.numpy as jnp

Obs = TypeVar("Obs", covariant=True)
State = TypeVar("State")
Params = TypeVar("Params", contravariant=True)
P = TypeVar("P")

#: What ``step`` returns: ``(obs, state, reward, done, info)``.
Transition = tuple[Any, Any, jax.Array, jax.Array, dict[str, jax.Array]]


class Environment(Protocol[Obs, State, Params]):
    """One environment of a world, as pure functions (see the module docstring)."""

    def reset(self, key: jax.Array, params: Params) -> tuple[Obs, State]: ...

    def step(
        self, key: jax.Array, state: State, action: jax.Array, params: Params
    ) -> tuple[Obs, State, jax.Array, jax.Array, dict[str, jax.Array]]: ...


def pool_size(slots: Any) -> int:
    """K, the entries of each slot's pool (the second axis of every leaf)."""
    return int(jax.tree_util.tree_leaves(slots)[0].shape[1])


def draw_entries(key: jax.Array, slots: Any, env_slot: jax.Array) -> jax.Array:
    """A uniformly drawn pool entry for every environment: (N,) int32."""
    return jax.random.randint(key, env_slot.shape, 0, pool_size(slots))


def slot_params(slots: P, env_slot: jax.Array, entry: jax.Array) -> P:
    """Per-environment params: environment i gets entry ``entry[i]`` of slot ``env_slot[i]``
    (leaves ``(S, K, ...)`` become ``(N, ...)``)."""
    return jax.tree_util.tree_map(lambda leaf: leaf[env_slot, entry], slots)


def where_env(mask: jax.Array, new: P, old: P) -> P:
    """Per-environment select over two batched pytrees: ``new`` where ``mask`` (N,) holds."""

    def pick(x: jax.Array, y: jax.Array) -> jax.Array:
        return jnp.where(mask.reshape(mask.shape + (1,) * (x.ndim - 1)), x, y)

    return jax.tree_util.tree_map(pick, new, old)
