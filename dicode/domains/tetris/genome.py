"""A small typed genome for Tetris levels: read level code without running it, write it back.

The mutation teacher edits levels through this genome. ``read_genome`` / ``parse_level`` read a
level module with :mod:`ast` only — level code is untrusted and is never imported or executed
here. The genome grammar covers ``build(level, rng)`` bodies made of the builder's editing
calls (``garbage``, ``well``, ``fill``, ``clear``, ``row``, ``column``, ``pieces``,
``sequence``, ``goal``) whose arguments are literals, names bound by simple constant assignments,
or integer arithmetic on ``for`` loop variables over ``range(...)`` or literal tuples (the usual
way to cut a column or fill a rectangle); ``if`` statements whose test is a literal expression.
Anything else — using ``rng``, ``while``, helper functions, reading the board back — is outside
the grammar, and the reader then falls back to :func:`default_genome` (the standard game,
keeping the level's docstring) and says why.

``write_level`` writes a genome as readable level code that follows the Tetris level contract:
the docstring (the genome's description) comes first, then ``build(level, rng)`` made of the
builder's methods; no imports are needed.

Coordinates follow the project convention: row 0 is the bottom row, column 0 the leftmost.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace

from dicode.domains.tetris.builder import (
    BOARD_HEIGHT,
    BOARD_WIDTH,
    MAX_GOAL_LINES,
    MAX_GOAL_PIECES,
    MAX_SEQUENCE,
    PIECE_NAMES,
    SPAWN_ROWS,
)
from dicode.teachers.genome_base import GenomeReading, read_with_fallback
from dicode.teachers.level_source import (
    BuilderGrammar,
    GenomeError,
    SourceLines,
    Value,
    as_integer,
    builder_call,
    clean_text,
    read_build_body,
    read_module,
    write_module,
)

# What the genome accepts: the builder's own limits (the mutation operators keep tighter caps,
# see genome_edits). Weights are unbounded in the builder; the genome keeps them readable.
MAX_STACK_ROWS = BOARD_HEIGHT - SPAWN_ROWS
MAX_HOLES = BOARD_WIDTH - 1
MAX_WEIGHT = 1000.0

Cell = tuple[int, int]  # (row, col)


@dataclass(frozen=True)
class GarbageBlock:
    """``level.garbage(rows, holes)``: rows full except ``holes`` cells at random columns."""

    rows: int
    holes: int = 1


@dataclass(frozen=True)
class Well:
    """``level.well(column, depth)``: ``depth`` rows full except ``column`` — a well."""

    column: int
    depth: int

    @property
    def rows(self) -> int:
        return self.depth


Block = GarbageBlock | Well


@dataclass(frozen=True)
class Genome:
    """Everything the mutation teacher can edit in a Tetris level.

    ``stack`` lists the blocks pushed in at the bottom **in call order**: each push lifts the
    board, so the last block ends up lowest. ``filled`` / ``cleared`` are explicit cell edits
    in final board coordinates, applied after the pushes. ``piece_weights`` is ``None`` for the
    uniform draw, else 7 weights in ``"IOTSZJL"`` order. ``goal_lines`` / ``goal_pieces``
    follow ``level.goal``: both ``None`` is the standard game.

    ``module_code`` (module-level statements such as imports and helpers) and ``setup_code``
    (the leading statements of ``build`` the genome does not model, e.g. ones that use
    ``rng``) are kept verbatim from the parent and written back unchanged: the genome edits
    what follows them. Pushes lift whatever the setup code drew.
    """

    description: str
    module_code: str = ""
    setup_code: str = ""
    stack: tuple[Block, ...] = ()
    filled: tuple[Cell, ...] = ()
    cleared: tuple[Cell, ...] = ()
    piece_weights: tuple[float, ...] | None = None
    sequence: str = ""
    goal_lines: int | None = None
    goal_pieces: int | None = None

    @property
    def stack_rows(self) -> int:
        """Rows pushed in by all blocks together."""
        return sum(block.rows for block in self.stack)

    def block_rows(self, index: int) -> range:
        """Final board rows occupied by ``stack[index]`` (later pushes lie below it)."""
        start = sum(block.rows for block in self.stack[index + 1 :])
        return range(start, start + self.stack[index].rows)

    def normalized(self) -> Genome:
        """The canonical form of this genome: same level, one spelling (see ``_canonical``)."""
        return _canonical(self)


def default_genome(description: str | None = None) -> Genome:
    """The standard game: empty board, uniform pieces, no goal."""
    text = description or "The standard game: an empty board, uniform random pieces, no goal."
    return Genome(description=clean_text(text))


def parse_level(source: str) -> Genome:
    """Read a level's genome from its source, without executing it (AST only).

    Code outside the genome grammar (see the module docstring) yields :func:`default_genome`
    — the standard game — described by the level's own docstring when one can be read. Use
    :func:`read_genome` to learn whether the reading was exact and, if not, why.
    """
    return read_genome(source).genome


def read_genome(source: str) -> GenomeReading[Genome]:
    """Read a level's genome and report whether the genome grammar covered all of it."""
    return read_with_fallback(source, _read_module, default_genome)


