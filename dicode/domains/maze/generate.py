"""Mazes made on the host with NumPy: the target game's domain-randomised mazes and perfect
mazes from a seeded spanning tree.

The target game is the literature's domain randomisation (DR): ``DR_WALLS`` walls on cells
drawn uniformly at random, then a random start (cell and direction) and a random goal. Here
the ends are drawn among mutually reachable cells, so every DR maze is solvable (the builder's
rule for random ends); the level ``seed_levels/target_game.py`` makes the same mazes in the
sandbox through the same builder.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from dicode.domains.maze.builder import MazeLevel
from dicode.domains.maze.grid import MOVES, distances, spanning_tree_walls
from dicode.domains.maze.level_checks import MazePool

#: Walls of a domain-randomised maze (the common setting of PLR/ACCEL).
DR_WALLS = 25


def dr_instance(rng: np.random.Generator) -> dict[str, np.ndarray]:
    """One DR maze in the pool schema (what ``target_game.py`` builds)."""
    level = MazeLevel(rng)
    level.random_walls(DR_WALLS)
    return level.to_arrays()


def stack(instances: Iterable[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Instances (unstacked dicts) as one pool dict with a leading axis."""
    items = list(instances)
    return {key: np.stack([item[key] for item in items]) for key in items[0]}


def dr_pool(seed: int, indices: Iterable[int]) -> MazePool:
    """DR mazes number ``indices`` of the stream ``seed``: maze j depends only on (seed, j), so
    any part of the stream can be remade alone."""
    return _as_pool(stack(dr_instance(np.random.default_rng([seed, int(j)])) for j in indices))


def perfect_maze(seed: int, method: str = "backtracker") -> np.ndarray:
    """A perfect maze (exactly one path between any two free cells) over the 7×7 lattice of
    even (row, col) cells, from a spanning tree drawn with ``seed``.

    ``method``: ``"backtracker"`` (randomised depth-first search: long winding corridors) or
    ``"kruskal"`` (random edge order with union-find: many short dead ends). Returns the walls
    (``grid.spanning_tree_walls``, which the level builder's ``perfect_maze`` shares).
    """
    return spanning_tree_walls(np.random.default_rng(seed), method)


#: Fewest moves from start to goal in a maze of the long-path family.
LONG_PATH_MOVES = 60


def long_path_instance(
    rng: np.random.Generator, min_moves: int = LONG_PATH_MOVES
) -> dict[str, np.ndarray]:
    """A maze of the sparse target family: a perfect maze (randomised depth-first spanning
    tree) with a start and a goal at least ``min_moves`` moves apart, a random facing.

    The start is a random free cell from which some cell is that far; the goal a random cell
    among those. A spanning tree has one path between any two cells, so there is no shortcut
    and the goal is out of view until the last corridor: a random walk rarely finds it."""
    while True:  # a 7×7-node tree has two cells ≥ 60 moves apart in almost every draw
        walls = perfect_maze(int(rng.integers(2**31)), "backtracker")
        free = np.argwhere(~walls)
        for cell in free[rng.permutation(len(free))]:
            far = np.argwhere(distances(walls, (int(cell[0]), int(cell[1]))) >= min_moves)
            if len(far):
                return {
                    "walls": walls.astype(np.uint8),
                    "start_pos": cell.astype(np.int32),
                    "start_dir": np.int32(rng.integers(len(MOVES))),
                    "goal_pos": far[int(rng.integers(len(far)))].astype(np.int32),
                }


def long_path_pool(seed: int, indices: Iterable[int]) -> MazePool:
    """Long-path mazes number ``indices`` of the stream ``seed`` (as :func:`dr_pool`)."""
    return _as_pool(
        stack(long_path_instance(np.random.default_rng([seed, int(j)])) for j in indices)
    )


#: Families of target mazes made on the host (:func:`target_pool`).
TARGET_FAMILIES = ("dr", "long_paths")


def target_pool(family: str, seed: int, indices: Iterable[int]) -> MazePool:
    """Mazes of a target family (``TARGET_FAMILIES``) from the stream ``seed``."""
    if family == "dr":
        return dr_pool(seed, indices)
    if family == "long_paths":
        return long_path_pool(seed, indices)
    raise ValueError(f"unknown target family {family!r}; known: {', '.join(TARGET_FAMILIES)}")


def edit_level(
    walls: np.ndarray, start: np.ndarray, goal: np.ndarray, rng: np.random.Generator, edits: int
) -> tuple[np.ndarray, np.ndarray]:
    """ACCEL's edits of one maze on arrays, as JaxUED's ``maze_plr.py`` makes them (the facts of
    its minimax-style level mutator): each of ``edits`` edits is, with equal chance, nothing,
    flipping one cell that is neither end (a wall appears or goes), or moving the goal to a
    free cell other than the start. The start stays. Returns the new walls and goal;
    solvability is not kept: as in ACCEL, a level the student cannot solve scores low."""
    walls, goal = walls.copy(), goal.copy()
    for _ in range(edits):
        kind = int(rng.integers(3))
        if kind == 1:
            cells = [c for c in np.argwhere(np.ones_like(walls)) if not _is_end(c, start, goal)]
            cell = cells[int(rng.integers(len(cells)))]
            walls[cell[0], cell[1]] = not walls[cell[0], cell[1]]
        elif kind == 2:
            free = [c for c in np.argwhere(~walls) if not _is_end(c, start, goal)]
            if free:
                goal = np.asarray(free[int(rng.integers(len(free)))], np.int32)
    return walls, goal


def _is_end(cell: np.ndarray, start: np.ndarray, goal: np.ndarray) -> bool:
    return bool(np.all(cell == start) or np.all(cell == goal))


def _as_pool(arrays: dict[str, np.ndarray]) -> MazePool:
    return MazePool(
        walls=arrays["walls"].astype(bool),
        start_pos=arrays["start_pos"],
        start_dir=arrays["start_dir"],
        goal_pos=arrays["goal_pos"],
    )


__all__ = [
    "DR_WALLS", "LONG_PATH_MOVES", "TARGET_FAMILIES", "dr_instance", "dr_pool", "edit_level",
    "long_path_instance", "long_path_pool", "perfect_maze", "stack", "target_pool",
]  # fmt: skip
