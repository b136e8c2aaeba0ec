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
    SPANNING_TREES,
    VIEW,
    Cell,
    distances,
    free_neighbour_counts,
    in_view,
    parse_picture,
    spanning_tree_walls,
)
from dicode.domains.maze.grid import path_length as shortest_path

#: Version of the builder contract; stored in every level bundle's provenance.
BUILDER_VERSION = "maze-builder/1"
#: Most walls one ``random_walls`` call may draw (and one ``open_walls`` call may open).
MAX_RANDOM_WALLS = 120
#: Most moves a start may be asked to lie from the goal: more than any 13×13 maze's longest way.
MAX_DISTANCE = SIZE * SIZE - 1


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

    __slots__ = ("_goal", "_near_goal", "_rng", "_start", "_start_min", "_walls")

    def __init__(self, rng: np.random.Generator) -> None:
        self._rng = rng
        self._walls = np.zeros((SIZE, SIZE), bool)
        self._start: tuple[int, int, int] | None = None  # (row, col, direction); None: random
        self._start_min: int | None = None  # a random start's least distance from the goal
        self._goal: Cell | None = None  # None: random
        self._near_goal: tuple[int, bool] | None = None  # (distance, goal in view) at finish

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

    def perfect_maze(self, method: str = "backtracker") -> None:
        """Replace every cell with a perfect maze drawn at random for this instance: the cells
        with an even row and an even col are free and joined by a random spanning tree (the
        cell between two joined ones is cleared), so there is exactly one way between any two
        free cells and every free cell can reach every other.

        ``method``: ``"backtracker"`` (a randomised depth-first search: long winding corridors,
        the long-path target's mazes) or ``"kruskal"`` (many short dead ends). Call it before
        any other wall call: it overwrites every wall set before it.
        """
        if not isinstance(method, str) or method not in SPANNING_TREES:
            raise fail(
                "perfect_maze", f"method must be one of {', '.join(SPANNING_TREES)}, got {method!r}"
            )
        # One seed drawn from the level's generator, then the tree drawn from that seed, as
        # ``generate.long_path_instance`` draws its mazes: the builder's mazes are the host's.
        seed = int(self._rng.integers(2**31))
        self._walls = spanning_tree_walls(np.random.default_rng(seed), method)

    def open_walls(self, count: int) -> None:
        """Remove up to ``count`` (0..120) walls, one at a time, each drawn at random among the
        walls with free cells on two opposite sides (north and south, or east and west).

        Each opening joins two passages: in a perfect maze it makes a loop, so some ways get
        shorter and there is more than one way to the goal. Call it after the walls are built
        (``perfect_maze``, ``walls_from``, ...). Fewer are opened only when no such wall is left.
        """
        n = check_int("open_walls", "count", count, 0, MAX_RANDOM_WALLS)
        for _ in range(n):
            cells = np.argwhere(_joining_walls(self._walls))
            if len(cells) == 0:
                return
            r, c = cells[int(self._rng.integers(len(cells)))]
            self._walls[r, c] = False

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
        self._start_min = None

    def random_start(self, min_distance: int | None = None) -> None:
        """Draw the start cell and direction at random when the instance is finished (the
        default): a free cell from which the goal can be reached.

        With ``min_distance`` (1..168): a cell at least that many moves from the goal. With a
        random goal too, the two are drawn as the long-path target's mazes draw them: the start
        a random free cell from which some cell lies that far, the goal a random one of those
        cells (``level.perfect_maze()`` then ``level.random_start(min_distance=60)`` is the
        long-path target). Where no cell lies that far, the farthest cells are used instead.
        """
        if min_distance is not None:
            min_distance = check_int("random_start", "min_distance", min_distance, 1, MAX_DISTANCE)
        self._start = None
        self._start_min = min_distance

    def start_near_goal(self, distance: int, goal_in_view: bool = False) -> None:
        """When the instance is finished (its start and goal set or drawn), move the start to a
        random cell exactly ``distance`` (1..168) moves from the goal, facing a random way: the
        first rung of a reverse curriculum (the level's maze, its start brought near the goal).
        A start already that close or closer stays where it is.

        With ``goal_in_view=True`` the cell and facing are drawn among those from which the goal
        lies in the agent's 5x5 view, where a cell at that distance has one (else as above); a
        start that stays is turned to see the goal where a facing does.
        """
        k = check_int("start_near_goal", "distance", distance, 1, MAX_DISTANCE)
        if not isinstance(goal_in_view, bool):
            raise fail(
                "start_near_goal", f"goal_in_view must be True or False, got {goal_in_view!r}"
            )
        self._near_goal = (k, goal_in_view)

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
        """The instance as arrays (called after ``build``): random ends are drawn here, then a
        start near the goal is moved. An end that cannot be drawn (no suitable free cell) is
        written as (-1, -1) for the checks to report."""
        walls = self._walls
        goal = self._goal
        if self._start is not None:
            start_cell: Cell | None = self._start_cell()
            direction = self._start[2]
        elif self._start_min is not None and goal is None:
            start_cell, direction, goal = self._far_pair(walls, self._start_min)
        else:
            if goal is not None:
                from_goal = distances(walls, goal)
                candidates = from_goal > 0 if self._start_min is None else _at_least(
                    from_goal, self._start_min
                )  # fmt: skip
            else:
                candidates = ~walls & (free_neighbour_counts(walls) > 0)
            start_cell = self._draw(candidates)
            direction = int(self._rng.integers(len(DIRECTIONS)))
        if goal is None:
            goal = None if start_cell is None else self._draw(distances(walls, start_cell) > 0)
        if self._near_goal is not None and start_cell is not None and goal is not None:
            start_cell, direction = self._moved_start(walls, start_cell, direction, goal)
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

    def _far_pair(self, walls: np.ndarray, least: int) -> tuple[Cell | None, int, Cell | None]:
        """A random start with some cell ``least`` or more moves away, then a random goal among
        those cells — ``generate.long_path_instance``'s draw, step for step, on these walls.
        Where no two cells are that far apart, the longest way there is sets the distance."""
        free = np.argwhere(~walls)
        longest = 0
        for r, c in free[self._rng.permutation(len(free))]:
            dist = distances(walls, (int(r), int(c)))
            far = np.argwhere(dist >= least)
            if len(far):
                direction = int(self._rng.integers(len(DIRECTIONS)))
                goal = far[int(self._rng.integers(len(far)))]
                return (int(r), int(c)), direction, (int(goal[0]), int(goal[1]))
            longest = max(longest, int(dist.max()))
        if longest < 1:  # no two free cells are joined
            return None, 0, None
        return self._far_pair(walls, longest)

    def _moved_start(
        self, walls: np.ndarray, start: Cell, direction: int, goal: Cell
    ) -> tuple[Cell, int]:
        """``start_near_goal``: the start on a random cell at the asked distance from the goal
        (a ring of the goal's BFS: not empty while the current start is farther), or kept where
        it is when it is that close already (or cut off: the checks report that); with the goal
        in view, a cell and facing that see it where the ring (or the kept start) has one."""
        assert self._near_goal is not None
        distance, view = self._near_goal
        from_goal = distances(walls, goal)
        kept = from_goal[start] <= distance
        ring = (
            [start] if kept else [(int(r), int(c)) for r, c in np.argwhere(from_goal == distance)]
        )
        if view:
            seeing = [(cell, d) for cell in ring for d in range(len(DIRECTIONS))
                      if in_view(cell, d, goal)]  # fmt: skip
            if seeing and not (kept and in_view(start, direction, goal)):
                return seeing[int(self._rng.integers(len(seeing)))]
        if kept:
            return start, direction
        cell = ring[int(self._rng.integers(len(ring)))]
        return cell, int(self._rng.integers(len(DIRECTIONS)))

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


def _at_least(dist: np.ndarray, least: int) -> np.ndarray:
    """Cells at least ``least`` moves away by ``dist`` (a BFS), else the farthest reachable."""
    far = dist >= least
    return far if far.any() else (dist > 0) & (dist == dist.max())


def _joining_walls(walls: np.ndarray) -> np.ndarray:
    """Walls with free cells on two opposite sides (the border counts as wall)."""
    free = np.pad(~walls, 1, constant_values=False)
    north, south = free[:-2, 1:-1], free[2:, 1:-1]
    west, east = free[1:-1, :-2], free[1:-1, 2:]
    return walls & ((north & south) | (west & east))


def make_builder(rng: np.random.Generator) -> MazeLevel:
    """A fresh level (no walls, random ends); ``rng`` serves ``random_walls`` and the random
    ends."""
    return MazeLevel(rng)


_BOUNDS = f"""\
Bounds: {SIZE} rows x {SIZE} columns, row 0 = top, col 0 = left, inside a fixed wall border;
random_walls draws (and open_walls opens) at most {MAX_RANDOM_WALLS} walls per call; a start may be
asked to lie 1..{MAX_DISTANCE} moves from the goal (random_start, start_near_goal).
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
