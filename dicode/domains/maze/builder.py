"""The maze level builder: the API a level's ``build(level, rng)`` function edits.

A maze level is one Python module. Its docstring describes the level; it defines
``build(level, rng)``, which is called once per pool instance with a fresh ``MazeLevel`` as
``level`` and a seeded ``numpy.random.Generator`` as ``rng``. ``build`` edits ``level``; its
return value is ignored. A new ``MazeLevel`` is an empty 13×13 room (no walls) whose start and
goal are drawn at random. Level code may import only ``math``, ``itertools``, ``functools``,
``collections`` and ``numpy``.

This module imports only NumPy and the standard library on purpose: it runs inside the sandbox
worker. Its arrays follow ``dicode.domains.maze.level_checks.POOL_FIELDS`` field for field.
"""

from __future__ import annotations

import inspect

import numpy as np

from dicode.domains.api_docs import render_builder_api
from dicode.domains.build_args import check_int, fail
from dicode.domains.maze.grid import (
    DIRECTIONS,
    MAX_STEPS,
    SIZE,
    VIEW,
    Cell,
    distances,
    free_neighbour_counts,
    parse_picture,
)
from dicode.domains.maze.grid import path_length as shortest_path

#: Version of the builder contract; stored in every level bundle's provenance.
BUILDER_VERSION = "maze-builder/1"
#: Most walls one ``random_walls`` call may draw.
MAX_RANDOM_WALLS = 120


def _check_cell(call: str, row: object, col: object, prefix: str = "") -> Cell:
    return (
        check_int(call, f"{prefix}row", row, 0, SIZE - 1),
        check_int(call, f"{prefix}col", col, 0, SIZE - 1),
    )


