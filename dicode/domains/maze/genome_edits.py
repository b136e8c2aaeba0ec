"""Typed edits of a maze genome, grouped by the instruction they push difficulty (ACCEL-style).

A child differs from its parent by one or two small edits:

- ``harder``: more walls (explicit, or more random ones), a wall across the current shortest
  path (the way gets longer), the goal or the start moved farther apart (a start near the goal
  moved farther from it), the goal out of the start's view, fewer walls opened in a perfect
  maze;
- ``easier``: fewer walls (explicit or random), a wall removed where it shortens the way, the
  goal or the start moved closer (in an empty room with a random end: the goal pinned near a
  fixed start; a random start brought near the goal, or nearer), the goal in the start's view,
  more walls opened in a perfect maze (loops, so shorter ways);
- ``vary``: edits meant to leave difficulty alone: move one wall, mirror or flip the maze,
  turn the start, fix a random start, move the goal to a cell about as far away, a few random
  walls more or less, a start near the goal a move nearer or farther.

A level whose maze is drawn per instance (``level.perfect_maze``) has no fixed layout to edit:
only the edits of its start, goal and openings are offered for it (``MAZE_SAFE``).
:func:`target_genome` writes the target game's own mazes with the start a few moves from the
goal: the first rung of a reverse curriculum, from which the edits above step the ladder.

The ``skill`` instruction has its own edit, :func:`teach`: a layout with the maze property to
teach (a shortest path in a band, many dead ends or few), made from the parent's.

Every edit keeps the genome inside the builder's bounds and the mutation caps, never puts a
wall on the start or the goal, and is vetoed when it would make a solvable level unsolvable
(``genome.solvable``), so children of solvable parents stay solvable. Each returns a
``before → after`` note for the child's docstring, or ``None`` when it cannot apply. All
randomness comes from the caller's ``numpy.random.Generator``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace

import numpy as np

from dicode.domains.maze.generate import DR_WALLS, LONG_PATH_MOVES
from dicode.domains.maze.genome import Genome, NearGoal, check_bounds, solvable
from dicode.domains.maze.grid import (
    DIRECTIONS,
    MOVES,
    SIZE,
    Cell,
    dead_ends,
    distances,
    free_neighbour_counts,
    in_view,
    inside,
    neighbours,
    path_length,
)
from dicode.domains.maze.skills import FEW_DEAD_ENDS, PATH_BANDS
from dicode.teachers.base import MutationInstruction
from dicode.teachers.genome_base import Edit as AppliedEdit
from dicode.teachers.genome_base import Mutation, SkillTarget, mutate_genome
from dicode.teachers.genome_base import Operator as GenericOperator
from dicode.teachers.level_source import GenomeError

#: Most walls (explicit + random) the teacher grows a maze to: ~60 % of the cells.
MUTATION_MAX_WALLS = 100
#: How far one goal/start move may change the shortest path (moves).
MAX_PATH_CHANGE = 8
#: A start brought near the goal lies this many moves from it (low, high; both included): the
#: first rungs of a reverse curriculum, and where a target-derived parent starts.
NEAR_GOAL_START = (3, 8)
#: The farthest the harder edit moves a start near the goal: past the longest way of most
#: 13×13 mazes, where the level's own start stands again.
MAX_NEAR_GOAL = 80
#: Most walls the teacher opens in a perfect maze.
MUTATION_MAX_OPENINGS = 12

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


# --- a start near the goal, the goal in view, openings ---------------------------------------


def _near_step(distance: int) -> int:
    """The largest step of a start near the goal: a quarter of its distance (at least 2), so
    a rung is about as big a step at 4 moves as at 40."""
    return max(2, distance // 4)


def _with_near(g: Genome, distance: int) -> Edit:
    near = g.near_goal
    if near is None or distance == near.distance:
        return None
    child = replace(g, near_goal=replace(near, distance=distance))
    return child, f"start near the goal {near.distance} → {distance} moves"


def near_goal_closer(g: Genome, rng: np.random.Generator) -> Edit:
    """A start near the goal moved nearer, by up to a quarter of its distance."""
    if g.near_goal is None:
        return None
    k = g.near_goal.distance
    return _with_near(g, max(1, k - int(rng.integers(1, _near_step(k) + 1))))


def near_goal_farther(g: Genome, rng: np.random.Generator) -> Edit:
    """A start near the goal moved farther, by up to a quarter of its distance."""
    if g.near_goal is None:
        return None
    k = g.near_goal.distance
    return _with_near(g, min(MAX_NEAR_GOAL, k + int(rng.integers(1, _near_step(k) + 1))))


def jitter_near_goal(g: Genome, rng: np.random.Generator) -> Edit:
    """A start near the goal a move or two nearer or farther."""
    if g.near_goal is None:
        return None
    step = int(rng.integers(1, 3)) * (1 if rng.random() < 0.5 else -1)
    return _with_near(g, min(MAX_NEAR_GOAL, max(1, g.near_goal.distance + step)))


def start_near_goal(g: Genome, rng: np.random.Generator) -> Edit:
    """A random start brought a few moves from the goal (``NEAR_GOAL_START``) in every
    instance: the level's own walls and goal, the way to learn them from the end."""
    if g.start is not None or g.near_goal is not None:
        return None
    k = int(rng.integers(NEAR_GOAL_START[0], NEAR_GOAL_START[1] + 1))
    return replace(g, near_goal=NearGoal(k)), f"start brought {k} moves from the goal"


