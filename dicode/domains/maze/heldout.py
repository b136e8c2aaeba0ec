"""The held-out evaluation set: hand-designed mazes no training level comes from.

As in the curriculum literature's zero-shot evaluation (large rooms, long corridors,
labyrinths, perfect mazes), each maze is fixed: walls, start (cell and direction) and goal.
The student never trains on them (the target slot plays DR mazes; seed levels and the teacher's
children are other layouts). Pictures: 13 lines of 13 characters, top row first, ``#`` a wall,
``.`` free; coordinates are (row, col) with row 0 at the top.

The two perfect mazes come from a seeded spanning tree (``generate.perfect_maze``), so they are
fixed too; their seeds and methods are part of the protocol.

Three sets (``HELD_OUT_SETS``), chosen by the student's ``heldout`` setting: ``ours`` (the 12
below, the default), ``jaxued`` (the eight named mazes of JaxUED, ``named_mazes.py``: the
literature's calibration) and ``long_paths`` (fixed mazes of the sparse target family,
``generate.long_path_pool``, from a stream no training run draws).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from dicode.domains.maze.generate import long_path_pool, perfect_maze
from dicode.domains.maze.grid import DIRECTIONS, parse_picture, path_length, picture
from dicode.domains.maze.level_checks import MazePool
from dicode.domains.maze.named_mazes import named_mazes

#: The held-out sets by name; ``ours`` is the default protocol.
HELD_OUT_SETS = ("ours", "jaxued", "long_paths")
#: The ``long_paths`` set: how many mazes, and the stream they come from (training streams are
#: the run seed plus an offset below a few million; this one is apart from them).
LONG_PATH_MAZES = 16
LONG_PATH_STREAM = 9_100_003


@dataclass(frozen=True)
class HeldOutMaze:
    """One fixed maze of the evaluation set."""

    name: str
    walls: np.ndarray  # (13, 13) bool
    start: tuple[int, int]
    direction: str
    goal: tuple[int, int]
    note: str  # what it tests

    @property
    def shortest_path(self) -> int:
        length = path_length(self.walls, self.start, self.goal)
        if length is None:  # a broken protocol, never a student's fault
            raise ValueError(f"held-out maze {self.name}: the goal is cut off")
        return length

    def picture(self) -> list[str]:
        return picture(self.walls)


_LARGE_ROOM = """
.............
.............
.............
...##...##...
...##...##...
.............
.............
.............
...##...##...
...##...##...
.............
.............
.............
"""

_FOUR_ROOMS = """
......#......
......#......
.............
......#......
......#......
......#......
##.#######.##
......#......
......#......
.............
......#......
......#......
......#......
"""

_NINE_ROOMS = """
....#...#....
........#....
....#........
....#...#....
##.###.###.##
....#...#....
........#....
....#...#....
#.####.####.#
....#...#....
....#........
........#....
....#...#....
"""

_LONG_CORRIDOR = """
.............
############.
.............
.############
.............
############.
.............
.############
.............
############.
.............
.############
.............
"""

_SPIRAL = """
.#...........
.###########.
.#...#.....#.
.#.#.#####.#.
.#.#.....#.#.
.#.#.###.#.#.
.#.#.#...#.#.
.#.#.#####.#.
.#.#.......#.
.#.#########.
.#...........
.###########.
.............
"""

_DEAD_ENDS = """
#############
#.#.#.#.#.#.#
#.#.#.#.#.#.#
#.#.#.#.#.#.#
#.#.#.#.#.#.#
#.#.#.#.#.#.#
.............
#.#.#.#.#.#.#
#.#.#.#.#.#.#
#.#.#.#.#.#.#
#.#.#.#.#.#.#
#.#.#.#.#.#.#
#############
"""

_LABYRINTH = """
.............
###########..
.#.......#.#.
.#.#####.#.#.
.#.#...#.#.#.
.#.#.#.#.#.#.
.#...#.#.#.#.
.#####.#.#.#.
.......#...#.
########.###.
.#...........
.#.#########.
...#.........
"""

_GOAL_BEHIND_WALL = """
......#......
......#......
......#......
......#......
......#......
......#......
......#......
......#......
......#......
......#......
......#......
......#......
.............
"""

_PILLAR_GRID = """
.............
.#.#.#.#.#.#.
.............
.#.#.#.#.#.#.
.............
.#.#.#.#.#.#.
.............
.#.#.#.#.#.#.
.............
.#.#.#.#.#.#.
.............
.#.#.#.#.#.#.
.............
"""

_NARROW_BRIDGE = """
.............
.............
.............
.............
.............
###########.#
###########.#
###########.#
.............
.............
.............
.............
.............
"""


def _maze(
    name: str, walls: np.ndarray | str, start: tuple[int, int], direction: str,
    goal: tuple[int, int], note: str,
) -> HeldOutMaze:  # fmt: skip
    grid = parse_picture(walls) if isinstance(walls, str) else np.asarray(walls, bool)
    if direction not in DIRECTIONS:
        raise ValueError(f"{name}: unknown direction {direction!r}")
    return HeldOutMaze(name, grid, start, direction, goal, note)


@cache
def held_out_mazes() -> tuple[HeldOutMaze, ...]:
    """The evaluation set, in reporting order (names are the ``solve_<name>`` figures)."""
    mazes = (
        _maze("large_room", _LARGE_ROOM, (12, 0), "north", (0, 12),
              "an open room with four pillars; the goal is out of sight in the far corner"),
        _maze("four_rooms", _FOUR_ROOMS, (1, 1), "east", (11, 11),
              "four rooms joined by four doors; the goal is in the opposite room"),
        _maze("nine_rooms", _NINE_ROOMS, (0, 0), "south", (12, 12),
              "a 3x3 grid of rooms, one door per wall segment"),
        _maze("long_corridor", _LONG_CORRIDOR, (0, 0), "east", (12, 12),
              "one serpentine corridor, seven lengths of the maze"),
        _maze("spiral", _SPIRAL, (0, 0), "south", (6, 6),
              "a corridor spiralling to the goal in the centre"),
        _maze("dead_ends", _DEAD_ENDS, (6, 0), "east", (1, 9),
              "a main corridor with twelve dead-end branches; the goal ends one of them"),
        _maze("labyrinth", _LABYRINTH, (0, 0), "east", (6, 6),
              "nested rings with pockets and dead ends; the goal in the middle"),
        _maze("perfect_maze_dfs", perfect_maze(7, "backtracker"), (0, 0), "east", (12, 12),
              "a perfect maze (randomised depth-first spanning tree, seed 7)"),
        _maze("perfect_maze_kruskal", perfect_maze(11, "kruskal"), (12, 0), "north", (0, 12),
              "a perfect maze (Kruskal spanning tree, seed 11)"),
        _maze("goal_behind_wall", _GOAL_BEHIND_WALL, (1, 5), "east", (1, 7),
              "the goal is in view behind a wall; the way round is long"),
        _maze("pillar_grid", _PILLAR_GRID, (12, 0), "north", (0, 12),
              "a lattice of single pillars: junctions everywhere"),
        _maze("narrow_bridge", _NARROW_BRIDGE, (0, 0), "east", (12, 0),
              "two rooms joined by one long, narrow bridge at the far side"),
    )  # fmt: skip
    for maze in mazes:
        _ = maze.shortest_path  # every maze is solvable (raises otherwise)
    return mazes


def jaxued_mazes() -> tuple[HeldOutMaze, ...]:
    """JaxUED's eight named held-out mazes (``named_mazes.py``), in its order."""
    return tuple(
        HeldOutMaze(m.name, m.walls, m.start, m.direction, m.goal, "JaxUED's named maze")
        for m in named_mazes()
    )


