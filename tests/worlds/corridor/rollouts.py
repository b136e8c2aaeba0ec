"""The validation pipeline's engine rollouts: a random walker plays every pool instance.

Its success rate is recorded as a difficulty estimate (never a gate). The goal is reachable
whenever no wall stands between start and goal (``level_checks.impossible_goal``, checked
before), so there is no other problem to find by playing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from dicode.domains.base import Pool, RolloutReport
from tests.worlds.corridor import engine
from tests.worlds.corridor.level_checks import decode


@functools.cache
def _compiled(steps: int) -> Callable[[jax.Array, engine.CorridorParams], jax.Array]:
    def play(key: jax.Array, params: engine.CorridorParams) -> jax.Array:
        _, state = jax.vmap(engine.reset, in_axes=(None, 0))(key, params)
        step = jax.vmap(engine.step, in_axes=(None, 0, 0, 0))

        def turn(carry: tuple, key: jax.Array) -> tuple[tuple, None]:
            state, live, won = carry
            action = jax.random.randint(key, live.shape, 0, engine.NUM_ACTIONS)
            _, state, _, done, info = step(key, state, action, params)
            return (state, live & ~done, won | (live & info["success"])), None

        live = jnp.ones(params.start.shape, bool)
        carry = (state, live, jnp.zeros_like(live))
        (_, _, won), _ = jax.lax.scan(turn, carry, jax.random.split(key, steps))
        return won

    return jax.jit(play)


class CorridorRollouts:
    def __init__(self, steps: int) -> None:
        self._play = _compiled(steps)

    def evaluate(self, pool: Pool, seed: int) -> RolloutReport:
        checked = decode(pool)
        params = engine.CorridorParams(
            jnp.asarray(checked["cells"].astype(bool)),
            jnp.asarray(checked["start"]),
            jnp.asarray(checked["goal"]),
        )
        won = np.asarray(self._play(jax.random.PRNGKey(seed), params))
        at_reset = int(np.sum(checked["start"] == checked["goal"]))
        return RolloutReport(at_reset, {"random_success": float(won.mean())})