class MazeLevel:
    """One maze: a 13×13 grid of cells inside a wall border, a start and a goal.

    Coordinates: ``row`` 0 is the **top** row and 12 the bottom row; ``col`` 0 is the leftmost
    column and 12 the rightmost. The border around the 13×13 cells is always a wall and is not
    part of the grid. Directions are ``"east"`` (towards higher columns), ``"south"`` (higher
    rows), ``"west"`` and ``"north"``.

    A new level has no walls, and its start (cell and facing direction) and goal are drawn at
    random when the instance is finished: a random goal is drawn among the cells reachable from
    the start, a random start among the cells from which the goal can be reached, so a random
    end never makes the maze unsolvable. Set them with ``start`` and ``goal``.

    Rules every finished instance must satisfy (checked after ``build`` returns): the start and
    the goal lie on free cells, differ, and the goal can be reached from the start.

    Every method raises ``LevelBuildError`` naming the method and the bad value when an
    argument is out of range or of the wrong type.
    """

    __slots__ = ("_goal", "_rng", "_start", "_walls")

    def __init__(self, rng: np.random.Generator) -> None:
        self._rng = rng
        self._walls = np.zeros((SIZE, SIZE), bool)
        self._start: tuple[int, int, int] | None = None  # (row, col, direction); None: random
        self._goal: Cell | None = None  # None: random

    @property
    def size(self) -> int:
        """Number of rows and of columns (13)."""
        return SIZE

    # --- walls ---------------------------------------------------------------------------
    def wall(self, row: int, col: int) -> None:
        """Put a wall on the cell at ``row`` (0 = top .. 12), ``col`` (0 = left .. 12)."""
        r, c = _check_cell("wall", row, col)
        self._walls[r, c] = True

    def clear(self, row: int, col: int) -> None:
        """Remove the wall (if any) from the cell at ``row``, ``col``."""
        r, c = _check_cell("clear", row, col)
        self._walls[r, c] = False

    def is_wall(self, row: int, col: int) -> bool:
        """True if the cell at ``row``, ``col`` is a wall."""
        r, c = _check_cell("is_wall", row, col)
        return bool(self._walls[r, c])

    def line(self, row0: int, col0: int, row1: int, col1: int) -> None:
        """Walls on every cell of the straight segment from (row0, col0) to (row1, col1),
        both ends included; the segment must be horizontal (same row) or vertical (same col).

        Example: ``level.line(6, 0, 6, 11)`` walls row 6 except its last cell (a gap at col 12).
        """
        self._segment("line", row0, col0, row1, col1, True)

    def corridor(self, row0: int, col0: int, row1: int, col1: int) -> None:
        """Clear every cell of the straight segment from (row0, col0) to (row1, col1) (both
        ends included; horizontal or vertical) — carves a passage through walls."""
        self._segment("corridor", row0, col0, row1, col1, False)

    def room(self, top: int, left: int, bottom: int, right: int) -> None:
        """Walls around the outline of the rectangle with corners (top, left) and
        (bottom, right), inside left free; open doors in it with ``clear``.

        Needs ``top < bottom`` and ``left < right``.
        """
        t, lft, b, rgt = self._rectangle("room", top, left, bottom, right)
        if t == b or lft == rgt:
            raise fail("room", f"needs top < bottom and left < right, got {(t, lft, b, rgt)}")
        self._walls[t, lft : rgt + 1] = True
        self._walls[b, lft : rgt + 1] = True
        self._walls[t : b + 1, lft] = True
        self._walls[t : b + 1, rgt] = True

    def fill(self, top: int, left: int, bottom: int, right: int) -> None:
        """Walls on every cell of the rectangle with corners (top, left), (bottom, right)."""
        t, lft, b, rgt = self._rectangle("fill", top, left, bottom, right)
        self._walls[t : b + 1, lft : rgt + 1] = True

    def clear_area(self, top: int, left: int, bottom: int, right: int) -> None:
        """Clear every cell of the rectangle with corners (top, left), (bottom, right)."""
        t, lft, b, rgt = self._rectangle("clear_area", top, left, bottom, right)
        self._walls[t : b + 1, lft : rgt + 1] = False

    def walls_from(self, picture: str) -> None:
        """Set every cell from a text picture of 13 lines of 13 characters, top row first:
        ``#`` (or ``X``) a wall, ``.`` a free cell. Surrounding blank lines and indentation are
        ignored, so a triple-quoted string works::

            level.walls_from(\"\"\"
                .............
                .#####.#####.
                ... (13 lines in all)
            \"\"\")
        """
        try:
            self._walls = parse_picture(picture)
        except ValueError as exc:
            raise fail("walls_from", str(exc)) from None

    def random_walls(self, count: int) -> None:
        """Put up to ``count`` (0..120) walls on free cells drawn uniformly at random.

        Never on the start or goal cell set so far, so call it after ``start`` and ``goal``.
        When both are set and connected, a wall that would cut the goal off from the start is
        not placed (another cell is drawn); when one of them is set, it keeps at least one free
        neighbour. Fewer than ``count`` walls are placed only when no free cell is left that
        obeys this.
        """
        n = check_int("random_walls", "count", count, 0, MAX_RANDOM_WALLS)
        if n == 0:
            return
        fixed = [cell for cell in (self._start_cell(), self._goal) if cell is not None]
        free = [
            (int(r), int(c)) for r, c in np.argwhere(~self._walls) if (int(r), int(c)) not in fixed
        ]
        order = self._rng.permutation(len(free))
        keep_path = len(fixed) == 2 and shortest_path(self._walls, fixed[0], fixed[1]) is not None
        placed = 0
        for index in order:
            if placed == n:
                break
            r, c = free[int(index)]
            self._walls[r, c] = True
            if keep_path and shortest_path(self._walls, fixed[0], fixed[1]) is None:
                self._walls[r, c] = False
                continue
            if len(fixed) == 1 and free_neighbour_counts(self._walls)[fixed[0]] == 0:
                self._walls[r, c] = False
                continue
            placed += 1

    # --- start and goal ------------------------------------------------------------------
    def start(self, row: int, col: int, direction: str = "east") -> None:
        """Start the agent on the cell at ``row``, ``col``, facing ``direction`` (one of
        ``"east"``, ``"south"``, ``"west"``, ``"north"``)."""
        r, c = _check_cell("start", row, col)
        if not isinstance(direction, str) or direction not in DIRECTIONS:
            raise fail(
                "start", f"direction must be one of {', '.join(DIRECTIONS)}, got {direction!r}"
            )
        self._start = (r, c, DIRECTIONS.index(direction))

    def random_start(self) -> None:
        """Draw the start cell and direction at random when the instance is finished (the
        default): a free cell from which the goal can be reached."""
        self._start = None

    def goal(self, row: int, col: int) -> None:
        """Put the goal on the cell at ``row``, ``col``."""
        self._goal = _check_cell("goal", row, col)

    def random_goal(self) -> None:
        """Draw the goal at random when the instance is finished (the default): a free cell,
        other than the start, reachable from the start."""
        self._goal = None

    def path_length(self) -> int | None:
        """Fewest forward moves from the start to the goal (turns not counted), or ``None``
        when walls cut the goal off. Needs both the start and the goal set."""
        start = self._start_cell()
        if start is None or self._goal is None:
            raise fail("path_length", "needs the start and the goal set (level.start, level.goal)")
        return shortest_path(self._walls, start, self._goal)

    # --- finishing -----------------------------------------------------------------------
    def to_arrays(self) -> dict[str, np.ndarray]:
        """The instance as arrays (called after ``build``): random ends are drawn here. An end
        that cannot be drawn (no suitable free cell) is written as (-1, -1) for the checks to
        report."""
        walls = self._walls
        goal = self._goal
        if self._start is not None:
            start_cell: Cell | None = self._start_cell()
            direction = self._start[2]
        else:
            if goal is not None:
                candidates = distances(walls, goal) > 0
            else:
                candidates = ~walls & (free_neighbour_counts(walls) > 0)
            start_cell = self._draw(candidates)
            direction = int(self._rng.integers(len(DIRECTIONS)))
        if goal is None:
            goal = None if start_cell is None else self._draw(distances(walls, start_cell) > 0)
        missing = (-1, -1)
        return {
            "walls": walls.astype(np.uint8),
            "start_pos": np.asarray(start_cell or missing, np.int32),
            "start_dir": np.asarray(direction, np.int32),
            "goal_pos": np.asarray(goal or missing, np.int32),
        }

    # --- helpers -------------------------------------------------------------------------
    def _start_cell(self) -> Cell | None:
        return None if self._start is None else (self._start[0], self._start[1])

    def _draw(self, mask: np.ndarray) -> Cell | None:
        cells = np.argwhere(mask)
        if len(cells) == 0:
            return None
        r, c = cells[int(self._rng.integers(len(cells)))]
        return int(r), int(c)

    def _segment(self, call: str, row0: int, col0: int, row1: int, col1: int, wall: bool) -> None:
        r0, c0 = _check_cell(call, row0, col0, "start ")
        r1, c1 = _check_cell(call, row1, col1, "end ")
        if r0 != r1 and c0 != c1:
            raise fail(
                call,
                f"the segment ({r0}, {c0})-({r1}, {c1}) must be horizontal or vertical "
                "(same row or same column)",
            )
        self._walls[min(r0, r1) : max(r0, r1) + 1, min(c0, c1) : max(c0, c1) + 1] = wall

    def _rectangle(
        self, call: str, top: int, left: int, bottom: int, right: int
    ) -> tuple[int, int, int, int]:
        t, lft = _check_cell(call, top, left, "top-left ")
        b, rgt = _check_cell(call, bottom, right, "bottom-right ")
        if t > b or lft > rgt:
            raise fail(call, f"needs top <= bottom and left <= right, got {(t, lft, b, rgt)}")
        return t, lft, b, rgt


