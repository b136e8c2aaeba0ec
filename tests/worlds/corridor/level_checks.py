"""The corridor's pool schema and the checks of a pool from the sandbox (NumPy only).

An instance is ``cells`` (16 cells, 1 a wall: a corridor shorter than 16 is walled beyond its
end), a ``start`` and a ``goal`` cell. Nothing from the sandbox is trusted: every field, dtype,
shape and value is checked again, by the pipeline and before a stored bundle enters a slot.
"""

from __future__ import annotations

import numpy as np

#: Cells of the longest corridor, and the steps of an episode.
LENGTH, MAX_STEPS = 16, 32
#: The pool's fields: name -> (dtype, shape of one instance), as the sandbox answers them.
POOL_SCHEMA: dict[str, tuple[np.dtype, tuple[int, ...]]] = {
    "cells": (np.dtype(np.uint8), (LENGTH,)),
    "start": (np.dtype(np.int32), ()),
    "goal": (np.dtype(np.int32), ()),
}
#: Every corridor level's goal (recorded in its bundle).
GOAL = {"reach_goal": 1, "max_steps": MAX_STEPS}


def check_pool(pool: dict[str, np.ndarray]) -> dict[str, int]:
    """Check a stacked pool; returns the level's goal. A ``ValueError`` names the problem."""
    if set(pool) != set(POOL_SCHEMA):
        raise ValueError(f"pool fields {sorted(pool)} differ from {sorted(POOL_SCHEMA)}")
    k = len(pool["start"]) if pool["start"].ndim == 1 else 0
    for name, (dtype, shape) in POOL_SCHEMA.items():
        if k < 1 or pool[name].dtype != dtype or pool[name].shape != (k, *shape):
            raise ValueError(f"{name}: expected {dtype} {(k, *shape)} (K >= 1), got {pool[name]!r}")
    cells = pool["cells"]
    if not np.isin(cells, (0, 1)).all():
        raise ValueError("cells must be 0 (free) or 1 (wall)")
    for end in ("start", "goal"):
        where = pool[end]
        outside = (where < 0) | (where >= LENGTH)
        if outside.any():
            raise ValueError(f"instance {int(np.argmax(outside))}: the {end} is not a cell")
        on_wall = cells[np.arange(k), where] == 1
        if on_wall.any():
            raise ValueError(f"instance {int(np.argmax(on_wall))}: the {end} is on a wall")
    same = pool["start"] == pool["goal"]
    if same.any():
        raise ValueError(f"instance {int(np.argmax(same))}: the start is the goal")
    return dict(GOAL)


def impossible_goal(pool: dict[str, np.ndarray]) -> str | None:
    """Why some instance's goal can never be reached (a wall between start and goal), or None."""
    for i, (cells, start, goal) in enumerate(
        zip(pool["cells"], pool["start"], pool["goal"], strict=True)
    ):
        low, high = sorted((int(start), int(goal)))
        if cells[low : high + 1].any():
            return f"impossible goal: in instance {i} a wall stands between start and goal"
    return None


def decode(pool: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A stored pool, re-checked, as the trainer places it."""
    check_pool(pool)
    problem = impossible_goal(pool)
    if problem:
        raise ValueError(problem)
    return {name: np.asarray(array) for name, array in pool.items()}