def goal_in_view(g: Genome, rng: np.random.Generator) -> Edit:
    """The goal in the agent's view at the start: a start near the goal drawn where it sees
    the goal, or a fixed start turned to face it (when a facing sees it and the current one
    does not)."""
    if g.near_goal is not None:
        if g.near_goal.goal_in_view:
            return None
        child = replace(g, near_goal=replace(g.near_goal, goal_in_view=True))
        return child, "start near the goal drawn with the goal in view"
    if g.start is None or g.goal is None:
        return None
    cell, goal = (g.start[0], g.start[1]), g.goal
    seeing = [d for d in range(len(DIRECTIONS)) if in_view(cell, d, goal)]
    if not seeing or DIRECTIONS.index(g.start[2]) in seeing:
        return None
    new = DIRECTIONS[seeing[int(rng.integers(len(seeing)))]]
    return replace(
        g, start=(cell[0], cell[1], new)
    ), f"start turned {g.start[2]} → {new}: goal in view"


def goal_out_of_view(g: Genome, rng: np.random.Generator) -> Edit:
    """A start near the goal no longer drawn with the goal in view."""
    del rng
    if g.near_goal is None or not g.near_goal.goal_in_view:
        return None
    child = replace(g, near_goal=replace(g.near_goal, goal_in_view=False))
    return child, "start near the goal no longer drawn with the goal in view"


def more_openings(g: Genome, rng: np.random.Generator) -> Edit:
    """1–3 more walls opened in a perfect maze (loops: more than one way, shorter ones)."""
    if g.maze is None or g.openings >= MUTATION_MAX_OPENINGS:
        return None
    new = min(MUTATION_MAX_OPENINGS, g.openings + int(rng.integers(1, 4)))
    return replace(g, openings=new), f"walls opened {g.openings} → {new}"


def fewer_openings(g: Genome, rng: np.random.Generator) -> Edit:
    """1–3 fewer walls opened (the maze closer to a perfect one: one way only)."""
    if not g.openings:
        return None
    new = max(0, g.openings - int(rng.integers(1, 4)))
    return replace(g, openings=new), f"walls opened {g.openings} → {new}"


_HARDER: dict[str, Operator] = {
    "add_walls": add_walls,
    "block_path": block_path,
    "more_random_walls": more_random_walls,
    "goal_farther": goal_farther,
    "start_farther": start_farther,
    "near_goal_farther": near_goal_farther,
    "goal_out_of_view": goal_out_of_view,
    "fewer_openings": fewer_openings,
}
_EASIER: dict[str, Operator] = {
    "remove_walls": remove_walls,
    "open_shortcut": open_shortcut,
    "fewer_random_walls": fewer_random_walls,
    "goal_closer": goal_closer,
    "start_closer": start_closer,
    "pin_near_goal": pin_near_goal,
    "near_goal_closer": near_goal_closer,
    "start_near_goal": start_near_goal,
    "goal_in_view": goal_in_view,
    "more_openings": more_openings,
}
_VARY: dict[str, Operator] = {
    "move_wall": move_wall,
    "mirror": mirror,
    "turn_start": turn_start,
    "pin_start": pin_start,
    "shift_goal": shift_goal,
    "jitter_random_walls": jitter_random_walls,
    "jitter_near_goal": jitter_near_goal,
}
#: The edits that never read the explicit walls: all a perfect maze drawn per instance allows
#: (its lattice nodes, where a fixed end may lie, map to nodes when mirrored).
MAZE_SAFE = frozenset({
    "near_goal_farther", "goal_out_of_view", "fewer_openings", "near_goal_closer",
    "start_near_goal", "goal_in_view", "more_openings", "mirror", "turn_start",
    "jitter_near_goal",
})  # fmt: skip