def make_builder(rng: np.random.Generator) -> MazeLevel:
    """A fresh level (no walls, random ends); ``rng`` serves ``random_walls`` and the random
    ends."""
    return MazeLevel(rng)


_BOUNDS = f"""\
Bounds: {SIZE} rows x {SIZE} columns, row 0 = top, col 0 = left, inside a fixed wall border;
random_walls draws at most {MAX_RANDOM_WALLS} walls per call.
The agent sees the {VIEW}x{VIEW} square in front of it (itself in the middle of its back row)
and moves by turning left, turning right or stepping forward; an episode ends at the goal or
after {MAX_STEPS} steps.
Allowed imports: math, itertools, functools, collections, numpy."""


def builder_api_docs() -> str:
    """The builder API documentation for prompts, rendered from this module's docstrings."""
    # The module docstring's first two paragraphs state the contract; the rest is for maintainers.
    contract = "\n\n".join(inspect.cleandoc(__doc__ or "").split("\n\n")[:2])
    return render_builder_api(contract, MazeLevel, _BOUNDS, skip=("to_arrays",))


def prompt_facts() -> dict[str, str]:
    """Game facts the maze prompt templates name (``$grid_size`` and so on)."""
    return {
        "grid_size": str(SIZE),
        "view_size": str(VIEW),
        "max_steps": str(MAX_STEPS),
        "directions": ", ".join(DIRECTIONS),
        "max_random_walls": str(MAX_RANDOM_WALLS),
    }
