"""Engine rollouts for validating Craftax levels: play every pool instance in the real engine.

A uniformly random policy plays the first episode of every instance for up to ``steps`` steps
(one jitted ``lax.scan``, compiled once per pool size and reused for every level). Reported:
the random policy's success rate, mean return and episode length (difficulty estimates, not
gates), and a problem string when playing exposes a broken level (non-finite rewards or
health).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from dicode.domains.base import Pool, RolloutReport
from dicode.domains.craftax import engine, level_slots
from dicode.domains.craftax.engine import CraftaxParams
from dicode.domains.craftax.level_checks import pool_to_bundle


def _play(steps: int) -> Any:
    @jax.jit
    def play(key: jax.Array, slots: CraftaxParams) -> dict[str, jax.Array]:
        pool_size = slots.goal.shape[1]
        # Instance i of the pool is env i: every instance is played once.
        state = jax.tree_util.tree_map(lambda p: p[0], slots.world)
        env_slot = jnp.zeros((pool_size,), jnp.int32)
        zeros = jnp.zeros((pool_size,))
        first = {"running": jnp.ones((pool_size,), bool), "ret": zeros, "length": zeros}
        first |= {"success": jnp.zeros((pool_size,), bool), "finite": jnp.ones((pool_size,), bool)}

        def body(carry: tuple[Any, dict], key: jax.Array) -> tuple[Any, None]:
            state, stats = carry
            key_act, key_step = jax.random.split(key)
            actions = jax.random.randint(key_act, (pool_size,), 0, engine.NUM_ACTIONS)
            _, state, reward, _, info = level_slots.step(key_step, state, actions, slots, env_slot)
            live = stats["running"]
            done = info["attempt_over"]  # the goal met, or the game over before it
            health_ok = jnp.isfinite(state.player_health)
            stats = {
                "running": live & ~done,
                "ret": stats["ret"] + jnp.where(live, reward, 0.0),
                "length": stats["length"] + live,
                "success": stats["success"] | (live & info["success"]),
                "finite": stats["finite"] & (~live | (jnp.isfinite(reward) & health_ok)),
            }
            return (state, stats), None

        (_, stats), _ = jax.lax.scan(body, (state, first), jax.random.split(key, steps))
        return stats

    return play


class CraftaxRollouts:
    """Plays pools with a random policy; keep one instance to reuse the compiled function."""

    def __init__(self, steps: int = 200) -> None:
        if steps < 1:
            raise ValueError(f"steps must be >= 1, got {steps}")
        self._play = _play(steps)

    def evaluate(self, pool: Pool, seed: int) -> RolloutReport:
        """Play the first episode of every instance of the pool. (A goal that holds at reset
        was already refused by ``pool_to_bundle`` in the schema stage.)"""
        bundle = pool_to_bundle(pool)
        slots = level_slots.make_slots([bundle], bundle.pool_size)
        stats = jax.device_get(self._play(jax.random.PRNGKey(seed), slots))
        problem = None
        if not np.all(stats["finite"]):
            bad = int(np.flatnonzero(~stats["finite"])[0])
            problem = f"instance {bad}: playing produced a non-finite reward or health"
        difficulty = {
            "random_success": float(np.mean(stats["success"])),
            "random_return": float(np.mean(stats["ret"])),
            "random_length": float(np.mean(stats["length"])),
        }
        return RolloutReport(solved_at_reset=0, difficulty=difficulty, problem=problem)
