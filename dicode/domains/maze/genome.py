"""A typed genome of maze levels: read level code without running it, write it back.

The mutation teacher edits levels through this genome. ``read_genome`` reads a level module
with :mod:`ast` only — level code is untrusted and is never imported or executed here. The
grammar covers ``build(level, rng)`` bodies made of the builder's calls (``wall``, ``clear``,
``line``, ``corridor``, ``room``, ``fill``, ``clear_area``, ``walls_from``, ``start``,
``random_start``, ``goal``, ``random_goal``, ``random_walls``) whose arguments are literals,
names bound by simple constant assignments, or integer arithmetic on ``for`` loop variables
over ``range(...)`` or literal tuples; ``if`` statements whose test is a literal expression.
The deterministic wall calls are replayed on a real ``MazeLevel`` (so the genome sees exactly
the walls the sandbox would build); ``random_walls`` must come after every wall, start and goal
call (the walls it draws depend on them). Anything else — using ``rng``, reading the maze back
(``is_wall``, ``path_length``), helpers, ``while`` — is outside the grammar, and the reader
falls back to :func:`default_genome` (the target game, keeping the level's docstring) and says
why.

``write_level`` writes a genome as readable level code: the docstring, then ``build`` with one
``walls_from`` picture, the start, the goal and the random walls.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace

import numpy as np

from dicode.domains.build_args import LevelBuildError
from dicode.domains.maze.builder import MAX_RANDOM_WALLS, MazeLevel
from dicode.domains.maze.grid import (
    DIRECTIONS,
    SIZE,
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


@dataclass(frozen=True)
class Genome:
    """Everything the mutation teacher can edit in a maze level.

    ``walls``: the explicit wall cells (sorted). ``start`` (row, col, direction) and ``goal``
    (row, col) are ``None`` when drawn at random per instance. ``random_walls``: walls drawn at
    random per instance after the explicit ones, start and goal (the builder keeps a fixed
    start and goal connected). ``module_code``: module-level statements (imports, constants)
    kept verbatim from the parent.
    """

    description: str
    walls: tuple[Cell, ...] = ()
    start: Start | None = None
    goal: Cell | None = None
    random_walls: int = 0
    module_code: str = ""

    def normalized(self) -> Genome:
        """One spelling per level: walls sorted without repeats, the docstring cleaned."""
        return replace(
            self,
            description=clean_text(self.description),
            walls=tuple(sorted(set(self.walls))),
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
        end is random or the goal is cut off)."""
        if self.start_cell is None or self.goal is None:
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
    if g.walls:
        body += ["level.walls_from(", '    """']
        body += [f"    {row}" for row in picture(g.wall_array())]
        body += ['    """', ")"]
    if g.start is not None:
        body.append(f'level.start({g.start[0]}, {g.start[1]}, "{g.start[2]}")')
    if g.goal is not None:
        body.append(f"level.goal({g.goal[0]}, {g.goal[1]})")
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


def solvable(genome: Genome) -> bool:
    """Does every instance the genome builds have a reachable goal?

    Fixed ends must lie on free, distinct cells. With both ends fixed the explicit walls must
    connect them (random walls never cut them apart); with one fixed end it needs a free
    neighbour (random walls leave it one, and the random end is drawn in its region); with
    none, a free cell with a free neighbour must remain.
    """
    g = genome
    walls = g.wall_array()
    ends = [cell for cell in (g.start_cell, g.goal) if cell is not None]
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
    parts = [
        f"A {SIZE}x{SIZE} maze with {walls} wall{'s' if walls != 1 else ''} "
        f"({100 * walls / SIZE**2:.0f}% of the cells)"
        + (f" and {g.random_walls} more on random cells in every instance." if g.random_walls
           else ".")
    ]  # fmt: skip
    if g.start is None:
        parts.append("The agent starts on a random cell facing a random direction;")
    else:
        parts.append(f"The agent starts at {g.start[:2]} facing {g.start[2]};")
    if g.goal is None:
        parts.append("the goal is on a random cell it can reach.")
    else:
        parts.append(f"the goal is at {g.goal}.")
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
    "start": ("row", "col", "direction"),
    "random_start": (),
    "goal": ("row", "col"),
    "random_goal": (),
    "random_walls": ("count",),
}
_BUILDER_CONSTANTS: dict[str, Value] = {"size": SIZE}


@dataclass
class _Trace:
    """What the modelled builder calls did: a real builder replays the deterministic ones."""

    level: MazeLevel = field(default_factory=lambda: MazeLevel(np.random.default_rng(0)))
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
    genome = Genome(
        description=module.docstring,
        walls=walls,
        start=start,
        goal=level._goal,
        random_walls=trace.random_walls,
        module_code="\n\n".join(module.kept),
    )
    check_bounds(genome)
    return genome.normalized()


def _apply(method: str, args: dict[str, Value], trace: _Trace, where: str) -> None:
    if method == "random_walls":
        count = as_integer(args.get("count"), "count", where)
        if not 0 <= count <= MAX_RANDOM_WALLS:
            raise GenomeError(
                f"{where}: level.random_walls count {count} outside 0..{MAX_RANDOM_WALLS}"
            )
        trace.random_walls = min(MAX_RANDOM_WALLS, trace.random_walls + count)
        return
    if trace.random_walls:
        raise GenomeError(
            f"{where}: level.{method} after level.random_walls depends on the random walls "
            "(outside the genome grammar)"
        )
    try:
        getattr(trace.level, method)(**args)
    except LevelBuildError as exc:
        raise GenomeError(f"{where}: {exc}") from None
    except TypeError as exc:  # a required argument is missing
        raise GenomeError(f"{where}: level.{method}: {exc}") from None


_GRAMMAR = BuilderGrammar(_SIGNATURES, _BUILDER_CONSTANTS, _apply)
