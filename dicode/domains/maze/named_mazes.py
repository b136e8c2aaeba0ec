"""The named held-out mazes of JaxUED, the literature's 13×13 maze benchmark, as data.

Source (layouts, starts, facings and goals; data only, no code): ``DramaCow/jaxued``,
``src/jaxued/environments/maze/level.py`` at commit
``0f8f1284677375b889e4f13a32c9617cd009f8c4``; the eight names are the default
``--eval_levels`` of its ``examples/maze_plr.py`` (10 attempts each, ``--eval_num_attempts``).
The pictures keep JaxUED's notation: ``#`` a wall, ``.`` free, ``G`` the goal and the start as
the arrow the agent faces (``>`` east, ``v`` south, ``<`` west, ``^`` north). JaxUED writes
positions as (x, y); here they become our (row, col) = (y, x), row 0 at the top, and its
direction order (east, south, west, north) is ours.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dicode.domains.maze.grid import SIZE, path_length

#: Our direction name of each start arrow.
ARROWS = {">": "east", "v": "south", "<": "west", "^": "north"}


def mirrored(picture: str) -> str:
    """The picture flipped left to right, its start arrow turned to match."""
    turn = str.maketrans("<>", "><")
    return "\n".join(row[::-1].translate(turn) for row in picture.split("\n"))


_LABYRINTH = """
.............
.###########.
.#.........#.
.#.#######.#.
.#.#.....#.#.
.#.#.###.#.#.
.#.#.#G#.#.#.
.#.#.#.#.#.#.
.#...#...#.#.
.#########.#.
.....#.....#.
####.#.#####.
>....#.......
"""
#: JaxUED's eight held-out mazes, in its reporting order (its LabyrinthFlipped is the
#: Labyrinth mirrored left to right).
PICTURES: dict[str, str] = {
    "SixteenRooms": """
...#..#..#...
.>.......#...
...#..#......
#.###.##.###.
...#.........
......#..#...
##.#.##.###.#
...#.....#...
...#..#......
.####.##.#.##
...#..#..#...
......#....G.
...#.....#...
""",
    "SixteenRooms2": """
...#.....#...
.>....#..#...
...#..#..#...
####.##.###.#
...#..#......
......#..#...
#.#####.#####
...#..#..#...
...#.........
##.##.##.####
...#..#..#...
......#....G.
...#..#..#...
""",
    "Labyrinth": _LABYRINTH,
    "LabyrinthFlipped": mirrored(_LABYRINTH),
    "Labyrinth2": """
>#...........
.#.#########.
.#.#.......#.
.#.#.#####.#.
.#.#.#...#.#.
...#.#.#.#.#.
####.#G#.#.#.
...#.###.#.#.
.#.#.....#.#.
.#.#######.#.
.#.........#.
.###########.
.............
""",
    "StandardMaze": """
.....#>...#..
.###.####.##.
.#...........
.########.###
........#....
######.#####.
....#..#.....
.##...##.####
..#.#..#...#.
#.#.##.###.#.
#.#..#...#...
#.##.###.###.
...#..G#.#...
""",
    "StandardMaze2": """
...#.#....#..
.#.#.####...#
.#........#..
.########.###
...#..#.#.#.G
##.#.##.#.#..
>#.#....#.##.
.#.##.###..#.
.#..#..###.#.
.##.##.#.#.#.
.#...#.#.#.#.
.#.#.#.#.#.#.
...#...#.....
""",
    "StandardMaze3": """
...>#.#......
.####.#.####.
.#....#.#....
...####.#.#.#
##.#....#.#..
...#.##.#.##.
.#.#.#..#..#G
.#.#.#.###.##
.#...#.#.#...
.###.#.#.###.
.#...#.#...#.
.#.###.#.#.#.
.#...#...#...
""",
}


@dataclass(frozen=True)
class NamedMaze:
    """One named maze read from its picture."""

    name: str
    walls: np.ndarray  # (13, 13) bool
    start: tuple[int, int]  # (row, col)
    direction: str
    goal: tuple[int, int]


def read_picture(name: str, text: str) -> NamedMaze:
    """Walls, start (cell and facing) and goal of a picture in JaxUED's notation; raises
    ``ValueError`` when it is not 13×13 or lacks exactly one start and one goal."""
    rows = [row.strip() for row in text.strip().splitlines()]
    if len(rows) != SIZE or any(len(row) != SIZE for row in rows):
        raise ValueError(f"{name}: the picture must be {SIZE} rows of {SIZE} cells")
    walls = np.zeros((SIZE, SIZE), bool)
    starts: list[tuple[tuple[int, int], str]] = []
    goals: list[tuple[int, int]] = []
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch == "#":
                walls[r, c] = True
            elif ch == "G":
                goals.append((r, c))
            elif ch in ARROWS:
                starts.append(((r, c), ARROWS[ch]))
            elif ch != ".":
                raise ValueError(f"{name}: unexpected {ch!r} at row {r}, col {c}")
    if len(starts) != 1 or len(goals) != 1:
        raise ValueError(f"{name}: need one start and one goal, got {len(starts)} and {len(goals)}")
    (start, direction), goal = starts[0], goals[0]
    return NamedMaze(name, walls, start, direction, goal)


def named_mazes() -> tuple[NamedMaze, ...]:
    """The eight mazes, each checked solvable (a broken transcription raises here)."""
    mazes = tuple(read_picture(name, text) for name, text in PICTURES.items())
    for maze in mazes:
        if path_length(maze.walls, maze.start, maze.goal) is None:
            raise ValueError(f"{maze.name}: the goal is cut off from the start")
    return mazes
