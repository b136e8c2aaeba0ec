"""The literature's calibration of the maze: JaxUED's named held-out mazes, the long-path
target family, ACCEL's edits, rollouts without a gradient step, and the DR / robust PLR /
ACCEL loop (``dicode.domains.maze.student.ued``, its buffer: ``tests/student/
test_level_sampler.py``) on a tiny student."""

from __future__ import annotations

from dataclasses import replace

import jax
import numpy as np
import pytest

from dicode.domains.maze.generate import edit_level, long_path_pool, perfect_maze
from dicode.domains.maze.grid import SIZE, distances, path_length
from dicode.domains.maze.heldout import HELD_OUT_SETS, held_out_pool, held_out_set
from dicode.domains.maze.level_checks import check_pool
from dicode.domains.maze.named_mazes import PICTURES, named_mazes, read_picture
from dicode.domains.maze.student.config import JAXUED_LAYOUT, MazePPOConfig, UEDConfig
from dicode.domains.maze.student.trainer import MazeSlotTrainer
from dicode.domains.maze.student.ued import run_ued_seeds
from tests.maze.conftest import TINY

JAXUED_NAMES = (
    "SixteenRooms", "SixteenRooms2", "Labyrinth", "LabyrinthFlipped", "Labyrinth2",
    "StandardMaze", "StandardMaze2", "StandardMaze3",
)  # fmt: skip


def test_the_eight_named_mazes_parse_with_ends_and_a_path() -> None:
    mazes = named_mazes()
    assert tuple(m.name for m in mazes) == JAXUED_NAMES
    for maze in mazes:
        assert maze.walls.shape == (SIZE, SIZE)
        assert not maze.walls[maze.start] and not maze.walls[maze.goal]
        assert maze.start != maze.goal
        assert path_length(maze.walls, maze.start, maze.goal) is not None
    # Facts of the source pictures: the labyrinths' goal is the centre cell, reached in 96 moves.
    by_name = {m.name: m for m in mazes}
    for name in ("Labyrinth", "LabyrinthFlipped", "Labyrinth2"):
        maze = by_name[name]
        assert maze.goal == (6, 6)
        assert path_length(maze.walls, maze.start, maze.goal) == 96
    assert by_name["SixteenRooms"].start == (1, 1) and by_name["SixteenRooms"].direction == "east"
    assert by_name["LabyrinthFlipped"].direction == "west"


def test_a_broken_picture_is_refused() -> None:
    no_goal = PICTURES["SixteenRooms"].replace("G", ".")
    with pytest.raises(ValueError, match="one start and one goal"):
        read_picture("broken", no_goal)
    with pytest.raises(ValueError, match="13 rows"):
        read_picture("short", "\n".join(PICTURES["Labyrinth"].split()[:12]))


@pytest.mark.parametrize("name", HELD_OUT_SETS)
def test_every_held_out_set_is_a_valid_fixed_pool(name: str) -> None:
    pool = held_out_pool(name)
    check_pool(pool.as_dict())
    assert pool.size == len(held_out_set(name))
    again = held_out_pool(name)
    np.testing.assert_array_equal(pool.walls, again.walls)
    np.testing.assert_array_equal(pool.goal_pos, again.goal_pos)


def test_long_path_mazes_are_perfect_and_long() -> None:
    pool = long_path_pool(3, range(12))
    for walls, start, goal in zip(pool.walls, pool.start_pos, pool.goal_pos, strict=True):
        assert path_length(walls, tuple(start), tuple(goal)) >= 60
        free = ~walls
        # A spanning tree: every free cell connected, free cells − 1 adjacencies (no loops).
        assert (distances(walls, tuple(start))[free] >= 0).all()
        edges = np.sum(free[:, 1:] & free[:, :-1]) + np.sum(free[1:] & free[:-1])
        assert edges == free.sum() - 1
    assert all(m.shortest_path >= 60 for m in held_out_set("long_paths"))


