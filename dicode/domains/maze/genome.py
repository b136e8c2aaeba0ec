"""A typed genome of maze levels: read level code without running it, write it back.

The mutation teacher edits levels through this genome. ``read_genome`` reads a level module
with :mod:`ast` only — level code is untrusted and is never imported or executed here. The
grammar covers ``build(level, rng)`` bodies made of the builder's calls (``wall``, ``clear``,
``line``, ``corridor``, ``room``, ``fill``, ``clear_area``, ``walls_from``, ``perfect_maze``,
``start``, ``random_start``, ``goal``, ``random_goal``, ``start_near_goal``, ``open_walls``,
``random_walls``) whose arguments are literals, names bound by simple constant assignments, or
integer arithmetic on ``for`` loop variables over ``range(...)`` or literal tuples; ``if``
statements whose test is a literal expression. The deterministic calls are replayed on a real
``MazeLevel`` (so the genome sees exactly the walls and ends the sandbox would build). The
calls that draw per instance keep an order: ``perfect_maze`` comes before every other wall
call (it overwrites the walls, and the genome cannot replay a maze drawn per instance, so no
wall call may follow it); ``open_walls`` and then ``random_walls`` come after every wall, start
and goal call (what they draw depends on them); ``start_near_goal`` may stand anywhere (it acts
when the instance is finished). Anything else — using ``rng``, reading the maze back
(``is_wall``, ``path_length``), helpers, ``while`` — is outside the grammar, and the reader
falls back to :func:`default_genome` (the target game, keeping the level's docstring) and says
why.

``write_level`` writes a genome as readable level code: the docstring, then ``build`` with the
perfect maze or one ``walls_from`` picture, the start, the goal, the start near the goal, the
openings and the random walls.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace

import numpy as np

from dicode.domains.build_args import LevelBuildError
from dicode.domains.maze.builder import MAX_DISTANCE, MAX_RANDOM_WALLS, MazeLevel
from dicode.domains.maze.grid import (
    DIRECTIONS,
    SIZE,
    SPANNING_TREES,
    Cell,
    dead_ends,
    free_neighbour_counts,
    inside,
    path_length,
    picture,
)
from dicode.teachers.genome_base import GenomeReading, read_with_fallback
from dicode.teachers.level_source import (
    BuilderGrammar,
    GenomeError,
    SourceLines,
    Value,
    as_integer,
    clean_text,
    is_docstring,
    read_module,
    write_module,
)

#: The target game's random walls (the fallback genome).
DR_WALLS = 25

Start = tuple[int, int, str]  # (row, col, direction)
#: Free cells of a perfect maze: the 7×7 lattice's nodes and the 48 cells between joined nodes.
MAZE_FREE_CELLS = ((SIZE + 1) // 2) ** 2 * 2 - 1


@dataclass(frozen=True)
class NearGoal:
    """``level.start_near_goal(distance, goal_in_view)``: when an instance is finished, its
    start moves to a cell ``distance`` moves from the goal (if it lies farther)."""

    distance: int
    goal_in_view: bool = False


@dataclass(frozen=True)
class Genome:
    """Everything the mutation teacher can edit in a maze level.

    ``maze``: a perfect maze drawn per instance (``level.perfect_maze(maze)``, the spanning
    tree's method), under everything else, or ``None``. ``walls``: the explicit wall cells
    (sorted; none with a ``maze``). ``start`` (row, col, direction) and ``goal`` (row, col) are
    ``None`` when drawn at random per instance; ``start_min_distance``: a random start's least
    distance from the goal (``level.random_start(min_distance=...)``). ``near_goal``: the start
    moved near the goal when the instance is finished. ``openings``: walls opened at random per
    instance (``level.open_walls``), after the layout, start and goal. ``random_walls``: walls
    drawn at random per instance after the openings (the builder keeps a fixed start and goal
    connected). ``module_code``: module-level statements (imports, constants) kept verbatim
    from the parent.
    """

    description: str
    walls: tuple[Cell, ...] = ()
    start: Start | None = None
    goal: Cell | None = None
    random_walls: int = 0
    module_code: str = ""
    maze: str | None = None
    start_min_distance: int | None = None
    near_goal: NearGoal | None = None
    openings: int = 0

    def normalized(self) -> Genome:
        """One spelling per level: walls sorted without repeats, the docstring cleaned, no
        least distance on a fixed start (the builder drops it there too)."""
        return replace(
            self,
            description=clean_text(self.description),
            walls=tuple(sorted(set(self.walls))),
            start_min_distance=None if self.start is not None else self.start_min_distance,
        )

    def wall_array(self) -> np.ndarray:
        """The explicit walls as a (13, 13) bool array."""
        grid = np.zeros((SIZE, SIZE), bool)
        for r, c in self.walls:
            grid[r, c] = True
        return grid

    @property
    def start_cell(self) -> Cell | None:
        return None if self.start is None else (self.start[0], self.start[1])

    def shortest_path(self) -> int | None:
        """Moves from the fixed start to the fixed goal over the explicit walls (None when an
        end is random, the maze is drawn per instance or the goal is cut off)."""
        if self.start_cell is None or self.goal is None or self.maze is not None:
            return None
        return path_length(self.wall_array(), self.start_cell, self.goal)


def default_genome(description: str | None = None) -> Genome:
    """The target game: ``DR_WALLS`` random walls, random start and goal."""
    text = description or (
        "The target game: 25 walls on random cells, a random start and a random reachable goal."
    )
    return Genome(description=clean_text(text), random_walls=DR_WALLS)


def read_genome(source: str) -> GenomeReading[Genome]:
    """Read a level's genome and report whether the genome grammar covered all of it."""
    return read_with_fallback(source, _read_module, default_genome)


def parse_level(source: str) -> Genome:
    """The level's genome (the fallback when the code is outside the grammar)."""
    return read_genome(source).genome


def write_level(genome: Genome) -> str:
    """Write a genome as a level module following the maze level contract."""
    g = genome.normalized()
    body: list[str] = []
    if g.maze is not None:
        method = "" if g.maze == "backtracker" else f'"{g.maze}"'
        body.append(f"level.perfect_maze({method})")
    if g.walls:
        body += ["level.walls_from(", '    """']
        body += [f"    {row}" for row in picture(g.wall_array())]
        body += ['    """', ")"]
    if g.start is not None:
        body.append(f'level.start({g.start[0]}, {g.start[1]}, "{g.start[2]}")')
    elif g.start_min_distance is not None:
        body.append(f"level.random_start(min_distance={g.start_min_distance})")
    if g.goal is not None:
        body.append(f"level.goal({g.goal[0]}, {g.goal[1]})")
    if g.near_goal is not None:
        view = ", goal_in_view=True" if g.near_goal.goal_in_view else ""
        body.append(f"level.start_near_goal({g.near_goal.distance}{view})")
    if g.openings:
        body.append(f"level.open_walls({g.openings})")
    if g.random_walls:
        body.append(f"level.random_walls({g.random_walls})")
    if not body:
        body.append("pass  # an empty room; the start and the goal are drawn at random")
    return write_module(g.description, g.module_code, body)


def check_bounds(genome: Genome) -> None:
    """Raise :class:`GenomeError` naming the first field outside the builder's bounds."""
    g = genome
    for r, c in g.walls:
        if not inside(r, c):
            raise GenomeError(f"wall ({r}, {c}) is outside the {SIZE}x{SIZE} grid")
    if g.start is not None:
        r, c, direction = g.start
        if not inside(r, c) or direction not in DIRECTIONS:
            raise GenomeError(f"start {g.start} needs a cell of the grid and a direction")
    if g.goal is not None and not inside(*g.goal):
        raise GenomeError(f"goal {g.goal} is outside the grid")
    if not 0 <= g.random_walls <= MAX_RANDOM_WALLS:
        raise GenomeError(f"random walls {g.random_walls} outside 0..{MAX_RANDOM_WALLS}")
    if not 0 <= g.openings <= MAX_RANDOM_WALLS:
        raise GenomeError(f"openings {g.openings} outside 0..{MAX_RANDOM_WALLS}")
    if g.maze is not None and (g.maze not in SPANNING_TREES or g.walls):
        raise GenomeError(f"a perfect maze ({g.maze!r}) needs a known method and no other walls")
    near = None if g.near_goal is None else g.near_goal.distance
    for what, distance in (("least start distance", g.start_min_distance), ("near goal", near)):
        if distance is not None and not 1 <= distance <= MAX_DISTANCE:
            raise GenomeError(f"{what} {distance} outside 1..{MAX_DISTANCE}")


def solvable(genome: Genome) -> bool:
    """Does every instance the genome builds have a reachable goal?

    Fixed ends must lie on free, distinct cells. With both ends fixed the explicit walls must
    connect them (random walls never cut them apart, openings only join); with one fixed end
    it needs a free neighbour (random walls leave it one, and the random end is drawn in its
    region); with none, a free cell with a free neighbour must remain. A start moved near the
    goal stays in the goal's region. In a perfect maze drawn per instance only the lattice's
    nodes (even row and col) are free in every instance, and they are all joined.
    """
    g = genome
    ends = [cell for cell in (g.start_cell, g.goal) if cell is not None]
    if g.maze is not None:
        on_nodes = all(r % 2 == 0 and c % 2 == 0 for r, c in ends)
        distinct = len(set(ends)) == len(ends)
        return on_nodes and distinct and MAZE_FREE_CELLS - g.random_walls >= 2
    walls = g.wall_array()
    if any(walls[cell] for cell in ends):
        return False
    if len(ends) == 2:
        return ends[0] != ends[1] and path_length(walls, ends[0], ends[1]) is not None
    if len(ends) == 1:
        return bool(free_neighbour_counts(walls)[ends[0]] > 0)
    free = int((~walls).sum())
    return free - g.random_walls >= 2 and bool(
        ((~walls) & (free_neighbour_counts(walls) > 0)).any()
    )


def describe(genome: Genome) -> str:
    """One plain-English paragraph saying what the level is."""
    g = genome.normalized()
    walls = len(g.walls)
    if g.maze is not None:
        layout = (
            f"A {SIZE}x{SIZE} perfect maze drawn anew in every instance ({g.maze} spanning "
            "tree: one way between any two cells)"
        )
    else:
        share = f"{100 * walls / SIZE**2:.0f}% of the cells"
        layout = f"A {SIZE}x{SIZE} maze with {walls} wall{'s' if walls != 1 else ''} ({share})"
    drawn = (
        f" and {g.random_walls} more on random cells in every instance" if g.random_walls else ""
    )
    parts = [f"{layout}{drawn}."]
    if g.openings:
        parts.append(f"{g.openings} walls between two passages are opened in every instance.")
    if g.start is not None:
        parts.append(f"The agent starts at {g.start[:2]} facing {g.start[2]};")
    elif g.start_min_distance is not None:
        parts.append(
            f"The agent starts on a random cell at least {g.start_min_distance} moves from the "
            "goal, facing a random direction;"
        )
    else:
        parts.append("The agent starts on a random cell facing a random direction;")
    if g.goal is None:
        parts.append("the goal is on a random cell it can reach.")
    else:
        parts.append(f"the goal is at {g.goal}.")
    if g.near_goal is not None:
        seen = ", the goal in view where it can be" if g.near_goal.goal_in_view else ""
        parts.append(
            f"Then the start moves to a cell {g.near_goal.distance} moves from the goal{seen}."
        )
    length = g.shortest_path()
    if length is not None:
        extra = " (before the random walls)" if g.random_walls else ""
        parts.append(f"Shortest path: {length} moves{extra}.")
    if g.walls:
        parts.append(f"Dead ends: {dead_ends(g.wall_array())}.")
    return " ".join(parts)


# --- the reader ----------------------------------------------------------------------------

_SIGNATURES: dict[str, tuple[str, ...]] = {
    "wall": ("row", "col"),
    "clear": ("row", "col"),
    "line": ("row0", "col0", "row1", "col1"),
    "corridor": ("row0", "col0", "row1", "col1"),
    "room": ("top", "left", "bottom", "right"),
    "fill": ("top", "left", "bottom", "right"),
    "clear_area": ("top", "left", "bottom", "right"),
    "walls_from": ("picture",),
    "perfect_maze": ("method",),
    "start": ("row", "col", "direction"),
    "random_start": ("min_distance",),
    "goal": ("row", "col"),
    "random_goal": (),
    "start_near_goal": ("distance", "goal_in_view"),
    "open_walls": ("count",),
    "random_walls": ("count",),
}
#: Calls that draw per instance and must come last, in this order (see the module docstring).
_DRAWN_LAST = ("open_walls", "random_walls")
#: Calls that set walls cell by cell: none may follow ``perfect_maze``.
_WALL_CALLS = frozenset(
    {"wall", "clear", "line", "corridor", "room", "fill", "clear_area", "walls_from"}
)
_BUILDER_CONSTANTS: dict[str, Value] = {"size": SIZE}


@dataclass
class _Trace:
    """What the modelled builder calls did: a real builder replays the deterministic ones."""

    level: MazeLevel = field(default_factory=lambda: MazeLevel(np.random.default_rng(0)))
    maze: str | None = None
    openings: int = 0
    random_walls: int = 0
    calls: int = 0
    loop_steps: int = 0


def _read_module(tree: ast.Module, source: SourceLines) -> Genome:
    module = read_module(tree, source)
    body = module.build.body
    if body and is_docstring(body[0]):
        body = body[1:]
    trace = _Trace()
    _GRAMMAR.run(body, dict(module.env), module.level, module.rng, trace)
    level = trace.level
    walls = tuple((int(r), int(c)) for r, c in np.argwhere(level._walls))  # the replayed walls
    start = None if level._start is None else (
        level._start[0], level._start[1], DIRECTIONS[level._start[2]]
    )  # fmt: skip
    near = None if level._near_goal is None else NearGoal(*level._near_goal)
    genome = Genome(
        description=module.docstring,
        walls=() if trace.maze is not None else walls,
        start=start,
        goal=level._goal,
        random_walls=trace.random_walls,
        module_code="\n\n".join(module.kept),
        maze=trace.maze,
        start_min_distance=level._start_min,
        near_goal=near,
        openings=trace.openings,
    )
    check_bounds(genome)
    return genome.normalized()


def _apply(method: str, args: dict[str, Value], trace: _Trace, where: str) -> None:
    if method in _DRAWN_LAST:
        count = as_integer(args.get("count"), "count", where)
        if not 0 <= count <= MAX_RANDOM_WALLS:
            raise GenomeError(
                f"{where}: level.{method} count {count} outside 0..{MAX_RANDOM_WALLS}"
            )
        if method == "open_walls":
            if trace.random_walls:
                raise GenomeError(
                    f"{where}: level.open_walls after level.random_walls (outside the grammar)"
                )
            trace.openings = min(MAX_RANDOM_WALLS, trace.openings + count)
        else:
            trace.random_walls = min(MAX_RANDOM_WALLS, trace.random_walls + count)
        return
    counts = (trace.openings, trace.random_walls)
    drawn = [name for name, count in zip(_DRAWN_LAST, counts, strict=True) if count]
    if drawn and method != "start_near_goal":  # it acts at the finish, wherever it stands
        raise GenomeError(
            f"{where}: level.{method} after level.{drawn[0]} depends on what it drew "
            "(outside the genome grammar)"
        )
    if trace.maze is not None and method in _WALL_CALLS | {"perfect_maze"}:
        raise GenomeError(
            f"{where}: level.{method} after level.perfect_maze edits a maze drawn per instance "
            "(outside the genome grammar)"
        )
    try:
        getattr(trace.level, method)(**args)
    except LevelBuildError as exc:
        raise GenomeError(f"{where}: {exc}") from None
    except TypeError as exc:  # a required argument is missing
        raise GenomeError(f"{where}: level.{method}: {exc}") from None
    if method == "perfect_maze":
        # The replay carved one maze; the genome keeps the method, not a maze of its own.
        trace.maze = str(args.get("method", "backtracker"))
        trace.level._walls[:] = False


_GRAMMAR = BuilderGrammar(_SIGNATURES, _BUILDER_CONSTANTS, _apply)
