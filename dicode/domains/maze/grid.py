"""The maze's grid facts and the graph helpers every part of the world shares (NumPy only).

Coordinates: ``row`` 0 is the **top** row, ``col`` 0 the leftmost column, of the 13×13
interior; the wall border around it is implicit (never stored, always a wall). Directions use
MiniGrid's order: 0 = east, 1 = south, 2 = west, 3 = north; turning right adds one.

This module runs inside the sandbox worker (through the builder): NumPy and the standard
library only.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

import numpy as np

#: Interior size: the maze is SIZE × SIZE cells inside an implicit wall border.
SIZE = 13
#: Side of the agent's square egocentric view.
VIEW = 5
#: Step cap of an episode (T in the reward ``1 − 0.9·t/T``).
MAX_STEPS = 250
#: Direction names in index order (turning right adds one).
DIRECTIONS: tuple[str, ...] = ("east", "south", "west", "north")
#: (row, col) change of one step forward in each direction.
MOVES: tuple[tuple[int, int], ...] = ((0, 1), (1, 0), (0, -1), (-1, 0))
#: Characters of a maze picture: a wall and a free cell.
WALL_CHARS = frozenset("#X")
FREE_CHARS = frozenset(".")

Cell = tuple[int, int]


def inside(row: int, col: int) -> bool:
    """Is (row, col) a cell of the interior?"""
    return 0 <= row < SIZE and 0 <= col < SIZE


def neighbours(row: int, col: int) -> Iterable[Cell]:
    """The interior cells one step east, south, west and north of (row, col)."""
    for dr, dc in MOVES:
        r, c = row + dr, col + dc
        if inside(r, c):
            yield r, c


def distances(walls: np.ndarray, source: Cell) -> np.ndarray:
    """Moves from ``source`` to every cell along free cells (BFS); -1 where unreachable or
    walled (the source itself is 0 when it is free)."""
    grid = np.asarray(walls, bool)
    dist = np.full(grid.shape, -1, np.int32)
    r0, c0 = source
    if not inside(r0, c0) or grid[r0, c0]:
        return dist
    dist[r0, c0] = 0
    queue = deque([(r0, c0)])
    while queue:
        r, c = queue.popleft()
        d = dist[r, c] + 1
        for nr, nc in neighbours(r, c):
            if not grid[nr, nc] and dist[nr, nc] < 0:
                dist[nr, nc] = d
                queue.append((nr, nc))
    return dist


def path_length(walls: np.ndarray, start: Cell, goal: Cell) -> int | None:
    """Fewest moves from ``start`` to ``goal`` (turns not counted), or None if cut off."""
    d = int(distances(walls, start)[goal])
    return d if d >= 0 else None


def in_view(cell: Cell, direction: int, target: Cell) -> bool:
    """Does an agent on ``cell`` facing ``direction`` (an index of ``DIRECTIONS``) have
    ``target`` in its view? The engine's view: the agent's own row and ``VIEW - 1`` rows ahead,
    ``VIEW // 2`` columns to each side; walls do not hide what lies behind them."""
    forward, right = MOVES[direction], MOVES[(direction + 1) % len(MOVES)]
    dr, dc = target[0] - cell[0], target[1] - cell[1]
    ahead = dr * forward[0] + dc * forward[1]
    side = dr * right[0] + dc * right[1]
    return 0 <= ahead < VIEW and abs(side) <= VIEW // 2


#: How ``spanning_tree_walls`` may draw its tree.
SPANNING_TREES = ("backtracker", "kruskal")


def spanning_tree_walls(rng: np.random.Generator, method: str = "backtracker") -> np.ndarray:
    """A perfect maze (exactly one path between any two free cells) over the 7×7 lattice of
    even (row, col) cells, from a spanning tree drawn with ``rng``; returns the walls.

    ``method``: ``"backtracker"`` (randomised depth-first search: long winding corridors) or
    ``"kruskal"`` (random edge order with union-find: many short dead ends). The one
    implementation behind the host's perfect mazes (``generate.perfect_maze``) and the level
    builder's (``MazeLevel.perfect_maze``)."""
    nodes = (SIZE + 1) // 2
    walls = np.ones((SIZE, SIZE), bool)
    walls[::2, ::2] = False

    def carve(a: Cell, b: Cell) -> None:
        walls[(a[0] + b[0]) // 2, (a[1] + b[1]) // 2] = False  # the cell between two nodes

    if method == "backtracker":
        seen = {(0, 0)}
        stack: list[Cell] = [(0, 0)]
        while stack:
            r, c = stack[-1]
            options = [
                (r + dr, c + dc)
                for dr, dc in MOVES
                if 0 <= r + dr < nodes and 0 <= c + dc < nodes and (r + dr, c + dc) not in seen
            ]
            if not options:
                stack.pop()
                continue
            nxt = options[int(rng.integers(len(options)))]
            carve((2 * r, 2 * c), (2 * nxt[0], 2 * nxt[1]))
            seen.add(nxt)
            stack.append(nxt)
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


def free_neighbour_counts(walls: np.ndarray) -> np.ndarray:
    """Per cell, how many of its four neighbours are free interior cells."""
    free = ~np.asarray(walls, bool)
    padded = np.pad(free, 1, constant_values=False)
    return (
        padded[:-2, 1:-1].astype(np.int32) + padded[2:, 1:-1] + padded[1:-1, :-2] + padded[1:-1, 2:]
    )


def dead_ends(walls: np.ndarray) -> int:
    """Free cells with exactly one free neighbour (corridor ends)."""
    free = ~np.asarray(walls, bool)
    return int(np.sum(free & (free_neighbour_counts(walls) == 1)))


def parse_picture(picture: str) -> np.ndarray:
    """A SIZE-line text picture (``#``/``X`` wall, ``.`` free) as a bool wall array.

    Blank lines around the picture and the indentation common to its lines are ignored.
    Raises ``ValueError`` describing the first problem."""
    if not isinstance(picture, str):
        raise ValueError(f"the picture must be a string, got {type(picture).__name__}")
    lines = [line.strip() for line in picture.strip("\n").splitlines()]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    if len(lines) != SIZE:
        raise ValueError(f"the picture must have {SIZE} rows, got {len(lines)}")
    grid = np.zeros((SIZE, SIZE), bool)
    for row, line in enumerate(lines):
        if len(line) != SIZE:
            raise ValueError(f"row {row} must have {SIZE} characters, got {len(line)}: {line!r}")
        for col, ch in enumerate(line):
            if ch in WALL_CHARS:
                grid[row, col] = True
            elif ch not in FREE_CHARS:
                raise ValueError(
                    f"row {row}, col {col}: use '#' for a wall and '.' for a free cell, got {ch!r}"
                )
    return grid


def picture(walls: np.ndarray) -> list[str]:
    """The wall array as SIZE lines of ``#`` and ``.`` (the inverse of ``parse_picture``)."""
    return ["".join("#" if w else "." for w in row) for row in np.asarray(walls, bool)]
