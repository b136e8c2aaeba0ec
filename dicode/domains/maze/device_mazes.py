"""Mazes made and edited on the device (JAX), for loops that never leave it.

The same families as ``generate.py`` (which makes them on the host with NumPy), drawn from the
same distributions, so a compiled training loop can make its own levels (PureJaxRL / JaxUED's
way) instead of waiting on the host every iteration:

- :func:`dr_maze` — domain randomisation: ``DR_WALLS`` walls on distinct cells drawn uniformly,
  a start drawn among free cells with a free neighbour, a facing, a goal drawn among the cells
  reachable from the start (``MazeLevel.to_arrays``' rule for random ends);
- :func:`long_path_maze` — the sparse target: a perfect maze from a randomised depth-first
  spanning tree over the 7×7 node lattice, the start drawn among the cells from which some cell
  is ≥ ``LONG_PATH_MOVES`` moves away, the goal among those cells (redrawn while none is);
- :func:`edit_maze` — ACCEL's edits (``generate.edit_level``): each edit, with equal chance,
  nothing, one cell other than the ends flipped, or the goal moved to a free cell;
- :func:`distances_from` — BFS distances as a flood fill; :func:`shortest_path` of a level.

A level is one :class:`~dicode.domains.maze.engine.MazeParams` (a layout and a start); maze
``j`` of a stream depends only on the stream's key and ``j`` (``jax.random.fold_in``), so any
part of a stream can be remade alone. :func:`level_key` packs a level into ``KEY_WORDS``
uint32 words: equal words, equal level (for de-duplication and distinct counts).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from dicode.domains.maze.engine import MazeParams
from dicode.domains.maze.generate import DR_WALLS, LONG_PATH_MOVES
from dicode.domains.maze.grid import SIZE

CELLS = SIZE * SIZE
NODES = (SIZE + 1) // 2  # the spanning tree's lattice side (nodes on even rows and columns)
_STEPS = jnp.asarray(((0, 1), (1, 0), (0, -1), (-1, 0)), jnp.int32)
#: Words of a level key: the wall bits, then the ends packed into one word.
KEY_WORDS = -(-CELLS // 32) + 1


def _neighbour_of(mask: jax.Array) -> jax.Array:
    """Cells with at least one of their four neighbours in ``mask`` (the border is outside)."""
    padded = jnp.pad(mask, 1)
    return padded[:-2, 1:-1] | padded[2:, 1:-1] | padded[1:-1, :-2] | padded[1:-1, 2:]


def distances_from(walls: jax.Array, cell: jax.Array) -> jax.Array:
    """Moves from ``cell`` to every cell along free cells (``grid.distances``): -1 where
    unreachable or walled; the cell itself is 0 when free."""
    free = ~walls
    source = jnp.zeros((SIZE, SIZE), bool).at[cell[0], cell[1]].set(True) & free
    dist = jnp.where(source, 0, -1)

    def grow(carry: tuple) -> tuple:
        dist, frontier, d = carry
        new = free & (dist < 0) & _neighbour_of(frontier)
        return jnp.where(new, d + 1, dist), new, d + 1

    dist, _, _ = jax.lax.while_loop(lambda c: c[1].any(), grow, (dist, source, jnp.int32(0)))
    return dist


def _draw_cell(key: jax.Array, mask: jax.Array) -> jax.Array:
    """A cell drawn uniformly among ``mask``'s (``(-1, -1)`` when it is empty)."""
    flat = mask.reshape(-1)
    index = jax.random.categorical(key, jnp.where(flat, 0.0, -jnp.inf))
    cell = jnp.stack([index // SIZE, index % SIZE]).astype(jnp.int32)
    return jnp.where(flat.any(), cell, jnp.full((2,), -1, jnp.int32))


def _free_neighbours(walls: jax.Array) -> jax.Array:
    free = jnp.pad(~walls, 1)
    return free[:-2, 1:-1].astype(jnp.int32) + free[2:, 1:-1] + free[1:-1, :-2] + free[1:-1, 2:]


def dr_maze(key: jax.Array) -> MazeParams:
    """One domain-randomised maze (``generate.dr_instance``'s distribution)."""
    k_walls, k_start, k_dir, k_goal = jax.random.split(key, 4)
    cells = jax.random.permutation(k_walls, CELLS)[:DR_WALLS]
    walls = jnp.zeros(CELLS, bool).at[cells].set(True).reshape(SIZE, SIZE)
    start = _draw_cell(k_start, ~walls & (_free_neighbours(walls) > 0))
    goal = _draw_cell(k_goal, distances_from(walls, start) > 0)
    return MazeParams(walls, start, jax.random.randint(k_dir, (), 0, 4, jnp.int32), goal)


def perfect_maze(key: jax.Array) -> jax.Array:
    """The walls of a perfect maze from a randomised depth-first spanning tree
    (``generate.perfect_maze(..., "backtracker")``: from the node on top of the stack, carve
    to a uniformly drawn unvisited neighbour and push it, or pop when there is none)."""
    walls = jnp.ones((SIZE, SIZE), bool).at[::2, ::2].set(False)
    visited = jnp.zeros((NODES, NODES), bool).at[0, 0].set(True)
    stack = jnp.zeros((NODES * NODES, 2), jnp.int32)

    def visit(carry: tuple) -> tuple:
        walls, visited, stack, top, key = carry
        key, k_pick = jax.random.split(key)
        node = stack[top]
        nxt = node + _STEPS  # (4, 2)
        inside = jnp.all((nxt >= 0) & (nxt < NODES), axis=1)
        clipped = jnp.clip(nxt, 0, NODES - 1)
        options = inside & ~visited[clipped[:, 0], clipped[:, 1]]
        choice = jax.random.categorical(k_pick, jnp.where(options, 0.0, -jnp.inf))
        target = clipped[choice]
        carve = options.any()
        between = node + target  # = 2·(node + target) / 2: the cell between the two nodes
        walls = walls.at[between[0], between[1]].set(walls[between[0], between[1]] & ~carve)
        visited = visited.at[target[0], target[1]].set(visited[target[0], target[1]] | carve)
        stack = stack.at[top + 1].set(jnp.where(carve, target, stack[top + 1]))
        return walls, visited, stack, jnp.where(carve, top + 1, top - 1), key

    carry = (walls, visited, stack, jnp.int32(0), key)
    walls, *_ = jax.lax.while_loop(lambda c: c[3] >= 0, visit, carry)
    return walls


def _farthest(dist: jax.Array) -> jax.Array:
    index = jnp.argmax(dist.reshape(-1))
    return jnp.stack([index // SIZE, index % SIZE]).astype(jnp.int32)


def long_path_maze(key: jax.Array, min_moves: int = LONG_PATH_MOVES) -> MazeParams:
    """One maze of the sparse target family (``generate.long_path_instance``'s distribution).

    In a tree the farthest cell from any cell is an end of a diameter, so a cell's eccentricity
    is its larger distance to the two ends of one diameter (three floods instead of one per
    cell)."""

    def draw(carry: tuple) -> tuple:
        key, _, _, _ = carry
        key, k_maze, k_start = jax.random.split(key, 3)
        walls = perfect_maze(k_maze)
        origin = jnp.zeros((2,), jnp.int32)  # node (0, 0) is always free
        end_a = _farthest(distances_from(walls, origin))
        from_a = distances_from(walls, end_a)
        from_b = distances_from(walls, _farthest(from_a))
        starts = jnp.maximum(from_a, from_b) >= min_moves
        return key, walls, _draw_cell(k_start, starts), starts.any()

    empty = jnp.zeros((SIZE, SIZE), bool)
    first = (key, empty, jnp.zeros((2,), jnp.int32), jnp.bool_(False))
    key, walls, start, _ = jax.lax.while_loop(lambda c: ~c[3], draw, first)
    k_goal, k_dir = jax.random.split(key)
    goal = _draw_cell(k_goal, distances_from(walls, start) >= min_moves)
    return MazeParams(walls, start, jax.random.randint(k_dir, (), 0, 4, jnp.int32), goal)


#: The families :func:`family_maze` makes (``generate.TARGET_FAMILIES``).
FAMILIES = {"dr": dr_maze, "long_paths": long_path_maze}


def family_maze(family: str, key: jax.Array) -> MazeParams:
    """A maze of ``family`` (``FAMILIES``)."""
    if family not in FAMILIES:
        raise ValueError(f"unknown maze family {family!r}; known: {', '.join(FAMILIES)}")
    return FAMILIES[family](key)


def stream_mazes(family: str, key: jax.Array, first: jax.Array, count: int) -> MazeParams:
    """Mazes ``first, …, first + count − 1`` of the stream ``key`` (leaves lead with count)."""
    indices = first + jnp.arange(count)
    keys = jax.vmap(jax.random.fold_in, in_axes=(None, 0))(key, indices)
    return jax.vmap(lambda k: family_maze(family, k))(keys)


def edit_maze(key: jax.Array, level: MazeParams, edits: int) -> MazeParams:
    """``level`` after ``edits`` of ACCEL's edits (``generate.edit_level``); the start stays,
    solvability is not kept."""

    def edit(i: int, carry: tuple) -> tuple:
        walls, goal = carry
        k_kind, k_cell = jax.random.split(jax.random.fold_in(key, i))
        kind = jax.random.randint(k_kind, (), 0, 3)
        ends = jnp.zeros((SIZE, SIZE), bool)
        ends = ends.at[level.start_pos[0], level.start_pos[1]].set(True)
        ends = ends.at[goal[0], goal[1]].set(True)
        flip = _draw_cell(k_cell, ~ends)
        flipped = walls.at[flip[0], flip[1]].set(~walls[flip[0], flip[1]])
        moved = _draw_cell(k_cell, ~walls & ~ends)
        walls = jnp.where(kind == 1, flipped, walls)
        goal = jnp.where((kind == 2) & (moved[0] >= 0), moved, goal)
        return walls, goal

    walls, goal = jax.lax.fori_loop(0, edits, edit, (level.walls, level.goal_pos))
    return MazeParams(walls, level.start_pos, level.start_dir, goal, level.max_steps)


def shortest_path(level: MazeParams) -> jax.Array:
    """Fewest moves from the level's start to its goal, -1 when cut off."""
    return distances_from(level.walls, level.start_pos)[level.goal_pos[0], level.goal_pos[1]]


_BIT_WEIGHTS = jnp.asarray(2 ** np.arange(32, dtype=np.uint64), jnp.uint32)


def level_key(level: MazeParams) -> jax.Array:
    """The level as ``KEY_WORDS`` uint32 words: its wall bits, then (start row, start col,
    direction, goal row, goal col) in 4 + 4 + 2 + 4 + 4 bits (offset by one: -1 fits)."""
    bits = jnp.zeros((KEY_WORDS - 1) * 32, jnp.uint32).at[:CELLS].set(level.walls.reshape(-1))
    words = (bits.reshape(KEY_WORDS - 1, 32) * _BIT_WEIGHTS).sum(axis=1, dtype=jnp.uint32)
    parts = jnp.stack(
        [level.start_pos[0] + 1, level.start_pos[1] + 1, level.start_dir,
         level.goal_pos[0] + 1, level.goal_pos[1] + 1]
    ).astype(jnp.uint32)  # fmt: skip
    shifts = jnp.asarray((0, 4, 8, 10, 14), jnp.uint32)
    ends = jnp.sum(parts << shifts, dtype=jnp.uint32)
    return jnp.concatenate([words, ends[None]])