def operators_for(g: Genome, instruction: MutationInstruction) -> dict[str, Operator]:
    """The edits on offer for ``instruction`` (for a perfect maze, the ``MAZE_SAFE`` ones)."""
    if instruction is MutationInstruction.HARDER:
        offered = _HARDER
    elif instruction is MutationInstruction.EASIER:
        offered = _EASIER
    else:
        offered = _VARY
    if g.maze is not None:
        return {name: edit for name, edit in offered.items() if name in MAZE_SAFE}
    return dict(offered)  # every other edit checks for itself whether it applies


# --- the target game, aimed at the student ----------------------------------------------------


def target_genome(family: str, rng: np.random.Generator) -> Genome:
    """The target game's own mazes with the start a few moves from the goal
    (``NEAR_GOAL_START``): a target-derived parent. ``family`` is the run's target
    (``MazePPOConfig.target``): ``"long_paths"`` — a new perfect maze in every instance, the
    start and goal at least ``LONG_PATH_MOVES`` apart, as ``generate.long_path_instance``
    draws them — or the domain-randomised mazes (``DR_WALLS`` random walls). Every instance is
    a fresh maze of the family drawn by the level's own generator, never an evaluation maze.
    Then the start moves near the goal: the student fails the target, and a near start is
    where a reverse curriculum begins (Florensa et al. 2017); the edits step it back."""
    k = int(rng.integers(NEAR_GOAL_START[0], NEAR_GOAL_START[1] + 1))
    moved = f"with the start moved {k} moves from the goal."
    if family == "long_paths":
        return Genome(
            description=(
                "The target game's own mazes: a new perfect maze in every instance (a "
                f"depth-first spanning tree), the start and the goal at least {LONG_PATH_MOVES} "
                f"moves apart — {moved}"
            ),
            maze="backtracker",
            start_min_distance=LONG_PATH_MOVES,
            near_goal=NearGoal(k),
        )
    return Genome(
        description=(
            f"The target game's own mazes: {DR_WALLS} walls on random cells and a random start "
            f"and goal in every instance — {moved}"
        ),
        random_walls=DR_WALLS,
        near_goal=NearGoal(k),
    )


# --- skills --------------------------------------------------------------------------------

#: The most side branches the dead-end edit adds, and their length range (cells, high exclusive).
MAX_BRANCHES = 6
BRANCH_LENGTH = (1, 4)
#: The lengthening search: steps (each adds one wall spur) and spurs tried per step.
LENGTHEN_STEPS = 16
SPUR_TRIALS = 40
#: Starts tried when looking for a goal at the right distance; tunnels dug from a goal.
END_TRIES = 30
TUNNEL_TRIES = 8
#: A parent that already has the property is mirrored; mirror picks its axis at random.
MIRROR_TRIES = 4


def teach(parent: Genome, target: SkillTarget, rng: np.random.Generator) -> Mutation[Genome] | None:
    """A layout with the maze property ``target.skill`` (``dicode.domains.maze.skills``).

    Path skills: a fixed start and goal whose shortest path lies in the skill's teaching band;
    for a band without a top, wall spurs in open layouts or a tunnel dug on from the goal in
    walled ones until it is reachable. ``many_dead_ends``: side branches that lead nowhere, off
    the way; ``few_dead_ends``: every dead end joined into a loop (or filled). Random walls could
    break a band with a top or the dead-end count, so there they are drawn once and fixed. The
    child is solvable and within the caps; a parent that already has the property is mirrored
    (or its random start fixed). None for an unknown skill, when no layout can be made, or
    for a parent whose layout or start is drawn per instance (a perfect maze, openings, a start
    near the goal): the skill edits shape one fixed layout.
    """
    skill = target.skill
    g = parent.normalized()
    if g.maze is not None or g.openings or g.near_goal is not None:
        return None  # layouts or starts drawn per instance: no property holds in every one
    if skill in PATH_BANDS:
        made = _teach_path(g, teaching_band(skill), rng)
    elif skill in _DEAD_END_EDITS:
        made = _DEAD_END_EDITS[skill](g, rng)
    else:
        return None
    if made is not None and made[0].normalized() == g:
        made = _moved_aside(made[0], made[1], rng)
    if made is None:
        return None
    child = made[0].normalized()
    if not _skill_child_ok(g, child, skill):
        return None
    edits = tuple(AppliedEdit(f"teach_{skill}", note) for note in made[1])
    return Mutation(child, MutationInstruction.SKILL, edits)


