"""The hand-written reverse curriculum (``dicode.domains.maze.student.reverse``): starts placed
at the rung's distance from the goal on the target's own mazes, a ladder that climbs on
success."""

from __future__ import annotations

from dataclasses import replace

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from dicode.domains.maze import device_mazes as dm
from dicode.domains.maze.grid import distances
from dicode.domains.maze.student.config import ReverseConfig
from dicode.domains.maze.student.reverse import moved_start, run_reverse_seeds
from dicode.domains.maze.student.trainer import MazeSlotTrainer
from tests.maze.conftest import TINY


def test_the_start_moves_to_the_rungs_distance_from_the_goal() -> None:
    keys = jax.random.split(jax.random.PRNGKey(0), 20)
    mazes = jax.vmap(dm.long_path_maze)(keys)
    move = jax.jit(jax.vmap(moved_start, in_axes=(0, 0, None)))
    for distance in (1, 7, 30):
        moved = move(keys, mazes, jnp.int32(distance))
        for i in range(20):
            walls = np.asarray(mazes.walls[i])
            goal = tuple(np.asarray(mazes.goal_pos[i]))
            start = tuple(np.asarray(moved.start_pos[i]))
            assert distances(walls, goal)[start] == distance
    far = move(keys, mazes, jnp.int32(500))  # past the maze's own start: the start stays
    np.testing.assert_array_equal(np.asarray(far.start_pos), np.asarray(mazes.start_pos))
    with pytest.raises(ValueError, match="step_above"):
        ReverseConfig(step_above=1.0)


def test_the_ladder_climbs_while_the_student_succeeds() -> None:
    layout = replace(
        TINY, num_slots=4, envs_per_slot=1, pool_size=1, target_refresh=0, num_minibatches=1,
        target="long_paths", heldout="long_paths",
    )  # fmt: skip
    trainer = MazeSlotTrainer(layout, 1, 20)
    # One move from the goal even a random policy succeeds: every judged rung climbs.
    config = ReverseConfig(first_distance=1, step=1, min_episodes=4)
    steps = 6 * layout.batch_size
    (run,) = run_reverse_seeds(trainer.ppo, trainer.evaluator(), config, [0], steps, steps)
    assert run.counts["gradient"] == 6 and run.counts["start_distance"] > 1
    figures = run.curve[-1].curriculum
    assert figures["start_distance"] == run.counts["start_distance"]
    assert figures["trained_plays"] == 6 * 4 and 1 <= figures["trained_path"] <= 6
    assert 0.0 <= figures["train_success"] <= 1.0
