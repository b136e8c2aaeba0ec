"""A hand-written reverse curriculum on the maze's own target mazes, on the device.

The classic anchor for a sparse target (Florensa et al. 2017, "Reverse Curriculum Generation
for Reinforcement Learning", arXiv:1707.05300): start the agent near the goal of the target
task itself and move the start back as the student masters nearer starts. Here every
iteration plays fresh mazes of the target family (``device_mazes.family_maze``, one per env,
as the literature's loops play: ``JAXUED_LAYOUT``) with the start moved to a cell
``distance`` moves from the goal (drawn uniformly among those cells, a random facing; the
maze's own start once ``distance`` reaches it). The ladder: the finished episodes since the
last step are counted, and once there are ``min_episodes`` of them with a success rate above
``step_above``, ``distance`` grows by ``step``. Every iteration takes a gradient step; no
completion bonus is paid. The curve's ``curriculum`` figures say where the ladder stood
(``start_distance``) and what was trained (``trained_path``: mean moves from start to goal).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import flax.struct
import jax
import jax.numpy as jnp
import numpy as np

from dicode.domains.maze.device_mazes import distances_from, family_maze, shortest_path
from dicode.domains.maze.engine import MazeParams
from dicode.domains.maze.grid import SIZE
from dicode.domains.maze.student.config import ReverseConfig
from dicode.domains.maze.student.evaluate import MazeEvaluator
from dicode.domains.maze.student.slot_world import Trainer
from dicode.domains.maze.student.ued import as_slots
from dicode.student.loop import CurvePoint
from dicode.student.ppo import LOSSES, RunnerState
from dicode.student.seed_program import (
    Checkpoint,
    OnPoint,
    SeedProgram,
    chunk_lengths,
    evaluation_iterations,
    run_program,
    seed_slice,
    stack_seeds,
)

_MAZE_STREAM = 5_600_003


@flax.struct.dataclass
class ReverseState:
    """One seed: its runner, the ladder and the rung's tally."""

    runner: RunnerState
    distance: jax.Array  # () int32: the current rung
    episodes: jax.Array  # () int32: finished on this rung
    successes: jax.Array  # () int32
    made: jax.Array  # () int32: mazes made so far
    key: jax.Array  # the mazes' stream


