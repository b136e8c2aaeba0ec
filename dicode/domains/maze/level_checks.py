"""Schema, range and reachability checks for a pool of maze instances (NumPy only).

Used by the validation pipeline on the arrays that come back from the sandbox (nothing from
there is trusted: shapes, dtypes and every value are checked again), and by the trainer on
stored bundles before they enter a slot.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dicode.domains.maze.grid import DIRECTIONS, MAX_STEPS, SIZE, distances

#: The pool's fields: name -> (dtype, shape of one instance).
POOL_FIELDS: dict[str, tuple[type, tuple[int, ...]]] = {
    "walls": (np.uint8, (SIZE, SIZE)),
    "start_pos": (np.int32, (2,)),
    "start_dir": (np.int32, ()),
    "goal_pos": (np.int32, (2,)),
}
#: The same as the sandbox's answer schema (dtypes as ``np.dtype``).
POOL_SCHEMA = {name: (np.dtype(dtype), shape) for name, (dtype, shape) in POOL_FIELDS.items()}
#: The goal every maze level has (recorded in the bundle).
GOAL = {"reach_goal": 1, "max_steps": MAX_STEPS}


class LevelCheckError(ValueError):
    """A pool breaks the maze schema or the level rules; the message says where."""


@dataclass(frozen=True)
class MazePool:
    """K maze instances as host arrays (leading axis K), checked."""

    walls: np.ndarray  # (K, 13, 13) bool
    start_pos: np.ndarray  # (K, 2) int32
    start_dir: np.ndarray  # (K,) int32
    goal_pos: np.ndarray  # (K, 2) int32

    @property
    def size(self) -> int:
        return int(self.walls.shape[0])

    def resized(self, count: int) -> MazePool:
        """``count`` instances: the first ``count``, or the pool repeated cyclically."""
        index = np.arange(count) % self.size
        return MazePool(
            self.walls[index], self.start_pos[index], self.start_dir[index], self.goal_pos[index]
        )

    def as_dict(self) -> dict[str, np.ndarray]:
        """The arrays in the pool schema (``POOL_FIELDS``)."""
        return {
            "walls": self.walls.astype(np.uint8),
            "start_pos": self.start_pos.astype(np.int32),
            "start_dir": self.start_dir.astype(np.int32),
            "goal_pos": self.goal_pos.astype(np.int32),
        }


def check_pool(pool: dict[str, np.ndarray]) -> dict[str, int]:
    """Check a stacked pool; returns the level's goal (the same for every maze level)."""
    if set(pool) != set(POOL_FIELDS):
        raise LevelCheckError(f"pool fields {sorted(pool)} differ from {sorted(POOL_FIELDS)}")
    walls = pool["walls"]
    k = walls.shape[0] if walls.ndim == 3 else -1
    if k < 1:
        raise LevelCheckError(f"walls: expected (K, {SIZE}, {SIZE}) with K >= 1, got {walls.shape}")
    for name, (dtype, shape) in POOL_FIELDS.items():
        array = pool[name]
        if array.dtype != np.dtype(dtype) or array.shape != (k, *shape):
            raise LevelCheckError(
                f"{name}: expected {np.dtype(dtype)} array of shape {(k, *shape)}, "
                f"got {array.dtype} {array.shape}"
            )
    if not np.isin(walls, (0, 1)).all():
        raise LevelCheckError("walls: cells must be 0 (free) or 1 (wall)")
    directions = pool["start_dir"]
    if ((directions < 0) | (directions >= len(DIRECTIONS))).any():
        bad = int(np.argmax((directions < 0) | (directions >= len(DIRECTIONS))))
        raise LevelCheckError(
            f"instance {bad}: start direction must be in 0..{len(DIRECTIONS) - 1}, "
            f"got {int(directions[bad])}"
        )
    ends = (("start_pos", "start"), ("goal_pos", "goal"))
    missing = {name: (pool[name] == -1).all(axis=1) for name, _ in ends}
    for name, what in ends:
        cells = pool[name]
        outside = ((cells < 0) | (cells >= SIZE)).any(axis=1) & ~missing[name]
        if outside.any():
            bad = int(np.argmax(outside))
            raise LevelCheckError(
                f"instance {bad}: the {what} {tuple(int(x) for x in cells[bad])} is outside "
                f"the {SIZE}x{SIZE} grid"
            )
        safe = np.where(missing[name][:, None], 0, cells)
        on_wall = (walls[np.arange(k), safe[:, 0], safe[:, 1]] == 1) & ~missing[name]
        if on_wall.any():
            bad = int(np.argmax(on_wall))
            raise LevelCheckError(
                f"instance {bad}: the {what} {tuple(int(x) for x in cells[bad])} is on a wall"
            )
    # Only now a random end that could not be drawn: a fixed end on a wall explains it better.
    for name, what in ends:
        if missing[name].any():
            bad = int(np.argmax(missing[name]))
            raise LevelCheckError(
                f"instance {bad}: no free cell was left for a random {what} (the walls leave "
                "no free cell connected to the other end)"
            )
    same = (pool["start_pos"] == pool["goal_pos"]).all(axis=1)
    if same.any():
        bad = int(np.argmax(same))
        cell = tuple(int(x) for x in pool["start_pos"][bad])
        raise LevelCheckError(f"instance {bad}: the start and the goal are the same cell {cell}")
    return dict(GOAL)


def shortest_paths(pool: dict[str, np.ndarray]) -> np.ndarray:
    """(K,) fewest moves from start to goal per instance; -1 where the goal is cut off."""
    walls = pool["walls"].astype(bool)
    starts, goals = pool["start_pos"], pool["goal_pos"]
    return np.asarray(
        [
            distances(walls[i], (int(starts[i, 0]), int(starts[i, 1])))[
                int(goals[i, 0]), int(goals[i, 1])
            ]
            for i in range(walls.shape[0])
        ],
        np.int32,
    )


def impossible_goal(pool: dict[str, np.ndarray]) -> str | None:
    """Why some instance's goal can never be reached (walls cut it off from the start), or
    None. Expects a pool that passed ``check_pool``."""
    lengths = shortest_paths(pool)
    cut = np.flatnonzero(lengths < 0)
    if cut.size == 0:
        return None
    first = int(cut[0])
    start = tuple(int(x) for x in pool["start_pos"][first])
    goal = tuple(int(x) for x in pool["goal_pos"][first])
    return (
        f"impossible goal: in {cut.size} of {lengths.size} instances the goal cannot be reached "
        f"from the start; e.g. instance {first}: walls cut the goal {goal} off from the start "
        f"{start}"
    )


def decode(pool: dict[str, np.ndarray]) -> MazePool:
    """A stored pool, re-checked (schema and reachability), as a :class:`MazePool`."""
    check_pool(pool)
    problem = impossible_goal(pool)
    if problem:
        raise LevelCheckError(problem)
    return MazePool(
        walls=pool["walls"].astype(bool),
        start_pos=pool["start_pos"].astype(np.int32),
        start_dir=pool["start_dir"].astype(np.int32),
        goal_pos=pool["goal_pos"].astype(np.int32),
    )


def difficulty(pool: MazePool) -> dict[str, float]:
    """A checked pool's mean walls and mean moves from start to goal over its instances (the
    names and meaning of the literature loops' trace: ``trained_walls``, ``trained_path``)."""
    arrays = {"walls": pool.walls, "start_pos": pool.start_pos, "goal_pos": pool.goal_pos}
    return {
        "walls": float(pool.walls.sum(axis=(1, 2)).mean()),
        "path": float(shortest_paths(arrays).mean()),  # decoded pools are all reachable
    }
