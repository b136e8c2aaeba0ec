"""Throughput of dicode's pool-based Craftax engine vs plain Craftax ``step``, in one run.

Both sides run N envs for T steps per jitted ``lax.scan`` chunk with uniformly random actions:

* **plain**: ``CraftaxSymbolicEnvNoAutoReset.step_env`` under ``vmap`` (no resets at all, so
  no world generation; the reference point for "no world generated per step");
* **pool**: ``dicode.domains.craftax.engine.step`` wrapped with the completion bonus and
  stepped by ``level_slots.step`` over S level slots (the target game plus the seed levels):
  rule multipliers, goals, completion bonus and resets from pools.

Between chunks a different level is written into one slot (``write_slot``), as a curriculum
would; compilations are counted over all chunks after the first (warm-up), and must be zero.
Chunks alternate plain/pool so machine load affects both alike.

    PYTHONPATH=$PWD python benchmarks/craftax_engine.py --envs 128 --chunks 6
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from craftax.craftax.craftax_state import EnvState
from craftax.craftax.envs.craftax_symbolic_env import CraftaxSymbolicEnvNoAutoReset

from dicode.domains.craftax import engine, level_slots
from dicode.domains.craftax.builder import build_level
from dicode.domains.craftax.bundle import CraftaxBundle, bundle_from_built, target_bundle
from dicode.domains.craftax.compilations import count_compilations
from dicode.domains.craftax.engine import CraftaxParams
from dicode.domains.craftax.seed_levels import SEED_LEVEL_NAMES
from dicode.domains.craftax.state_codec import arrays_to_state, generate_base_worlds, unstack_arrays
from dicode.domains.craftax.student.slot_world import CRAFTAX_BONUS
from dicode.student.bonus import BonusParams, CompletionBonus

# What the student steps: the engine wrapped with the completion bonus.
_BONUS_ENV = CompletionBonus(engine, CRAFTAX_BONUS)


def make_bundles(seed: int, pool_size: int) -> list[CraftaxBundle]:
    """The target game plus every seed level, each a pool of ``pool_size`` worlds."""
    base = generate_base_worlds(seed, pool_size)
    worlds = unstack_arrays(base)
    bundles = [target_bundle(base)]
    for name in SEED_LEVEL_NAMES:
        if name == "target_game":
            continue
        module = importlib.import_module(f"dicode.domains.craftax.seed_levels.{name}")
        built = [build_level(module.build, w, seed * 1000 + i) for i, w in enumerate(worlds)]
        bundles.append(bundle_from_built(built))
    return bundles


def plain_chunk(env: CraftaxSymbolicEnvNoAutoReset, steps: int) -> Any:
    params = env.default_params

    @jax.jit
    def run(key: jax.Array, states: Any) -> tuple[Any, jax.Array]:
        def body(carry: tuple[Any, jax.Array], key: jax.Array) -> tuple[Any, None]:
            states, total = carry
            num = total.shape[0]
            act_key, step_key = jax.random.split(key)
            actions = jax.random.randint(act_key, (num,), 0, engine.NUM_ACTIONS)
            keys = jax.random.split(step_key, num)
            obs, states, reward, _, _ = jax.vmap(env.step_env, in_axes=(0, 0, 0, None))(
                keys, states, actions, params
            )
            return (states, total + reward + obs.sum(axis=1) * 0.0), None

        num = jax.tree_util.tree_leaves(states)[0].shape[0]
        (states, total), _ = jax.lax.scan(
            body, (states, jnp.zeros((num,))), jax.random.split(key, steps)
        )
        return states, total

    return run


def pool_chunk(steps: int) -> Any:
    @jax.jit
    def run(
        key: jax.Array,
        state: EnvState,
        slots: CraftaxParams,
        env_slot: jax.Array,
        r_prev: jax.Array,
    ) -> tuple[EnvState, jax.Array]:
        num = env_slot.shape[0]

        def with_bonus(levels: CraftaxParams) -> BonusParams[CraftaxParams]:
            return BonusParams(levels, jnp.full((num,), r_prev), jnp.ones((num,), bool))

        def body(
            carry: tuple[EnvState, jax.Array], key: jax.Array
        ) -> tuple[tuple[EnvState, jax.Array], None]:
            state, total = carry
            act_key, step_key = jax.random.split(key)
            actions = jax.random.randint(act_key, (num,), 0, engine.NUM_ACTIONS)
            obs, state, reward, _, _ = level_slots.step(
                step_key, state, actions, slots, env_slot, _BONUS_ENV, with_bonus
            )
            return (state, total + reward + obs.sum(axis=1) * 0.0), None

        (state, total), _ = jax.lax.scan(
            body, (state, jnp.zeros((num,))), jax.random.split(key, steps)
        )
        return state, total

    return run


def timed(fn: Any, *args: Any) -> tuple[Any, float, float]:
    """Run and wait; return the output, wall seconds and this process's CPU seconds (all
    threads). CPU seconds measure the work done even when other processes share the cores."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = jax.block_until_ready(fn(*args))
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=128, help="parallel envs N")
    parser.add_argument("--slots", type=int, default=8, help="level slots S")
    parser.add_argument("--pool", type=int, default=4, help="initial worlds per level K")
    parser.add_argument("--steps", type=int, default=32, help="steps per timed chunk T")
    parser.add_argument("--chunks", type=int, default=6, help="timed chunks per side")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print one JSON line only")
    args = parser.parse_args()

    bundles = make_bundles(args.seed, args.pool)
    slots = level_slots.make_slots(
        [bundles[i % len(bundles)] for i in range(args.slots)], args.pool
    )
    one_slot = [level_slots.bundle_to_slot(b, args.pool) for b in bundles]
    env_slot = jnp.arange(args.envs, dtype=jnp.int32) % args.slots
    key = jax.random.PRNGKey(args.seed)
    _, pool_state = jax.jit(level_slots.reset)(key, slots, env_slot)

    env = CraftaxSymbolicEnvNoAutoReset()
    base = unstack_arrays(bundles[0].pool)
    plain_states = arrays_to_state(
        {k: np.stack([base[i % len(base)][k] for i in range(args.envs)]) for k in base[0]},
        batch_dims=1,
    )
    run_plain, run_pool = plain_chunk(env, args.steps), pool_chunk(args.steps)
    write = jax.jit(level_slots.write_slot, donate_argnums=0)
    r_prev = jnp.float32(5.0)

    plain_times: list[float] = []
    pool_times: list[float] = []
    plain_cpu: list[float] = []
    pool_cpu: list[float] = []
    compiles_after_warmup = 0
    with count_compilations() as compiles:
        for chunk in range(args.chunks + 1):
            key, k1, k2 = jax.random.split(key, 3)
            (plain_states, _), t_plain, c_plain = timed(run_plain, k1, plain_states)
            level = one_slot[(chunk + 1) % len(one_slot)]
            slots = write(slots, jnp.int32(chunk % args.slots), level)
            (pool_state, _), t_pool, c_pool = timed(
                run_pool, k2, pool_state, slots, env_slot, r_prev
            )
            r_prev = r_prev + 1.0  # new data every chunk, as a trainer would pass
            if chunk == 0:
                warmup_compiles = compiles.count
                continue
            plain_times.append(t_plain)
            pool_times.append(t_pool)
            plain_cpu.append(c_plain)
            pool_cpu.append(c_pool)
        compiles_after_warmup = compiles.count - warmup_compiles

    steps = args.envs * args.steps
    plain_sps = steps / statistics.median(plain_times)
    pool_sps = steps / statistics.median(pool_times)
    result = {
        "device": jax.devices()[0].device_kind,
        "envs": args.envs,
        "slots": args.slots,
        "pool": args.pool,
        "steps_per_chunk": args.steps,
        "chunks": args.chunks,
        "plain_steps_per_s": round(plain_sps, 1),
        "pool_steps_per_s": round(pool_sps, 1),
        "ratio": round(pool_sps / plain_sps, 3),
        # Best chunk per side: robust to load spikes from other processes on a shared machine.
        "ratio_best_chunk": round(min(plain_times) / min(pool_times), 3),
        # Work per step in CPU seconds of this process: what a loaded machine cannot distort.
        "plain_steps_per_cpu_s": round(steps / statistics.median(plain_cpu), 1),
        "pool_steps_per_cpu_s": round(steps / statistics.median(pool_cpu), 1),
        "ratio_cpu": round(statistics.median(plain_cpu) / statistics.median(pool_cpu), 3),
        "plain_chunk_seconds": [round(t, 3) for t in plain_times],
        "pool_chunk_seconds": [round(t, 3) for t in pool_times],
        "warmup_compilations": warmup_compiles,
        "compilations_after_warmup": compiles_after_warmup,
        "level_swaps": args.chunks + 1,
    }
    if args.json:
        print(json.dumps(result))
        return
    for name, value in result.items():
        print(f"{name:>28}: {value}")


if __name__ == "__main__":
    main()