def test_edits_flip_walls_or_move_the_goal_never_onto_an_end() -> None:
    walls = perfect_maze(1)
    start, goal = np.array([0, 0], np.int32), np.array([12, 12], np.int32)
    rng = np.random.default_rng(0)
    moved = 0
    for _ in range(200):
        new_walls, new_goal = edit_level(walls, start, goal, rng, 5)
        assert not new_walls[tuple(start)] and not new_walls[tuple(new_goal)]
        assert not np.array_equal(start, new_goal)
        assert np.sum(new_walls != walls) <= 5  # one cell per edit at most
        moved += not np.array_equal(new_goal, goal)
    assert 0 < moved < 200  # the goal moves in some children, not in all
    np.testing.assert_array_equal(walls, perfect_maze(1))  # the parent is untouched


def _leaves(tree: object) -> list[np.ndarray]:
    return [np.asarray(x) for x in jax.tree_util.tree_leaves(tree)]


def test_a_measuring_iteration_leaves_parameters_and_optimiser_alone() -> None:
    # A network of its own: the compiled update is cached per configuration, and the tests of
    # test_student.py count that cache's entries and read its bonus on TINY.
    trainer = MazeSlotTrainer(replace(TINY, hidden_size=TINY.hidden_size + 1), 1)
    before = _leaves(trainer.runner.train)
    trainer.learn = False
    trainer.iterate(np.zeros(TINY.num_slots, bool), 0.0)
    for a, b in zip(before, _leaves(trainer.runner.train), strict=True):
        np.testing.assert_array_equal(a, b)
    assert trainer.iteration == 1  # the rollout's env steps count
    trainer.learn = True
    trainer.iterate(np.zeros(TINY.num_slots, bool), 0.0)
    after = _leaves(trainer.runner.train)
    assert any(not np.array_equal(a, b) for a, b in zip(before, after, strict=True))
    assert trainer.ppo.iterate._cache_size() == 1


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="target"):
        MazePPOConfig(target="spiral")
    with pytest.raises(ValueError, match="heldout"):
        MazePPOConfig(heldout="minigrid")
    with pytest.raises(ValueError, match="method"):
        UEDConfig(method="paired")
    assert JAXUED_LAYOUT.batch_size == 32 * 256 and JAXUED_LAYOUT.heldout == "jaxued"


# One level per env, a tiny network: the loop's branches on a few iterations.
_UED_TINY = replace(
    TINY, num_slots=4, envs_per_slot=1, pool_size=1, target_refresh=0, num_minibatches=1,
    heldout="jaxued",
)  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("method", ["dr", "robust_plr", "accel"])
def test_the_literature_curricula_train_only_where_they_should(method: str) -> None:
    trainer = MazeSlotTrainer(_UED_TINY, 1)
    steps = 12 * trainer.batch_size
    config = UEDConfig(method=method, capacity=8)
    (run,) = run_ued_seeds(trainer.ppo, trainer.evaluator(), config, [0], steps, steps)
    curve, counts = run.curve, run.counts
    assert [p.env_steps for p in curve] == [0, steps]
    assert set(curve[-1].target) >= {f"solve_{name}" for name in JAXUED_NAMES}
    assert counts["new"] + counts["replay"] + counts["mutate"] == 12
    trained = curve[-1].curriculum
    if method == "dr":
        assert counts["gradient"] == counts["new"] == 12 and "buffer_fill" not in trained
        assert run.levels_trained == 12 * 4  # fresh levels every iteration
    else:  # gradients only on replayed levels; the buffer fills from the rest
        assert counts["gradient"] == counts["replay"] > 0 and trained["buffer_fill"] == 1.0
        assert 0 < run.levels_trained <= 4 * counts["replay"]
    if method == "accel":  # one mutation after every replay
        assert counts["mutate"] in (counts["replay"], counts["replay"] - 1)
    else:
        assert counts["mutate"] == 0
    # The curve says what the gradient steps trained on between evaluations.
    assert curve[0].curriculum == {} and trained["trained_plays"] == 4 * counts["gradient"]
    assert trained["trained_reachable"] == 1.0 and 1 <= trained["trained_path"] <= 120
    assert 0 < trained["trained_walls"] <= (25 if method == "dr" else 13 * 13)
    assert ("buffer_fill" in trained) == (method != "dr")
