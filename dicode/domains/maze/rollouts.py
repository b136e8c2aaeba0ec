"""Engine rollouts for validating maze levels: play every pool instance in the real engine.

Two players, one episode each on every instance, stopping early once every episode is decided
(``lax.while_loop``; one jitted function per process, compiled once per pool size and reused
for every level):

- a uniformly **random** policy (left / right / forward) for up to ``min(steps, T)`` steps: how
  often blind wandering finds the goal;
- a **shortest-path oracle** for up to T steps, which reads a distance-to-goal field computed
  on the host (BFS) and steps along it, turning the short way where needed: proof in the real
  engine that the goal is reached, and the fewest steps (turns included) it takes.

Reported as difficulty estimates (never gates): success rates and steps of both, the
shortest-path length in moves (mean and max), wall density and dead ends — the maze
properties the teacher's skill profile is made of. An instance where even the oracle cannot
reach the goal within an episode (T steps, turns included) is a ``problem``: it cannot be
solved in the game. An instance that starts on its goal counts as solved at reset.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from dicode.domains.base import Pool, RolloutReport
from dicode.domains.maze import engine
from dicode.domains.maze.grid import MAX_STEPS, MOVES, SIZE, dead_ends, distances
from dicode.domains.maze.level_checks import decode, shortest_paths

_MOVES = jnp.asarray(MOVES, jnp.int32)


def oracle_action(dist: jax.Array, pos: jax.Array, direction: jax.Array) -> jax.Array:
    """The shortest-path player's action: forward when the cell ahead is one move closer to
    the goal, else turn left when that direction is, else turn right."""
    here = dist[pos[0], pos[1]]

    def closer(d: jax.Array) -> jax.Array:
        cell = pos + _MOVES[d % 4]
        inside = jnp.all((cell >= 0) & (cell < SIZE))
        value = dist[jnp.clip(cell[0], 0, SIZE - 1), jnp.clip(cell[1], 0, SIZE - 1)]
        return inside & (value == here - 1) & (value >= 0)

    return jnp.where(
        closer(direction),
        engine.FORWARD,
        jnp.where(closer(direction + 3), engine.LEFT, engine.RIGHT),
    )


@functools.cache
def _compiled(steps: int) -> Callable[..., dict[str, dict[str, jax.Array]]]:
    def play(
        key: jax.Array, pool: engine.MazeParams, dist: jax.Array, oracle: bool, limit: int
    ) -> dict[str, jax.Array]:
        params = dataclasses.replace(pool, max_steps=limit)
        n = params.start_dir.shape[0]
        # One env per pool instance; the maze's reset and step draw nothing (the key is unused).
        _, start = jax.vmap(engine.reset, in_axes=(None, 0))(key, params)
        step = jax.vmap(engine.step, in_axes=(None, 0, 0, 0))

        def running(carry: tuple) -> jax.Array:
            t, _, live, *_ = carry
            return (t < limit) & live.any()

        def turn(carry: tuple) -> tuple:
            t, state, live, won, ret, length, key = carry
            key, k_act = jax.random.split(key)
            if oracle:
                action = jax.vmap(oracle_action)(dist, state.pos, state.dir)
            else:
                action = jax.random.randint(k_act, (n,), 0, engine.NUM_ACTIONS)
            _, state, reward, done, info = step(k_act, state, action, params)
            won = won | (live & info["success"])
            ret = ret + jnp.where(live, reward, 0.0)
            length = length + live
            return t + 1, state, live & ~done, won, ret, length, key

        zeros = jnp.zeros((n,), jnp.float32)
        carry = (jnp.int32(0), start, jnp.ones((n,), bool), jnp.zeros((n,), bool), zeros,
                 jnp.zeros((n,), jnp.int32), key)  # fmt: skip
        _, _, _, won, ret, length, _ = jax.lax.while_loop(running, turn, carry)
        return {"success": won, "return": ret, "length": length}

    def run(key: jax.Array, pool: engine.MazeParams, dist: jax.Array) -> dict[str, Any]:
        _, start = jax.vmap(engine.reset, in_axes=(None, 0))(key, pool)
        return {
            "at_reset": jax.vmap(engine.success_at_reset)(start),
            "random": play(key, pool, dist, False, min(steps, MAX_STEPS)),
            "oracle": play(key, pool, dist, True, MAX_STEPS),
        }

    return jax.jit(run)


class MazeRollouts:
    """Random and shortest-path play over a whole pool (see the module docstring)."""

    def __init__(self, steps: int = MAX_STEPS) -> None:
        if steps < 1:
            raise ValueError(f"steps must be >= 1, got {steps}")
        self.steps = min(steps, MAX_STEPS)
        self._run = _compiled(steps)

    def evaluate(self, pool: Pool, seed: int) -> RolloutReport:
        """Play the pool (checked and reachable, as the pipeline's earlier stages ensure)."""
        maze = decode(pool)
        dist = np.stack(
            [
                distances(maze.walls[i], (int(maze.goal_pos[i, 0]), int(maze.goal_pos[i, 1])))
                for i in range(maze.size)
            ]
        )
        results: dict[str, Any] = jax.device_get(
            self._run(jax.random.PRNGKey(seed), engine.pool_params(maze), jnp.asarray(dist))
        )
        random, oracle = results["random"], results["oracle"]
        lengths = shortest_paths(pool)
        difficulty = {
            "random_success": float(np.mean(random["success"])),
            "random_return": float(np.mean(random["return"])),
            "random_steps": float(np.mean(random["length"])),
            "oracle_success": float(np.mean(oracle["success"])),
            "oracle_steps": float(np.mean(oracle["length"])),
            "shortest_path": float(np.mean(lengths)),
            "shortest_path_max": float(np.max(lengths)),
            "wall_density": float(np.mean(maze.walls)),
            "dead_ends": float(np.mean([dead_ends(w) for w in maze.walls])),
            "rollout_steps": float(self.steps),
        }
        problem = None
        failed = np.flatnonzero(~np.asarray(oracle["success"]))
        if failed.size:
            problem = (
                f"unsolvable within an episode: the shortest-path player needs more than "
                f"{MAX_STEPS} steps (turns included) to reach the goal in {failed.size} "
                f"instances (e.g. instance {int(failed[0])})"
            )
        return RolloutReport(
            solved_at_reset=int(np.sum(results["at_reset"])), difficulty=difficulty, problem=problem
        )
