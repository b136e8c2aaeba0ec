"""Convert Craftax-Symbolic ``EnvState`` pytrees to and from the NumPy state schema.

Worlds cross process boundaries (trainer → sandbox → trainer, and into level bundles) as
``dict[str, np.ndarray]`` in the schema of ``dicode.domains.craftax.schema``; this module is
the only place that knows how those dicts map onto Craftax's dataclasses.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache

import jax
import jax.numpy as jnp
import numpy as np
from craftax.craftax.craftax_state import EnvParams, EnvState, Inventory, Mobs, StaticEnvParams
from craftax.craftax.world_gen.world_gen import generate_world

from dicode.domains.craftax.schema import FIELD_NAMES, STATE_FIELDS, StateArrays, check_state_arrays

_NESTED = {"inventory": Inventory}


def _build_state(values: Mapping[str, object]) -> EnvState:
    """Assemble an ``EnvState`` from leaves keyed by schema name (leaves may be any arrays)."""
    top: dict[str, object] = {}
    groups: dict[str, dict[str, object]] = {}
    for name in FIELD_NAMES:
        head, _, tail = name.partition(".")
        if tail:
            groups.setdefault(head, {})[tail] = values[name]
        else:
            top[name] = values[name]
    for head, fields in groups.items():
        top[head] = _NESTED[head](**fields) if head in _NESTED else Mobs(**fields)
    return EnvState(**top)


def state_to_arrays(state: EnvState) -> StateArrays:
    """Copy a (possibly batched) ``EnvState`` to host memory as schema-named NumPy arrays."""
    leaves = jax.tree_util.tree_leaves(state)
    if len(leaves) != len(FIELD_NAMES):
        raise ValueError(f"EnvState has {len(leaves)} leaves, the schema {len(FIELD_NAMES)}")
    arrays = {name: np.asarray(leaf) for name, leaf in zip(FIELD_NAMES, leaves, strict=True)}
    batch_dims = arrays["map"].ndim - len(STATE_FIELDS[0][1])
    return check_state_arrays(arrays, batch_dims=batch_dims)


def arrays_to_state(arrays: Mapping[str, np.ndarray], batch_dims: int = 0) -> EnvState:
    """Validate schema arrays and turn them into a device ``EnvState`` with exact dtypes.

    Exact (non-weak) dtypes matter: they keep the engine's compiled signature identical for
    every pool, so swapping levels never triggers a recompilation.
    """
    checked = check_state_arrays(arrays, batch_dims=batch_dims)
    return _build_state({name: jnp.asarray(value) for name, value in checked.items()})


def stack_arrays(states: Sequence[Mapping[str, np.ndarray]]) -> StateArrays:
    """Stack K unbatched state dicts into one pool dict with a leading axis K."""
    if not states:
        raise ValueError("stack_arrays needs at least one state")
    checked = [check_state_arrays(s) for s in states]
    return {name: np.stack([s[name] for s in checked]) for name in FIELD_NAMES}


def unstack_arrays(pool: Mapping[str, np.ndarray]) -> list[StateArrays]:
    """Split a pool dict (leading axis K) into K unbatched state dicts."""
    checked = check_state_arrays(pool, batch_dims=1)
    count = checked["map"].shape[0]
    return [{name: checked[name][i].copy() for name in FIELD_NAMES} for i in range(count)]


@cache
def _world_generator() -> Callable[[jax.Array], EnvState]:
    static = StaticEnvParams()
    # One world per call: compiling a vmapped generator takes several times longer, and
    # base worlds are made rarely (per run or per generation round), not per step. The
    # params are traced, as in Craftax's own env.reset: constant-folding them changes the
    # start's light level in its last bit.
    generate = jax.jit(lambda key, params: generate_world(key, params, static))
    params = EnvParams()
    return lambda key: generate(key, params)


def generate_base_worlds(seed: int, count: int) -> StateArrays:
    """Generate ``count`` standard Craftax worlds with Craftax's own generator (a pool dict).

    Deterministic in ``seed``. This runs in the trainer/parent, never in the sandbox.
    """
    if count < 1:
        raise ValueError(f"generate_base_worlds: count must be >= 1, got {count}")
    keys = jax.random.split(jax.random.PRNGKey(seed), count)
    generate = _world_generator()
    return stack_arrays([state_to_arrays(generate(key)) for key in keys])


def craftax_reset_state(key: jax.Array) -> EnvState:
    """The state ``CraftaxSymbolicEnvNoAutoReset.reset(key)`` starts from (Craftax 1.6.1's
    ``reset_env``: split the key, generate a world with the second half), made by the shared
    compiled generator instead of a second compilation of the same function."""
    return _world_generator()(jax.random.split(key)[1])


def generate_indexed_worlds(seed: int, indices: Sequence[int]) -> StateArrays:
    """Worlds number ``indices`` of the stream ``seed`` (world j from ``fold_in(key(seed), j)``).

    Unlike :func:`generate_base_worlds`, any world of the stream can be remade alone, so a
    trainer that keeps refreshing a pool can rebuild it on resume from a counter.
    """
    if not indices:
        raise ValueError("generate_indexed_worlds needs at least one index")
    root = jax.random.PRNGKey(seed)
    generate = _world_generator()
    return stack_arrays([state_to_arrays(generate(jax.random.fold_in(root, j))) for j in indices])
