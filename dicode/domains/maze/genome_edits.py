"""Typed edits of a maze genome, grouped by the instruction they push difficulty (ACCEL-style).

A child differs from its parent by one or two small edits:

- ``harder``: more walls (explicit, or more random ones), a wall across the current shortest
  path (the way gets longer), the goal or the start moved farther apart;
- ``easier``: fewer walls (explicit or random), a wall removed where it shortens the way, the
  goal or the start moved closer (in an empty room with a random end: the goal pinned near a
  fixed start);
- ``vary``: edits meant to leave difficulty alone: move one wall, mirror or flip the maze,
  turn the start, fix a random start, move the goal to a cell about as far away, a few random
  walls more or less.

Every edit keeps the genome inside the builder's bounds and the mutation caps, never puts a
wall on the start or the goal, and is vetoed when it would make a solvable level unsolvable
(``genome.solvable``), so children of solvable parents stay solvable. Each returns a
``before → after`` note for the child's docstring, or ``None`` when it cannot apply. All
randomness comes from the caller's ``numpy.random.Generator``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from dicode.domains.maze.genome import Genome, check_bounds, solvable
from dicode.domains.maze.grid import (
    DIRECTIONS,
    SIZE,
    Cell,
    distances,
    free_neighbour_counts,
    path_length,
)
from dicode.teachers.base import MutationInstruction
from dicode.teachers.genome_base import Mutation, mutate_genome
from dicode.teachers.genome_base import Operator as GenericOperator

#: Most walls (explicit + random) the teacher grows a maze to: ~60 % of the cells.
MUTATION_MAX_WALLS = 100
#: How far one goal/start move may change the shortest path (moves).
MAX_PATH_CHANGE = 8

Operator = GenericOperator[Genome]
Edit = tuple[Genome, str] | None


def mutate(
    parent: Genome, instruction: MutationInstruction, rng: np.random.Generator, max_edits: int = 2
) -> Mutation[Genome]:
    """Apply 1..``max_edits`` edits of ``instruction`` to ``parent`` (always at least one)."""
    return mutate_genome(
        parent, instruction, rng, max_edits, operators_for, _keeps_solvable, check_bounds
    )


def _keeps_solvable(current: Genome, child: Genome) -> bool:
    # Never trade a solvable level for an unsolvable one (the sandbox would reject it).
    return solvable(child) or not solvable(current)


# --- helpers -------------------------------------------------------------------------------


def _total_walls(g: Genome) -> int:
    return len(g.walls) + g.random_walls


def _ends(g: Genome) -> set[Cell]:
    return {cell for cell in (g.start_cell, g.goal) if cell is not None}


def _open_cells(g: Genome) -> list[Cell]:
    """Free cells that are neither the start nor the goal."""
    walls, ends = g.wall_array(), _ends(g)
    return [(int(r), int(c)) for r, c in np.argwhere(~walls) if (int(r), int(c)) not in ends]


def _choice(items: list[Cell], rng: np.random.Generator) -> Cell | None:
    return items[int(rng.integers(len(items)))] if items else None


def _with_walls(g: Genome, cells: set[Cell]) -> Genome:
    return replace(g, walls=tuple(sorted(cells)))


# --- walls ---------------------------------------------------------------------------------


def add_walls(g: Genome, rng: np.random.Generator) -> Edit:
    """1–3 walls on random free cells, each kept only if the maze stays solvable."""
    room = MUTATION_MAX_WALLS - _total_walls(g)
    if room <= 0:
        return None
    wanted = min(room, int(rng.integers(1, 4)))
    cells = set(g.walls)
    added: list[Cell] = []
    candidates = _open_cells(g)
    for index in rng.permutation(len(candidates)):
        if len(added) == wanted:
            break
        cell = candidates[int(index)]
        trial = _with_walls(g, cells | {cell})
        if solvable(trial) or not solvable(g):
            cells.add(cell)
            added.append(cell)
    if not added:
        return None
    return _with_walls(g, cells), "walls added at " + ", ".join(map(str, added))


def remove_walls(g: Genome, rng: np.random.Generator) -> Edit:
    """Remove 1–3 explicit walls."""
    if not g.walls:
        return None
    count = min(len(g.walls), int(rng.integers(1, 4)))
    drop = {g.walls[int(i)] for i in rng.choice(len(g.walls), size=count, replace=False)}
    child = _with_walls(g, set(g.walls) - drop)
    return child, "walls removed at " + ", ".join(map(str, sorted(drop)))


def move_wall(g: Genome, rng: np.random.Generator) -> Edit:
    """Move one explicit wall to a random free cell."""
    if not g.walls:
        return None
    old = g.walls[int(rng.integers(len(g.walls)))]
    new = _choice([c for c in _open_cells(g) if c != old], rng)
    if new is None:
        return None
    child = _with_walls(g, (set(g.walls) - {old}) | {new})
    return child, f"wall moved from {old} to {new}"


def block_path(g: Genome, rng: np.random.Generator) -> Edit:
    """A wall on a cell of the current shortest path such that a (longer) way remains."""
    start, goal = g.start_cell, g.goal
    if start is None or goal is None or _total_walls(g) >= MUTATION_MAX_WALLS:
        return None
    walls = g.wall_array()
    before = path_length(walls, start, goal)
    if before is None:
        return None
    from_start, to_goal = distances(walls, start), distances(walls, goal)
    on_path = [
        (int(r), int(c))
        for r, c in np.argwhere((from_start >= 0) & (from_start + to_goal == before))
        if (int(r), int(c)) not in (start, goal)
    ]
    for index in rng.permutation(len(on_path)):
        cell = on_path[int(index)]
        walls[cell] = True
        after = path_length(walls, start, goal)
        walls[cell] = False
        if after is not None and after > before:
            child = _with_walls(g, set(g.walls) | {cell})
            return child, f"wall at {cell} across the shortest path ({before} → {after} moves)"
    return None


def open_shortcut(g: Genome, rng: np.random.Generator) -> Edit:
    """Remove an explicit wall whose removal shortens the way from start to goal."""
    start, goal = g.start_cell, g.goal
    if start is None or goal is None or not g.walls:
        return None
    walls = g.wall_array()
    before = path_length(walls, start, goal)
    if before is None:
        return None
    for index in rng.permutation(len(g.walls)):
        cell = g.walls[int(index)]
        walls[cell] = False
        after = path_length(walls, start, goal)
        walls[cell] = True
        if after is not None and after < before:
            child = _with_walls(g, set(g.walls) - {cell})
            return child, f"wall at {cell} removed: a shortcut ({before} → {after} moves)"
    return None


def _change_random_walls(g: Genome, rng: np.random.Generator, low: int, high: int) -> Edit:
    step = int(rng.integers(low, high + 1))
    new = min(max(0, g.random_walls + step), MUTATION_MAX_WALLS - len(g.walls))
    if new == g.random_walls or new < 0:
        return None
    return replace(g, random_walls=new), f"random walls {g.random_walls} → {new}"


def more_random_walls(g: Genome, rng: np.random.Generator) -> Edit:
    """3–8 more random walls (where the level draws some, or has a random end)."""
    if not g.random_walls and g.start is not None and g.goal is not None:
        return None
    return _change_random_walls(g, rng, 3, 8)


def fewer_random_walls(g: Genome, rng: np.random.Generator) -> Edit:
    if not g.random_walls:
        return None
    return _change_random_walls(g, rng, -8, -3)


def jitter_random_walls(g: Genome, rng: np.random.Generator) -> Edit:
    """A few random walls more or less (1–3)."""
    if not g.random_walls:
        return None
    step = int(rng.integers(1, 4)) * (1 if rng.random() < 0.5 else -1)
    return _change_random_walls(g, rng, step, step)


# --- start and goal ------------------------------------------------------------------------


def _move_end(g: Genome, rng: np.random.Generator, which: str, low: int, high: int) -> Edit:
    """Move the goal (``which == "goal"``) or the start to a free cell whose distance from the
    other end lies in ``[d + low, d + high]``, d the current shortest path."""
    start, goal = g.start_cell, g.goal
    if start is None or goal is None:
        return None
    walls = g.wall_array()
    anchor, moving = (start, goal) if which == "goal" else (goal, start)
    dist = distances(walls, anchor)
    current = int(dist[moving])
    if current < 0:
        return None
    lo, hi = max(1, current + low), current + high
    options = [
        (int(r), int(c))
        for r, c in np.argwhere((dist >= lo) & (dist <= hi))
        if (int(r), int(c)) != moving
    ]
    cell = _choice(options, rng)
    if cell is None:
        return None
    new_length = int(dist[cell])
    if which == "goal":
        child = replace(g, goal=cell)
    else:
        assert g.start is not None
        child = replace(g, start=(cell[0], cell[1], g.start[2]))
    return child, f"{which} moved from {moving} to {cell} ({current} → {new_length} moves)"


def goal_farther(g: Genome, rng: np.random.Generator) -> Edit:
    return _move_end(g, rng, "goal", 1, MAX_PATH_CHANGE)


def goal_closer(g: Genome, rng: np.random.Generator) -> Edit:
    return _move_end(g, rng, "goal", -MAX_PATH_CHANGE, -1)


def start_farther(g: Genome, rng: np.random.Generator) -> Edit:
    return _move_end(g, rng, "start", 1, MAX_PATH_CHANGE)


def start_closer(g: Genome, rng: np.random.Generator) -> Edit:
    return _move_end(g, rng, "start", -MAX_PATH_CHANGE, -1)


def shift_goal(g: Genome, rng: np.random.Generator) -> Edit:
    """Move the goal to another cell about as far from the start (±2 moves)."""
    return _move_end(g, rng, "goal", -2, 2)


def pin_near_goal(g: Genome, rng: np.random.Generator) -> Edit:
    """For a level without walls of its own that draws an end at random: fix the start (where
    it is, or on a random cell) and put the goal 1–4 moves from it."""
    if g.walls or g.random_walls or (g.start is not None and g.goal is not None):
        return None
    free = _open_cells(replace(g, goal=None))
    start = g.start or (*free[int(rng.integers(len(free)))], DIRECTIONS[int(rng.integers(4))])
    dist = distances(g.wall_array(), (start[0], start[1]))
    options = [(int(r), int(c)) for r, c in np.argwhere((dist >= 1) & (dist <= 4))]
    goal = _choice(options, rng)
    if goal is None:
        return None
    child = replace(g, start=start, goal=goal)
    return child, f"start fixed at {start[:2]} facing {start[2]}, goal pinned at {goal}"


def pin_start(g: Genome, rng: np.random.Generator) -> Edit:
    """A random start becomes a fixed one: a random free cell and direction (the goal stays as
    it is; random walls keep a fixed start a free neighbour)."""
    if g.start is not None:
        return None
    walls = g.wall_array()
    # Cells the goal can be reached from: its region, or (random goal) any cell not walled in.
    reach = distances(walls, g.goal) > 0 if g.goal is not None else free_neighbour_counts(walls) > 0
    options = [cell for cell in _open_cells(g) if reach[cell]]
    cell = _choice(options, rng)
    if cell is None:
        return None
    direction = DIRECTIONS[int(rng.integers(len(DIRECTIONS)))]
    return replace(
        g, start=(cell[0], cell[1], direction)
    ), f"start fixed at {cell} facing {direction}"


def turn_start(g: Genome, rng: np.random.Generator) -> Edit:
    """Face the start another way."""
    if g.start is None:
        return None
    options = [d for d in DIRECTIONS if d != g.start[2]]
    new = options[int(rng.integers(len(options)))]
    return replace(g, start=(g.start[0], g.start[1], new)), f"start faces {g.start[2]} → {new}"


_MIRROR = {"east": "west", "west": "east", "north": "north", "south": "south"}
_FLIP = {"north": "south", "south": "north", "east": "east", "west": "west"}


def mirror(g: Genome, rng: np.random.Generator) -> Edit:
    """Mirror the maze left-right (or, half the time, flip it top-bottom)."""
    left_right = rng.random() < 0.5

    def cell(r: int, c: int) -> Cell:
        return (r, SIZE - 1 - c) if left_right else (SIZE - 1 - r, c)

    turn = _MIRROR if left_right else _FLIP
    start = None if g.start is None else (*cell(g.start[0], g.start[1]), turn[g.start[2]])
    child = replace(
        g,
        walls=tuple(sorted(cell(r, c) for r, c in g.walls)),
        start=start,
        goal=None if g.goal is None else cell(*g.goal),
    )
    if child.normalized() == g.normalized():
        return None
    return child, "mirrored left-right" if left_right else "flipped top-bottom"


_HARDER: dict[str, Operator] = {
    "add_walls": add_walls,
    "block_path": block_path,
    "more_random_walls": more_random_walls,
    "goal_farther": goal_farther,
    "start_farther": start_farther,
}
_EASIER: dict[str, Operator] = {
    "remove_walls": remove_walls,
    "open_shortcut": open_shortcut,
    "fewer_random_walls": fewer_random_walls,
    "goal_closer": goal_closer,
    "start_closer": start_closer,
    "pin_near_goal": pin_near_goal,
}
_VARY: dict[str, Operator] = {
    "move_wall": move_wall,
    "mirror": mirror,
    "turn_start": turn_start,
    "pin_start": pin_start,
    "shift_goal": shift_goal,
    "jitter_random_walls": jitter_random_walls,
}


def operators_for(g: Genome, instruction: MutationInstruction) -> dict[str, Operator]:
    """The edits on offer for ``instruction``."""
    del g  # every edit checks for itself whether it applies
    if instruction is MutationInstruction.HARDER:
        return dict(_HARDER)
    if instruction is MutationInstruction.EASIER:
        return dict(_EASIER)
    return dict(_VARY)
