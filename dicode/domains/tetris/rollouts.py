"""Engine rollouts for level validation: play every pool instance in the real engine.

A random policy plays one game on every instance; a heuristic planner (Dellacherie's
weights, from ``heuristics``) plays one game on each of ``heuristic_instances`` evenly spaced
instances (the planner scores every afterstate, so it costs ~10x a random move). Each game
runs for up to ``steps`` pieces and stops early once every game in the batch is decided
(``lax.while_loop`` under ``vmap``). Everything is one jitted function, compiled once per pool
size and reused for every level. Reported: how many instances are solved or blocked at reset
(reasons to reject), and difficulty estimates — success rates and mean lines and pieces per
policy (recorded, never used as gates).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from dicode.domains.base import RolloutReport
from dicode.domains.tetris import engine
from dicode.domains.tetris.policies import make_policy
from dicode.domains.tetris.schema import TetrisLevel

HEURISTIC = "dellacherie"


def _play(
    policy: Callable[[jax.Array, jnp.ndarray, jnp.ndarray], jnp.ndarray],
    params: engine.EnvParams,
    steps: int,
) -> Callable[[jax.Array, TetrisLevel], dict[str, jnp.ndarray]]:
    """One game on one level instance; returns reset flags and end-of-game statistics."""

    def game(key: jax.Array, level: TetrisLevel) -> dict[str, jnp.ndarray]:
        key_reset, key_play = jax.random.split(key)
        _, state = engine.reset(key_reset, dataclasses.replace(params, level=level))
        at_reset = {"solved": engine.success(state), "blocked": state.game_over}

        def running(carry: tuple[engine.EnvState, jnp.ndarray, jax.Array]) -> jnp.ndarray:
            state, played, _ = carry
            return ~state.done & (played < steps)

        def turn(
            carry: tuple[engine.EnvState, jnp.ndarray, jax.Array],
        ) -> tuple[engine.EnvState, jnp.ndarray, jax.Array]:
            state, played, key = carry
            key, key_act, key_step = jax.random.split(key, 3)
            action = policy(key_act, state.board, state.piece)
            _, state, _, _, _ = engine.step(key_step, state, action, params)
            return state, played + 1, key

        state, _, _ = jax.lax.while_loop(running, turn, (state, jnp.int32(0), key_play))
        return {
            **at_reset,
            "success": engine.success(state),
            "lines": state.lines,
            "pieces": state.pieces,
        }

    return game


@functools.cache
def _compiled_rollouts(
    steps: int, heuristic: str, heuristic_instances: int
) -> Callable[[jax.Array, TetrisLevel], dict[str, dict[str, jnp.ndarray]]]:
    """The jitted rollout function; cached so every validator in a process shares its compiles."""
    params = engine.EnvParams()
    random_game = _play(make_policy("random"), params, steps)
    heuristic_game = _play(make_policy(heuristic), params, steps)

    def run(key: jax.Array, pool: TetrisLevel) -> dict[str, dict[str, jnp.ndarray]]:
        size = pool.board.shape[0]
        count = min(size, heuristic_instances)
        picked = np.unique(np.linspace(0, size - 1, count).round().astype(np.int32))
        subset = jax.tree_util.tree_map(lambda x: x[picked], pool)
        key_random, key_heuristic = jax.random.split(key)
        return {
            "random": jax.vmap(random_game)(jax.random.split(key_random, size), pool),
            "heuristic": jax.vmap(heuristic_game)(
                jax.random.split(key_heuristic, len(picked)), subset
            ),
        }

    return jax.jit(run)


class TetrisRollouts:
    """Compiled rollouts of a random and a heuristic policy over a whole pool."""

    def __init__(
        self, steps: int = 300, heuristic: str = HEURISTIC, heuristic_instances: int = 8
    ) -> None:
        if steps < 1 or heuristic_instances < 1:
            raise ValueError(
                f"steps and heuristic_instances must be >= 1, got {steps}, {heuristic_instances}"
            )
        self.steps = steps
        self._run = _compiled_rollouts(steps, heuristic, heuristic_instances)

    def evaluate(self, pool: dict[str, np.ndarray], seed: int) -> RolloutReport:
        """Play the pool; rollouts are seeded from ``seed``."""
        level = TetrisLevel(**{key: jnp.asarray(value) for key, value in pool.items()})
        results: dict[str, Any] = jax.device_get(self._run(jax.random.PRNGKey(seed), level))
        random, heuristic = results["random"], results["heuristic"]
        blocked = int(np.sum(random["blocked"]))
        difficulty = {
            "random_success": float(np.mean(random["success"])),
            "heuristic_success": float(np.mean(heuristic["success"])),
            "random_lines": float(np.mean(random["lines"])),
            "heuristic_lines": float(np.mean(heuristic["lines"])),
            "random_pieces": float(np.mean(random["pieces"])),
            "heuristic_pieces": float(np.mean(heuristic["pieces"])),
            "rollout_steps": float(self.steps),
            "heuristic_games": float(len(heuristic["success"])),
        }
        problem = None
        if blocked:
            problem = f"blocked at reset: the first piece cannot spawn in {blocked} instances"
        return RolloutReport(
            solved_at_reset=int(np.sum(random["solved"])), difficulty=difficulty, problem=problem
        )