def long_path_mazes() -> tuple[HeldOutMaze, ...]:
    """``LONG_PATH_MAZES`` fixed mazes of the long-path family (``generate.long_path_pool``)."""
    pool = long_path_pool(LONG_PATH_STREAM, range(LONG_PATH_MAZES))

    def cell(xy: np.ndarray) -> tuple[int, int]:
        return int(xy[0]), int(xy[1])

    note = "a perfect maze, start and goal at least 60 moves apart"
    return tuple(
        HeldOutMaze(
            f"long_path_{i:02d}", pool.walls[i], cell(pool.start_pos[i]),
            DIRECTIONS[int(pool.start_dir[i])], cell(pool.goal_pos[i]), note,
        )
        for i in range(LONG_PATH_MAZES)
    )  # fmt: skip


@cache
def held_out_set(name: str = "ours") -> tuple[HeldOutMaze, ...]:
    """One of ``HELD_OUT_SETS``, in reporting order."""
    if name == "ours":
        return held_out_mazes()
    if name == "jaxued":
        return jaxued_mazes()
    if name == "long_paths":
        return long_path_mazes()
    raise ValueError(f"unknown held-out set {name!r}; known: {', '.join(HELD_OUT_SETS)}")


def held_out_pool(name: str = "ours") -> MazePool:
    """A set as a pool (one instance per maze, in reporting order)."""
    mazes = held_out_set(name)
    return MazePool(
        walls=np.stack([m.walls for m in mazes]),
        start_pos=np.asarray([m.start for m in mazes], np.int32),
        start_dir=np.asarray([DIRECTIONS.index(m.direction) for m in mazes], np.int32),
        goal_pos=np.asarray([m.goal for m in mazes], np.int32),
    )


def held_out_names(name: str = "ours") -> tuple[str, ...]:
    return tuple(m.name for m in held_out_set(name))
