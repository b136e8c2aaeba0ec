"""Mazes made and edited on the device (``dicode.domains.maze.device_mazes``) are the host's
families: the same rules, the same distributions (``generate.py``), and exact distances."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from dicode.domains.maze import device_mazes as dm
from dicode.domains.maze.generate import DR_WALLS, dr_pool, long_path_pool
from dicode.domains.maze.grid import distances, free_neighbour_counts
from dicode.domains.maze.level_checks import shortest_paths

N = 1000
_stream = jax.jit(dm.stream_mazes, static_argnums=(0, 3))


def _host(levels: dm.MazeParams) -> dict[str, np.ndarray]:
    return {
        "walls": np.asarray(levels.walls).astype(np.uint8),
        "start_pos": np.asarray(levels.start_pos),
        "start_dir": np.asarray(levels.start_dir),
        "goal_pos": np.asarray(levels.goal_pos),
    }


def _one(levels: dm.MazeParams, i: int) -> dm.MazeParams:
    return jax.tree_util.tree_map(lambda x: x[i], levels)


@pytest.fixture(scope="module")
def dr() -> dm.MazeParams:
    return _stream("dr", jax.random.PRNGKey(3), jnp.int32(0), N)


def test_flood_fill_distances_are_the_hosts_bfs(dr: dm.MazeParams) -> None:
    fill = jax.jit(dm.distances_from)
    mazes = _host(dr)
    for i in range(40):
        walls, start = mazes["walls"][i].astype(bool), tuple(mazes["start_pos"][i])
        np.testing.assert_array_equal(
            np.asarray(fill(walls, jnp.asarray(start))), distances(walls, start)
        )
    walled = np.asarray(
        fill(mazes["walls"][0].astype(bool), jnp.asarray(np.argwhere(mazes["walls"][0])[0]))
    )
    assert (walled == -1).all()  # from a wall cell nothing is reachable


def test_dr_mazes_follow_the_builders_rule_and_distribution(dr: dm.MazeParams) -> None:
    mazes = _host(dr)
    walls = mazes["walls"].astype(bool)
    assert (walls.sum(axis=(1, 2)) == DR_WALLS).all()
    for w, s, g in zip(walls[:200], mazes["start_pos"], mazes["goal_pos"], strict=False):
        assert not w[tuple(s)] and free_neighbour_counts(w)[tuple(s)] > 0
        assert distances(w, tuple(s))[tuple(g)] > 0  # reachable, not the start
    paths = shortest_paths(mazes)
    host = shortest_paths(dr_pool(17, range(N)).as_dict())
    # Both ~ 9.1 ± 4.6 moves (the host's generator, simulated, matches maze for maze): the
    # means agree within four standard errors of their difference (fixed keys: no flakes).
    spread = np.sqrt(paths.var() / N + host.var() / N)
    assert abs(paths.mean() - host.mean()) < 4 * spread
    assert np.bincount(mazes["start_dir"], minlength=4).min() > N / 4 * 0.8


def test_long_path_mazes_are_perfect_and_far() -> None:
    mazes = _host(_stream("long_paths", jax.random.PRNGKey(1), jnp.int32(0), 60))
    paths = shortest_paths(mazes)
    assert paths.min() >= 60
    for walls in mazes["walls"].astype(bool):
        free = ~walls
        edges = np.sum(free[:, 1:] & free[:, :-1]) + np.sum(free[1:] & free[:-1])
        assert edges == free.sum() - 1 == 96  # a spanning tree of the 7×7 node lattice
    host = shortest_paths(long_path_pool(2, range(60)).as_dict())
    assert abs(paths.mean() - host.mean()) < 4 * np.sqrt(paths.var() / 60 + host.var() / 60)


def test_a_stream_is_remade_from_any_point(dr: dm.MazeParams) -> None:
    again = _stream("dr", jax.random.PRNGKey(3), jnp.int32(10), 5)
    for a, b in zip(jax.tree_util.tree_leaves(again), jax.tree_util.tree_leaves(dr), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b)[10:15])
    with pytest.raises(ValueError, match="unknown maze family"):
        dm.family_maze("spiral", jax.random.PRNGKey(0))


def test_edits_flip_cells_or_move_the_goal_never_onto_an_end(dr: dm.MazeParams) -> None:
    edit = jax.jit(jax.vmap(dm.edit_maze, in_axes=(0, None, None)), static_argnums=2)
    parent = _one(dr, 0)
    children = _host(edit(jax.random.split(jax.random.PRNGKey(0), 300), parent, 5))
    start = np.asarray(parent.start_pos)
    for walls, goal in zip(children["walls"].astype(bool), children["goal_pos"], strict=True):
        assert not walls[tuple(start)] and not walls[tuple(goal)]
        assert not np.array_equal(goal, start)
        assert np.sum(walls != np.asarray(parent.walls)) <= 5  # one cell per edit at most
    assert (children["start_pos"] == start).all()
    moved = (children["goal_pos"] != np.asarray(parent.goal_pos)).any(axis=1)
    assert 0 < moved.mean() < 1


def test_keys_tell_levels_apart(dr: dm.MazeParams) -> None:
    key = jax.jit(dm.level_key)
    level = _one(dr, 0)
    base = np.asarray(key(level))
    assert base.shape == (dm.KEY_WORDS,) and base.dtype == np.uint32
    np.testing.assert_array_equal(np.asarray(key(_one(dr, 0))), base)
    for cell in ((0, 0), (12, 12), (6, 7)):
        flipped = level.replace(walls=level.walls.at[cell].set(~level.walls[cell]))
        assert (np.asarray(key(flipped)) != base).any()
    for change in (
        level.replace(goal_pos=level.goal_pos.at[0].add(1)),
        level.replace(start_dir=(level.start_dir + 1) % 4),
        level.replace(start_pos=level.start_pos.at[1].add(-1)),
    ):
        assert (np.asarray(key(change)) != base).any()
    keys = {np.asarray(key(_one(dr, i))).tobytes() for i in range(200)}
    assert len(keys) == 200


def test_shortest_path_reads_the_flood_fill(dr: dm.MazeParams) -> None:
    paths = np.asarray(jax.jit(jax.vmap(dm.shortest_path))(dr))
    np.testing.assert_array_equal(paths, shortest_paths(_host(dr)))