def write_level(genome: Genome) -> str:
    """Write a genome as a level module following the Tetris level contract."""
    g = genome.normalized()
    body: list[str] = []
    if len(g.stack) > 1:
        body.append("# Each push enters at the bottom and lifts the board: the last ends lowest.")
    for block in g.stack:
        if isinstance(block, Well):
            body.append(f"level.well({block.column}, {block.depth})")
        else:
            body.append(f"level.garbage({block.rows}, holes={block.holes})")
    body.extend(f"level.fill({row}, {col})" for row, col in g.filled)
    body.extend(f"level.clear({row}, {col})" for row, col in g.cleared)
    if g.piece_weights is not None:
        items = ", ".join(
            f'"{name}": {weight!r}'
            for name, weight in zip(PIECE_NAMES, g.piece_weights, strict=True)
            if weight > 0
        )
        body.append(f"level.pieces({{{items}}})")
    if g.sequence:
        body.append(f'level.sequence("{g.sequence}")')
    if g.goal_lines is not None or g.goal_pieces is not None:
        args = []
        if g.goal_lines is not None:
            args.append(f"lines={g.goal_lines}")
        if g.goal_pieces is not None:
            args.append(f"pieces={g.goal_pieces}")
        body.append(f"level.goal({', '.join(args)})")
    if not body and not g.setup_code:
        body.append("pass  # the standard game: nothing to change")
    if g.setup_code:
        body = [*g.setup_code.splitlines(), *body]
    return write_module(g.description, g.module_code, body)


def check_bounds(genome: Genome) -> None:
    """Raise :class:`GenomeError` naming the first field outside the genome's bounds."""
    g = genome
    for block in g.stack:
        if isinstance(block, Well):
            if not (0 <= block.column < BOARD_WIDTH and block.depth >= 1):
                raise GenomeError(f"{block} needs a column in 0..{BOARD_WIDTH - 1}, depth >= 1")
        elif block.rows < 1 or not 1 <= block.holes <= MAX_HOLES:
            raise GenomeError(f"{block} needs rows >= 1 and holes in 1..{MAX_HOLES}")
    if g.stack_rows > MAX_STACK_ROWS:
        raise GenomeError(f"{g.stack_rows} pushed rows exceed {MAX_STACK_ROWS}")
    for row, col in (*g.filled, *g.cleared):
        if not (0 <= row < BOARD_HEIGHT and 0 <= col < BOARD_WIDTH):
            raise GenomeError(f"cell ({row}, {col}) is outside the board")
    if g.piece_weights is not None:
        if len(g.piece_weights) != len(PIECE_NAMES):
            raise GenomeError("piece weights need one value per piece")
        if any(not 0.0 <= w <= MAX_WEIGHT for w in g.piece_weights):
            raise GenomeError(f"piece weights must lie in [0, {MAX_WEIGHT}]")
        if not any(w > 0 for w in g.piece_weights):
            raise GenomeError("at least one piece weight must be positive")
    if len(g.sequence) > MAX_SEQUENCE or any(p not in PIECE_NAMES for p in g.sequence):
        raise GenomeError(f"sequence {g.sequence!r} is not {MAX_SEQUENCE} or fewer of IOTSZJL")
    if g.goal_lines is not None and not 1 <= g.goal_lines <= MAX_GOAL_LINES:
        raise GenomeError(f"goal lines {g.goal_lines} outside 1..{MAX_GOAL_LINES}")
    if g.goal_pieces is not None and not 1 <= g.goal_pieces <= MAX_GOAL_PIECES:
        raise GenomeError(f"goal pieces {g.goal_pieces} outside 1..{MAX_GOAL_PIECES}")


