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
from dicode.domains.maze.grid import SIZE
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
    arrays = stack(dr_instance(np.random.default_rng([seed, int(j)])) for j in indices)
    return MazePool(
        walls=arrays["walls"].astype(bool),
        start_pos=arrays["start_pos"],
        start_dir=arrays["start_dir"],
        goal_pos=arrays["goal_pos"],
    )


def perfect_maze(seed: int, method: str = "backtracker") -> np.ndarray:
    """A perfect maze (exactly one path between any two free cells) over the 7×7 lattice of
    even (row, col) cells, from a spanning tree drawn with ``seed``.

    ``method``: ``"backtracker"`` (randomised depth-first search: long winding corridors) or
    ``"kruskal"`` (random edge order with union-find: many short dead ends). Returns the walls.
    """
    rng = np.random.default_rng(seed)
    nodes = (SIZE + 1) // 2
    walls = np.ones((SIZE, SIZE), bool)
    walls[::2, ::2] = False

    def carve(a: tuple[int, int], b: tuple[int, int]) -> None:
        walls[(a[0] + b[0]) // 2, (a[1] + b[1]) // 2] = False  # the cell between two nodes

    steps = ((0, 1), (1, 0), (0, -1), (-1, 0))
    if method == "backtracker":
        seen = {(0, 0)}
        stack_: list[tuple[int, int]] = [(0, 0)]
        while stack_:
            r, c = stack_[-1]
            options = [
                (r + dr, c + dc)
                for dr, dc in steps
                if 0 <= r + dr < nodes and 0 <= c + dc < nodes and (r + dr, c + dc) not in seen
            ]
            if not options:
                stack_.pop()
                continue
            nxt = options[int(rng.integers(len(options)))]
            carve((2 * r, 2 * c), (2 * nxt[0], 2 * nxt[1]))
            seen.add(nxt)
            stack_.append(nxt)
    elif method == "kruskal":
        parent = list(range(nodes * nodes))

        def root(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        edges = [((r, c), (r + dr, c + dc)) for r in range(nodes) for c in range(nodes)
                 for dr, dc in ((0, 1), (1, 0)) if r + dr < nodes and c + dc < nodes]  # fmt: skip
        for index in rng.permutation(len(edges)):
            a, b = edges[int(index)]
            ra, rb = root(a[0] * nodes + a[1]), root(b[0] * nodes + b[1])
            if ra != rb:
                parent[ra] = rb
                carve((2 * a[0], 2 * a[1]), (2 * b[0], 2 * b[1]))
    else:
        raise ValueError(f"unknown spanning-tree method {method!r}")
    return walls


__all__ = ["DR_WALLS", "dr_instance", "dr_pool", "perfect_maze", "stack"]