def moved_start(key: jax.Array, level: MazeParams, distance: jax.Array) -> MazeParams:
    """``level`` with its start on a cell ``distance`` moves from the goal (uniform among
    them, a random facing), or its own start when that is no farther."""
    k_cell, k_dir = jax.random.split(key)
    from_goal = distances_from(level.walls, level.goal_pos)
    own = from_goal[level.start_pos[0], level.start_pos[1]]
    ring = (from_goal == distance).reshape(-1)
    index = jax.random.categorical(k_cell, jnp.where(ring, 0.0, -jnp.inf))
    cell = jnp.stack([index // SIZE, index % SIZE]).astype(jnp.int32)
    keep = (distance >= own) | ~ring.any()
    start = jnp.where(keep, level.start_pos, cell)
    direction = jnp.where(keep, level.start_dir, jax.random.randint(k_dir, (), 0, 4, jnp.int32))
    return MazeParams(level.walls, start, direction, level.goal_pos, level.max_steps)


def reverse_body(ppo: Trainer, config: ReverseConfig) -> Any:
    """One iteration of one seed (module docstring)."""
    n = ppo.config.num_slots

    def body(state: ReverseState) -> tuple[ReverseState, dict[str, Any]]:
        keys = jax.vmap(jax.random.fold_in, in_axes=(None, 0))(
            state.key, state.made + jnp.arange(n)
        )
        mazes = jax.vmap(lambda k: family_maze(config.family, k))(keys)
        starts = jax.vmap(moved_start, in_axes=(0, 0, None))(
            jax.vmap(lambda k: jax.random.fold_in(k, 1))(keys), mazes, state.distance
        )
        everyone = jnp.ones((n,), bool)
        runner, stats, metrics = ppo.iteration(
            state.runner, as_slots(starts), everyone, jnp.float32(0.0)
        )
        episodes = state.episodes + stats.episodes.sum()
        successes = state.successes + stats.successes.sum()
        judged = episodes >= config.min_episodes
        climb = judged & (successes > config.step_above * episodes)
        paths = jax.vmap(shortest_path)(starts)
        new_state = ReverseState(
            runner=runner,
            distance=state.distance + jnp.where(climb, config.step, 0),
            episodes=jnp.where(judged, 0, episodes),
            successes=jnp.where(judged, 0, successes),
            made=state.made + n,
            key=state.key,
        )
        out = {
            "distance": state.distance,
            "path_sum": paths.sum(),
            "episodes": stats.episodes.sum(),
            "successes": stats.successes.sum(),
            "losses": {name: metrics[name] for name in LOSSES},
        }
        return new_state, out

    return body


def reverse_program(
    ppo: Trainer, config: ReverseConfig, seeds: list[int], max_count: int
) -> tuple[SeedProgram[ReverseState], ReverseState]:
    """The chunk program of ``seeds`` and their first states."""
    n = ppo.config.num_slots
    states = []
    for seed in seeds:
        key = jax.random.fold_in(jax.random.PRNGKey(seed), _MAZE_STREAM)
        first = jax.vmap(lambda k: family_maze(config.family, k))(jax.random.split(key, n))
        states.append(
            ReverseState(
                runner=ppo.init(seed, as_slots(first)),
                distance=jnp.int32(config.first_distance),
                episodes=jnp.int32(0),
                successes=jnp.int32(0),
                made=jnp.int32(0),
                key=key,
            )
        )
    state = stack_seeds(states)
    body = reverse_body(ppo, config)
    return SeedProgram(body, seed_slice(state, 0), max_count, len(seeds)), state


@dataclass
class ReverseRun:
    """One seed's run: its curve and the rungs it reached (one per curve point)."""

    curve: list[CurvePoint]
    counts: dict[str, int]


def run_reverse_seeds(
    ppo: Trainer,
    evaluator: MazeEvaluator,
    config: ReverseConfig,
    seeds: list[int],
    env_steps: int,
    eval_every_steps: int,
    on_point: OnPoint | None = None,
    checkpoint: Checkpoint | None = None,
) -> list[ReverseRun]:
    """Train ``seeds`` on the reverse curriculum as one program (``ued.run_ued_seeds``'s
    protocol, records and checkpoints); ``counts``: iterations and the last rung."""
    c = ppo.config
    if c.envs_per_slot != 1 or c.pool_size != 1:
        raise ValueError(
            "the reverse curriculum plays one maze per env: envs_per_slot=1, pool_size=1"
        )
    points = evaluation_iterations(env_steps, c.batch_size, eval_every_steps)
    program, state = reverse_program(ppo, config, seeds, max(chunk_lengths(points), default=1))
    runs = [ReverseRun([], {}) for _ in seeds]

    def evaluate(state: ReverseState) -> list[dict[str, Any]]:
        return [result.figures() for result in evaluator.batch(state.runner.train.params)]

    def describe(seed: int, rows: Any, state: ReverseState) -> tuple[dict, dict]:
        runs[seed].counts = {
            "gradient": int(state.runner.iteration),
            "start_distance": int(state.distance),
        }
        if rows is None:
            return {}, {}
        episodes = int(np.sum(rows["episodes"]))
        figures: dict[str, float] = {
            "trained_plays": len(rows["distance"]) * c.num_slots,
            "trained_path": round(
                float(np.sum(rows["path_sum"])) / (len(rows["distance"]) * c.num_slots), 2
            ),
            "start_distance": int(state.distance),
        }
        if episodes:
            figures["train_success"] = round(int(np.sum(rows["successes"])) / episodes, 4)
        return {}, figures

    def seen(seed: int, curve: list[CurvePoint], rows: Any) -> None:
        runs[seed].curve = curve
        if on_point is not None:
            on_point(seed, curve, rows)

    run_program(program, state, points, c.batch_size, evaluate, describe, seen, checkpoint)
    return runs