def describe(genome: Genome) -> str:
    """One plain-English paragraph saying what the level is (goal, start, pieces)."""
    g = genome.normalized()
    if g.goal_lines is not None and g.goal_pieces is not None:
        goal = f"Clear {g.goal_lines} lines within {g.goal_pieces} pieces."
    elif g.goal_lines is not None:
        goal = f"Clear {g.goal_lines} lines."
    elif g.goal_pieces is not None:
        goal = f"Survive {g.goal_pieces} pieces."
    else:
        goal = "The standard game: play as long as possible."
    start: list[str] = []
    if g.setup_code:
        start.append("the parent's own set-up code")
    # Bottom to top reads naturally: the last push is the lowest block.
    for block in reversed(g.stack):
        if isinstance(block, Well):
            start.append(f"a {block.depth}-deep well in column {block.column}")
        else:
            start.append(f"{block.rows} garbage rows with {block.holes} hole(s) each")
    if g.filled:
        start.append(f"{len(g.filled)} extra filled cell(s)")
    if g.cleared:
        start.append(f"{len(g.cleared)} cleared cell(s)")
    board = "Start (bottom up): " + ", ".join(start) + "." if start else "Start: an empty board."
    if g.piece_weights is None:
        pieces = "Pieces: uniform random."
    else:
        total = sum(g.piece_weights)
        shares = ", ".join(
            f"{name} {100 * w / total:.0f}%"
            for name, w in zip(PIECE_NAMES, g.piece_weights, strict=True)
            if w > 0
        )
        pieces = f"Pieces: weighted ({shares})."
    if g.sequence:
        pieces += f" Opening sequence: {g.sequence}."
    return " ".join((goal, board, pieces))


# --- canonical form ------------------------------------------------------------------------


def _canonical(g: Genome) -> Genome:
    """One spelling per level: per cell only the last edit counts, and no-op clears go.

    A clear in a well's open column, or (without set-up code) above the pushed rows, empties a
    cell that is empty anyway, so it is dropped.
    """
    last_edit: dict[Cell, bool] = {}  # cell -> filled?
    for cell in g.filled:
        last_edit[cell] = True
    for cell in g.cleared:
        last_edit[cell] = False
    open_cells: set[Cell] = set()
    for index, block in enumerate(g.stack):
        if isinstance(block, Well):
            open_cells.update((row, block.column) for row in g.block_rows(index))
    filled = tuple(sorted(c for c, is_filled in last_edit.items() if is_filled))
    cleared = tuple(
        sorted(
            c
            for c, is_filled in last_edit.items()
            if not is_filled and (g.setup_code or c[0] < g.stack_rows) and c not in open_cells
        )
    )
    weights = g.piece_weights
    if weights is not None:
        weights = tuple(float(w) for w in weights)
    return replace(
        g,
        description=clean_text(g.description),
        filled=filled,
        cleared=cleared,
        piece_weights=weights,
    )


# --- the reader ----------------------------------------------------------------------------

# Builder methods that set the piece supply or the goal (last call wins, order-free with
# respect to the board); every other modelled method edits the board.
_SETTERS = frozenset({"pieces", "sequence", "goal"})
_SIGNATURES: dict[str, tuple[str, ...]] = {
    "fill": ("row", "col"),
    "clear": ("row", "col"),
    "row": ("row", "cells"),
    "column": ("col", "height"),
    "garbage": ("rows", "holes"),
    "well": ("col", "depth"),
    "pieces": ("weights",),
    "sequence": ("pieces",),
    "goal": ("lines", "pieces"),
}
_BUILDER_SIZES = {"width": BOARD_WIDTH, "height": BOARD_HEIGHT}
# What kept (unmodelled) code may use on the builder: board edits and reads, never setters.
_KEPT_BUILDER_ATTRIBUTES = frozenset(_SIGNATURES) - _SETTERS | {"is_filled", *_BUILDER_SIZES}


@dataclass
class _Trace:
    """What the modelled builder calls did, in call order."""

    stack: list[Block] = field(default_factory=list)
    # (row, col, filled?, rows pushed before the edit)
    cell_edits: list[tuple[int, int, bool, int]] = field(default_factory=list)
    piece_weights: tuple[float, ...] | None = None
    sequence: str = ""
    goal_lines: int | None = None
    goal_pieces: int | None = None
    calls: int = 0
    loop_steps: int = 0

    def copy(self) -> _Trace:
        return replace(self, stack=list(self.stack), cell_edits=list(self.cell_edits))

    def charge(self, trial: _Trace) -> None:
        self.calls, self.loop_steps = trial.calls, trial.loop_steps

    def drop_ordered_edits(self) -> None:
        # The board edits modelled so far now live in the set-up code.
        self.stack, self.cell_edits = [], []