def teaching_band(skill: str) -> tuple[int, int | None]:
    """The shortest-path band a child teaching a path skill gets: the evaluation's band, its
    low end raised to half its top (a 1-move maze teaches nothing)."""
    low, high = PATH_BANDS[skill]
    return (low if high is None else max(low, high // 2, 1)), high


def has_skill(g: Genome, skill: str) -> bool:
    """Does every instance of ``g`` have the property ``skill``? Path skills: the fixed ends'
    shortest path in the teaching band (random walls only lengthen it, so a band without a
    top allows them); dead-end skills: the fixed walls' dead ends, without random walls."""
    if skill in PATH_BANDS:
        low, high = teaching_band(skill)
        length = g.shortest_path()
        if length is None or (high is not None and (g.random_walls or length > high)):
            return False
        return length >= low
    if g.random_walls:
        return False
    count = dead_ends(g.wall_array())
    return count > FEW_DEAD_ENDS if skill == "many_dead_ends" else count <= FEW_DEAD_ENDS


def _skill_child_ok(parent: Genome, child: Genome, skill: str) -> bool:
    try:
        check_bounds(child)
    except GenomeError:
        return False
    cap = max(MUTATION_MAX_WALLS, _total_walls(parent))
    clear = not any(child.wall_array()[cell] for cell in _ends(child))
    return clear and solvable(child) and _total_walls(child) <= cap and has_skill(child, skill)


def _moved_aside(
    g: Genome, notes: list[str], rng: np.random.Generator
) -> tuple[Genome, list[str]] | None:
    """The parent had the property already: mirror it (the property stays), or fix its
    random start."""
    for _ in range(MIRROR_TRIES):
        moved = mirror(g, rng)
        if moved is not None:
            return moved[0], [*notes, f"{moved[1]} (the parent had the property)"]
    pinned = pin_start(g, rng)
    return None if pinned is None else (pinned[0], [*notes, pinned[1]])


def _cells(walls: np.ndarray) -> set[Cell]:
    return {(int(r), int(c)) for r, c in np.argwhere(walls)}


def _fix_random_walls(g: Genome, rng: np.random.Generator) -> tuple[Genome, list[str]]:
    """Draw the random walls once as fixed walls (each kept only while the level stays
    solvable), so every instance has the same layout and so the same property."""
    if not g.random_walls:
        return g, []
    cells = set(g.walls)
    fixed = replace(g, random_walls=0)
    candidates = _open_cells(fixed)
    placed = 0
    for index in rng.permutation(len(candidates)):
        if placed == g.random_walls:
            break
        cell = candidates[int(index)]
        if solvable(_with_walls(fixed, cells | {cell})):
            cells.add(cell)
            placed += 1
    note = f"the {g.random_walls} random walls drawn once and fixed ({placed} placed)"
    return _with_walls(fixed, cells), [note]


def _wall_room(parent: Genome, g: Genome) -> int:
    """How many walls ``g`` may still gain: up to the teacher's cap, or the parent's count
    when it has more (walled layouts may not grow, but may be dug)."""
    return max(MUTATION_MAX_WALLS, _total_walls(parent)) - _total_walls(g)


def _tunnel_cell(walls: np.ndarray, cell: Cell, origin: Cell, reach: np.ndarray) -> bool:
    """May the wall ``cell`` be dug out from the free ``origin``? Only if ``origin`` is its
    one neighbour among the ``reach`` cells: a tunnel never opens a shortcut there, so each
    cell dug adds a move (it may break into a region outside ``reach``)."""
    if not inside(*cell) or not walls[cell]:
        return False
    return [n for n in neighbours(*cell) if not walls[n] and reach[n]] == [origin]


# --- path skills ---------------------------------------------------------------------------


def _teach_path(
    g: Genome, band: tuple[int, int | None], rng: np.random.Generator
) -> tuple[Genome, list[str]] | None:
    """Ends at a distance in ``band``; for a band without a top, wall spurs (open layouts) or
    a tunnel (walled ones) until such a distance exists."""
    low, high = band
    base, notes = _fix_random_walls(g, rng) if high is not None else (g, [])
    placed = _place_ends(base, low, high, rng)
    if placed is None and high is None:
        placed = _lengthen(base, low, rng) or _tunnel_on(base, low, rng)
    if placed is None:
        return None
    return placed[0], [*notes, placed[1]]


def _place_ends(
    g: Genome, low: int, high: int | None, rng: np.random.Generator
) -> tuple[Genome, str] | None:
    """The parent's start (else a random free cell) and a goal ``low..high`` moves from it;
    another goal than the parent's when there is one."""
    walls = g.wall_array()
    starts = [g.start_cell] if g.start_cell is not None and not walls[g.start_cell] else []
    free = _open_cells(replace(g, start=None, goal=None))
    starts += [free[int(i)] for i in rng.permutation(len(free))[:END_TRIES]]
    for start in starts:
        dist = distances(walls, start)
        fits = (dist >= max(low, 1)) & (dist <= (high if high is not None else dist.max()))
        options = [(int(r), int(c)) for r, c in np.argwhere(fits)]
        options = [cell for cell in options if cell != g.goal] or options
        goal = _choice(options, rng)
        if goal is not None:
            child = replace(g, start=_facing(g, start, rng), goal=goal)
            return child, f"start {start}, goal {goal}: shortest path {int(dist[goal])} moves"
    return None


def _facing(g: Genome, cell: Cell, rng: np.random.Generator) -> tuple[int, int, str]:
    """The start at ``cell``, facing the parent's way if it started there, else at random."""
    if g.start is not None and g.start_cell == cell:
        return g.start
    return cell[0], cell[1], DIRECTIONS[int(rng.integers(len(DIRECTIONS)))]


def _seed_cell(g: Genome) -> Cell | None:
    """Where to measure the layout from: the parent's start, else the first free cell."""
    walls = g.wall_array()
    if g.start_cell is not None and not walls[g.start_cell]:
        return g.start_cell
    free = _open_cells(replace(g, start=None, goal=None))
    return free[0] if free else None


def _farthest_pair(walls: np.ndarray, seed: Cell) -> tuple[Cell, np.ndarray]:
    """A far end of ``seed``'s region and the distances from it (a double sweep: the
    farthest cell from the farthest cell, exact on trees, close on grids)."""
    first = distances(walls, seed)
    a = np.unravel_index(int(np.argmax(first)), first.shape)
    far = (int(a[0]), int(a[1]))
    return far, distances(walls, far)


def _lengthen(g: Genome, low: int, rng: np.random.Generator) -> tuple[Genome, str] | None:
    """Add wall spurs (from the border or a wall) one at a time, each the one of
    ``SPUR_TRIALS`` that most lengthens the longest way, until it reaches ``low`` moves;
    then the start goes at one end and the goal ``low`` or more moves away."""
    seed = _seed_cell(g)
    if seed is None:
        return None
    walls = g.wall_array()
    far, dist = _farthest_pair(walls, seed)
    room = _wall_room(g, g)
    added = 0
    for _ in range(LENGTHEN_STEPS):
        if dist.max() >= low:
            break
        best = _best_spur(walls, far, int(dist.max()), room - added, rng)
        if best is None:
            return None
        walls, far, dist, count = best
        added += count
    goal = _choice([(int(r), int(c)) for r, c in np.argwhere(dist >= low)], rng)
    if goal is None:
        return None
    child = replace(_with_walls(g, _cells(walls)), start=_facing(g, far, rng), goal=goal)
    note = f"{added} walls added as spurs; start {far}, goal {goal}: {int(dist[goal])} moves"
    return child, note


def _best_spur(
    walls: np.ndarray, far: Cell, longest: int, room: int, rng: np.random.Generator
) -> tuple[np.ndarray, Cell, np.ndarray, int] | None:
    """The spur of ``SPUR_TRIALS`` that most lengthens the longest way (fewest walls on a
    tie), or None when none lengthens it within ``room`` walls."""
    best: tuple[int, int] | None = None
    chosen: tuple[np.ndarray, Cell, np.ndarray, int] | None = None
    for _ in range(SPUR_TRIALS):
        cells = _spur(walls, rng)
        if not cells or len(cells) > room or far in cells:
            continue
        trial = walls.copy()
        trial[tuple(np.asarray(cells).T)] = True
        end, dist = _farthest_pair(trial, far)
        key = (int(dist.max()) - longest, -len(cells))
        if key[0] > 0 and (best is None or key > best):
            best, chosen = key, (trial, end, dist, len(cells))
    return chosen


def _spur(walls: np.ndarray, rng: np.random.Generator) -> list[Cell]:
    """A straight run of new walls from the border or from a wall cell, 3..SIZE-3 long,
    stopping at the first wall."""
    direction = int(rng.integers(len(MOVES)))
    dr, dc = MOVES[direction]
    existing = np.argwhere(walls)
    if len(existing) and rng.random() < 0.5:
        r, c = (int(v) for v in existing[int(rng.integers(len(existing)))])
    else:  # just outside the border, heading in
        lane = int(rng.integers(SIZE))
        r, c = {0: (lane, -1), 1: (-1, lane), 2: (lane, SIZE), 3: (SIZE, lane)}[direction]
    cells: list[Cell] = []
    for _ in range(int(rng.integers(3, SIZE - 2))):
        r, c = r + dr, c + dc
        if not inside(r, c) or walls[r, c]:
            break
        cells.append((r, c))
    return cells


def _tunnel_on(g: Genome, low: int, rng: np.random.Generator) -> tuple[Genome, str] | None:
    """For walled layouts: from the far end of the longest way, dig a tunnel through the walls
    (a random walk that never opens a shortcut, but may break into a region the start could
    not reach) until the way is ``low`` moves; the goal goes that far from the start."""
    seed = _seed_cell(g)
    if seed is None:
        return None
    start, _ = _farthest_pair(g.wall_array(), seed)
    for _ in range(TUNNEL_TRIES):
        dug, carved = _dig(g.wall_array(), start, low, rng)
        dist = distances(dug, start)
        goal = _choice([(int(r), int(c)) for r, c in np.argwhere(dist >= low)], rng)
        if goal is not None:
            child = replace(_with_walls(g, _cells(dug)), start=_facing(g, start, rng), goal=goal)
            note = f"a {carved}-cell tunnel dug; start {start}, goal {goal}: {dist[goal]} moves"
            return child, note
    return None


def _dig(
    walls: np.ndarray, start: Cell, low: int, rng: np.random.Generator
) -> tuple[np.ndarray, int]:
    """Dig from the farthest cell that can still dig until some cell is ``low`` moves from
    ``start`` or nothing can be dug; the walls after, and the cells dug."""
    dug, carved = walls.copy(), 0
    dist = distances(dug, start)
    while dist.max() < low:
        moves = _dig_moves(dug, dist)
        if not moves:
            break
        dug[moves[int(rng.integers(len(moves)))]] = False
        carved += 1
        dist = distances(dug, start)
    return dug, carved


def _dig_moves(walls: np.ndarray, dist: np.ndarray) -> list[Cell]:
    """The walls that may be dug next to the farthest reachable cell that has any."""
    reach = dist >= 0
    for r, c in sorted(np.argwhere(reach).tolist(), key=lambda cell: -dist[tuple(cell)]):
        moves = [n for n in neighbours(r, c) if _tunnel_cell(walls, n, (r, c), reach)]
        if moves:
            return moves
    return []


# --- dead-end skills -----------------------------------------------------------------------


def _teach_dead_ends(g: Genome, rng: np.random.Generator) -> tuple[Genome, list[str]] | None:
    """Side branches that lead nowhere (at least one, then until the maze has more than
    ``FEW_DEAD_ENDS`` dead ends, at most ``MAX_BRANCHES``), off the way from start to goal where
    both are fixed: a short straight run walled in on its sides and end in open space, or dug
    as a tunnel into the walls."""
    base, notes = _fix_random_walls(g, rng)
    walls, ends = base.wall_array(), _ends(base)
    before = dead_ends(walls)
    room = _wall_room(g, base)
    branches = 0
    for anchor in _branch_anchors(base, rng):
        if branches == MAX_BRANCHES or (branches and dead_ends(walls) > FEW_DEAD_ENDS):
            break
        for direction in rng.permutation(len(MOVES)):
            length = int(rng.integers(*BRANCH_LENGTH))
            trial = _branch(walls, anchor, int(direction), length, ends)
            if trial is None or int(trial.sum()) - int(walls.sum()) > room:
                continue
            grown = _with_walls(base, _cells(trial))
            if dead_ends(trial) > dead_ends(walls) and solvable(grown):
                room -= int(trial.sum()) - int(walls.sum())
                walls, branches = trial, branches + 1
                break
    if not branches:
        return None
    note = f"{branches} dead-end side branches added (dead ends {before} → {dead_ends(walls)})"
    return _with_walls(base, _cells(walls)), [*notes, note]


def _branch_anchors(g: Genome, rng: np.random.Generator) -> list[Cell]:
    """Free cells to branch from, in random order: the cells of a shortest way when both ends
    are fixed (so the branches lie beside it), else every free cell."""
    walls = g.wall_array()
    cells = [(int(r), int(c)) for r, c in np.argwhere(~walls)]
    start, goal = g.start_cell, g.goal
    if start is not None and goal is not None:
        from_start, to_goal = distances(walls, start), distances(walls, goal)
        length = int(from_start[goal])
        cells = [c for c in cells if from_start[c] >= 0 and from_start[c] + to_goal[c] == length]
    return [cells[int(i)] for i in rng.permutation(len(cells))]


def _branch(
    walls: np.ndarray, anchor: Cell, direction: int, length: int, ends: set[Cell]
) -> np.ndarray | None:
    """The walls with a dead-end branch of ``length`` cells heading ``direction`` from
    ``anchor``: into free cells, their sides and the cell past the last walled (never the
    start or the goal); into walls, a tunnel dug. None when neither fits."""
    dr, dc = MOVES[direction]
    run = [(anchor[0] + k * dr, anchor[1] + k * dc) for k in range(1, length + 1)]
    if not all(inside(*cell) for cell in run) or set(run) & ends:
        return None
    trial = walls.copy()
    if not walls[run[0]]:
        if any(walls[cell] for cell in run):
            return None
        sides = (MOVES[(direction + 1) % 4], MOVES[(direction + 3) % 4])
        around = [(r + sr, c + sc) for r, c in run for sr, sc in sides]
        around.append((run[-1][0] + dr, run[-1][1] + dc))
        new = [cell for cell in around if inside(*cell) and not walls[cell]]
        if set(new) & ends:
            return None
        for cell in new:
            trial[cell] = True
        return trial
    previous = anchor
    for cell in run:
        if not _tunnel_cell(trial, cell, previous, ~trial):
            return None
        trial[cell], previous = False, cell
    return trial


def _teach_no_dead_ends(g: Genome, rng: np.random.Generator) -> tuple[Genome, list[str]] | None:
    """Every dead end joined into a loop (the shortest tunnel through the walls to another
    free cell dug out) or, where no tunnel exists, filled; the start and goal are never
    filled."""
    base, notes = _fix_random_walls(g, rng)
    walls, ends = base.wall_array(), _ends(base)
    before = dead_ends(walls)
    joined = filled = 0
    for _ in range(SIZE * SIZE):
        stubs = [
            (int(r), int(c)) for r, c in np.argwhere(~walls & (free_neighbour_counts(walls) == 1))
        ]
        if not stubs:
            break
        stub = stubs[int(rng.integers(len(stubs)))]
        tunnel = _loop_tunnel(walls, stub)
        if tunnel:
            for cell in tunnel:
                walls[cell] = False
            joined += 1
        elif stub not in ends:
            walls[stub] = True
            filled += 1
        else:
            return None
    if dead_ends(walls):
        return None
    note = f"dead ends {before} → 0: {joined} joined into loops, {filled} filled"
    return _with_walls(base, _cells(walls)), [*notes, note] if before else notes


def _loop_tunnel(walls: np.ndarray, stub: Cell) -> list[Cell]:
    """The fewest wall cells to dig from the dead end ``stub`` to another free cell (a BFS
    through the walls); empty when the walls hold none."""
    came: dict[Cell, Cell] = {}
    queue = deque(n for n in neighbours(*stub) if walls[n])
    for cell in queue:
        came[cell] = stub
    while queue:
        cell = queue.popleft()
        if any(not walls[n] and n != stub for n in neighbours(*cell)):
            path = [cell]
            while came[path[-1]] != stub:
                path.append(came[path[-1]])
            return path
        for n in neighbours(*cell):
            if walls[n] and n not in came:
                came[n] = cell
                queue.append(n)
    return []


_DEAD_END_EDITS = {"many_dead_ends": _teach_dead_ends, "few_dead_ends": _teach_no_dead_ends}