def _read_module(tree: ast.Module, source: SourceLines) -> Genome:
    module = read_module(tree, source)

    def model(node: ast.stmt, env: dict[str, Value], trace: _Trace) -> None:
        _GRAMMAR.run([node], env, module.level, module.rng, trace)

    def lifted(node: ast.stmt) -> bool:
        call = builder_call(node, module.level)
        return call is not None and call[0] in _SETTERS

    trace, setup = read_build_body(
        module, source, _Trace(), model, lifted, _KEPT_BUILDER_ATTRIBUTES
    )
    if setup and (module.level, module.rng) != ("level", "rng"):
        raise GenomeError(
            f"build({module.level}, {module.rng}): kept set-up code needs (level, rng)"
        )
    genome = _genome_from_trace(trace, module.docstring)
    genome = replace(genome, module_code="\n\n".join(module.kept), setup_code="\n".join(setup))
    check_bounds(genome)
    return genome.normalized()


def _genome_from_trace(trace: _Trace, docstring: str) -> Genome:
    total = sum(b.rows for b in trace.stack)
    by_cell: dict[Cell, bool] = {}
    for row, col, is_filled, pushed_before in trace.cell_edits:
        # A push after the edit lifts the edited cell by the rows pushed since; the builder
        # refuses to push a filled cell off the top.
        final_row = row + (total - pushed_before)
        if final_row >= BOARD_HEIGHT and is_filled:
            raise GenomeError(f"cell ({row}, {col}) is pushed off the board by later pushes")
        if final_row < BOARD_HEIGHT:
            by_cell.pop((final_row, col), None)
            by_cell[(final_row, col)] = is_filled
    return Genome(
        description=docstring,
        stack=tuple(trace.stack),
        filled=tuple(c for c, f in by_cell.items() if f),
        cleared=tuple(c for c, f in by_cell.items() if not f),
        piece_weights=trace.piece_weights,
        sequence=trace.sequence,
        goal_lines=trace.goal_lines,
        goal_pieces=trace.goal_pieces,
    )


def _apply(method: str, args: dict[str, Value], trace: _Trace, where: str) -> None:
    pushed = sum(b.rows for b in trace.stack)

    def edit(row: int, col: int, filled: bool) -> None:
        if not (0 <= row < BOARD_HEIGHT and 0 <= col < BOARD_WIDTH):
            raise GenomeError(f"{where}: level.{method} cell ({row}, {col}) is off the board")
        trace.cell_edits.append((row, col, filled, pushed))

    def need(name: str) -> Value:
        if name not in args:
            raise GenomeError(f"{where}: level.{method} needs {name}")
        return args[name]

    if method in ("fill", "clear"):
        row = as_integer(need("row"), "row", where)
        edit(row, as_integer(need("col"), "col", where), method == "fill")
    elif method == "row":
        row = as_integer(need("row"), "row", where)
        cells = need("cells")
        if not isinstance(cells, str) or len(cells) != BOARD_WIDTH or set(cells) - set("#X."):
            raise GenomeError(f"{where}: level.row needs a picture of {BOARD_WIDTH} '#'/'.'")
        for col, ch in enumerate(cells):
            edit(row, col, ch != ".")
    elif method == "column":
        col = as_integer(need("col"), "col", where)
        height = as_integer(need("height"), "height", where)
        if not 0 <= height <= MAX_STACK_ROWS:
            raise GenomeError(f"{where}: level.column height {height} outside 0..{MAX_STACK_ROWS}")
        for row in range(height):
            edit(row, col, True)
    elif method == "garbage":
        rows = as_integer(need("rows"), "rows", where)
        holes = as_integer(args.get("holes", 1), "holes", where)
        trace.stack.append(GarbageBlock(rows, holes))
    elif method == "well":
        col = as_integer(need("col"), "col", where)
        trace.stack.append(Well(col, as_integer(need("depth"), "depth", where)))
    elif method == "pieces":
        weights = need("weights")
        if not isinstance(weights, dict) or any(k not in PIECE_NAMES for k in weights):
            raise GenomeError(f"{where}: level.pieces needs a dict over 'IOTSZJL'")
        trace.piece_weights = tuple(float(weights.get(name, 0.0)) for name in PIECE_NAMES)
    elif method == "sequence":
        pieces = need("pieces")
        if not isinstance(pieces, str):
            raise GenomeError(f"{where}: level.sequence needs a string")
        trace.sequence = pieces
    else:  # goal
        lines, pieces_goal = args.get("lines"), args.get("pieces")
        trace.goal_lines = None if lines is None else as_integer(lines, "lines", where)
        trace.goal_pieces = (
            None if pieces_goal is None else as_integer(pieces_goal, "pieces", where)
        )


_GRAMMAR = BuilderGrammar(_SIGNATURES, _BUILDER_SIZES, _apply)
