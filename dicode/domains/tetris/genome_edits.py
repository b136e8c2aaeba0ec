"""Typed edits of a Tetris level genome, grouped by the instruction they push difficulty.

ACCEL-style mutation: a child differs from its parent by one or two small, typed edits. Which
edits are on offer depends on the instruction derived from the parent's status:

- ``harder``: more holes per garbage row, harsher piece weights (more S/Z, fewer I), S/Z pieces
  in the opening, bumps on the surface, tighter goals (more lines, fewer pieces; survive
  longer) and — for survival goals and the standard game — more garbage rows and deeper wells;
- ``easier``: the reverse of each;
- ``vary``: edits meant to leave difficulty alone (mirror the level, move a well, swap twin
  pieces, move holes between garbage blocks, re-roll an opening piece) and, for line goals,
  the stack edits, whose effect there depends on the player (see ``_MORE_ROWS``).

Every edit keeps the genome inside its bounds (``genome.check_bounds``), never makes a
reachable goal unreachable (the builder's cells rule), and returns a
``before → after`` note for the child's docstring; an edit that cannot apply (already at a bound)
returns ``None`` and another is tried. All randomness comes from the caller's
``numpy.random.Generator``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from dicode.domains.tetris.builder import (
    BOARD_WIDTH,
    CELLS_PER_PIECE,
    MAX_SEQUENCE,
    PIECE_NAMES,
)
from dicode.domains.tetris.genome import (
    MAX_GOAL_LINES,
    MAX_GOAL_PIECES,
    Block,
    Cell,
    GarbageBlock,
    Genome,
    Well,
    check_bounds,
)
from dicode.domains.tetris.skills import CLEAR_SKILLS, rows_to_cells
from dicode.teachers.base import MutationInstruction
from dicode.teachers.genome_base import Edit, Mutation, SkillTarget, mutate_genome
from dicode.teachers.genome_base import Operator as GenericOperator

# Caps the teacher grows levels to (the genome itself accepts anything the builder does): the
# pushed stack stays low enough to leave room to play, garbage rows at most this holey, weights
# and explicit cells within readable ranges.
MUTATION_MAX_STACK_ROWS = 12
# Lower cap when the parent keeps set-up code: its own cells get lifted and their height is
# unknown to the genome.
MUTATION_MAX_STACK_ROWS_OVER_SETUP = 8
MUTATION_MAX_HOLES = 4
MAX_WEIGHT = 10.0
MAX_CELL_ROW = 15
# Survive goals the teacher writes when it makes the standard game easier.
EASY_SURVIVE_PIECES = 60
# Assumed cells a piece contributes when judging whether a lines-within-pieces goal is
# plausible; < 4 leaves room for the pieces that do not land in the cleared rows.
CELLS_PER_PIECE_MARGIN = 3.0

_MIRROR = str.maketrans("SZJL", "ZSLJ")
_I, _S, _Z = PIECE_NAMES.index("I"), PIECE_NAMES.index("S"), PIECE_NAMES.index("Z")


Operator = GenericOperator[Genome]


def mutate(
    parent: Genome, instruction: MutationInstruction, rng: np.random.Generator, max_edits: int = 2
) -> Mutation[Genome]:
    """Apply 1..``max_edits`` edits of ``instruction`` to ``parent`` (always at least one edit).

    When no edit of the requested instruction applies (every field already at its bound), one
    ``vary`` edit is made instead and the returned instruction says so.
    """
    return mutate_genome(
        parent, instruction, rng, max_edits, operators_for, _keeps_goal_reachable, check_bounds
    )


def _keeps_goal_reachable(current: Genome, child: Genome) -> bool:
    # Never trade a reachable goal for an unreachable one (the sandbox would reject it).
    return goal_reachable(child) or not goal_reachable(current)


# --- garbage, holes and wells ---------------------------------------------------------------


def _resize_block(g: Genome, index: int, delta: int) -> Genome:
    """Grow (or shrink) ``stack[index]`` by ``delta`` rows; cells above it move along.

    Rows are added or removed at the top of the block; explicit cells in removed rows go, and
    a block shrunk to nothing leaves the stack.
    """
    block = g.stack[index]
    span = g.block_rows(index)
    top = span.stop  # first row above the block
    rows = block.rows + delta

    def move(cells: tuple[Cell, ...]) -> tuple[Cell, ...]:
        moved = []
        for r, c in cells:
            if delta < 0 and top + delta <= r < top:
                continue  # the row holding this cell was removed
            if r >= top:
                r += delta
                if r > MAX_CELL_ROW:
                    continue  # lifted into the spawn zone: drop rather than block the spawn
            moved.append((r, c))
        return tuple(moved)

    resized: list[Block] = list(g.stack)
    if rows <= 0:
        del resized[index]
    elif isinstance(block, Well):
        resized[index] = Well(block.column, rows)
    else:
        resized[index] = GarbageBlock(rows, block.holes)
    return replace(g, stack=tuple(resized), filled=move(g.filled), cleared=move(g.cleared))


def _pick(indices: list[int], rng: np.random.Generator) -> int | None:
    return indices[int(rng.integers(len(indices)))] if indices else None


def _garbage_indices(g: Genome) -> list[int]:
    return [i for i, b in enumerate(g.stack) if isinstance(b, GarbageBlock)]


def _well_indices(g: Genome) -> list[int]:
    return [i for i, b in enumerate(g.stack) if isinstance(b, Well)]


def _stack_room(g: Genome) -> int:
    cap = MUTATION_MAX_STACK_ROWS_OVER_SETUP if g.setup_code else MUTATION_MAX_STACK_ROWS
    return cap - g.stack_rows


def _growth(g: Genome, rng: np.random.Generator, blocks: list[int]) -> tuple[int, int | None]:
    """What a growing edit adds: 1 or 2 rows (as many as fit under the cap; 0 when none fit)
    and which of ``blocks`` it grows (None: it starts a new block)."""
    room = _stack_room(g)
    if room <= 0:
        return 0, None
    return int(rng.integers(1, min(2, room) + 1)), _pick(blocks, rng)


def add_garbage(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    rows, index = _growth(g, rng, _garbage_indices(g))
    if not rows:
        return None
    if index is None:
        # A new block pushed last lies at the very bottom, under everything else.
        pushed = replace(g, stack=(*g.stack, GarbageBlock(rows, 1)))
        child = replace(pushed, filled=_shift(g.filled, rows), cleared=_shift(g.cleared, rows))
        return child, f"new bottom block of {rows} garbage row(s) with 1 hole each"
    return _resized(g, index, rows, "garbage rows")


def _shift(cells: tuple[Cell, ...], by: int) -> tuple[Cell, ...]:
    """Lift explicit cells by ``by`` rows, dropping those lifted into the spawn zone."""
    return tuple((r + by, c) for r, c in cells if r + by <= MAX_CELL_ROW)


def remove_garbage(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    return _shrink(g, rng, _garbage_indices(g), "garbage rows")


def _shrink(
    g: Genome, rng: np.random.Generator, blocks: list[int], what: str
) -> tuple[Genome, str] | None:
    """1 or 2 rows fewer in one of ``blocks`` (a block left with none leaves the stack)."""
    index = _pick(blocks, rng)
    if index is None:
        return None
    rows = min(g.stack[index].rows, int(rng.integers(1, 3)))
    return _resized(g, index, -rows, what)


def _resized(g: Genome, index: int, delta: int, what: str) -> tuple[Genome, str]:
    """`_resize_block` and its note: ``what`` (e.g. "well depth") before and after."""
    block = g.stack[index]
    note = f"{what} {block.rows} → {block.rows + delta} (block {index + 1})"
    return _resize_block(g, index, delta), note


def _change_holes(g: Genome, rng: np.random.Generator, step: int) -> tuple[Genome, str] | None:
    candidates = [
        i
        for i, b in enumerate(g.stack)
        if isinstance(b, GarbageBlock) and 1 <= b.holes + step <= MUTATION_MAX_HOLES
    ]
    index = _pick(candidates, rng)
    if index is None:
        return None
    block = g.stack[index]
    assert isinstance(block, GarbageBlock)
    stack = list(g.stack)
    stack[index] = GarbageBlock(block.rows, block.holes + step)
    note = f"holes per garbage row {block.holes} → {block.holes + step} (block {index + 1})"
    return replace(g, stack=tuple(stack)), note


def more_holes(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    return _change_holes(g, rng, +1)


def fewer_holes(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    return _change_holes(g, rng, -1)


def move_holes(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    """Swap the hole counts of two garbage blocks with different counts."""
    blocks = [(i, g.stack[i]) for i in _garbage_indices(g)]
    pairs = [
        (i, j)
        for i, a in blocks
        for j, b in blocks
        if i < j
        and isinstance(a, GarbageBlock)
        and isinstance(b, GarbageBlock)
        and a.holes != b.holes
    ]
    if not pairs:
        return None
    i, j = pairs[int(rng.integers(len(pairs)))]
    a, b = g.stack[i], g.stack[j]
    assert isinstance(a, GarbageBlock) and isinstance(b, GarbageBlock)
    stack = list(g.stack)
    stack[i], stack[j] = GarbageBlock(a.rows, b.holes), GarbageBlock(b.rows, a.holes)
    note = f"swapped hole counts of garbage blocks {i + 1} and {j + 1}"
    return replace(g, stack=tuple(stack)), note


def deepen_well(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    extra, index = _growth(g, rng, _well_indices(g))
    if not extra:
        return None
    if index is None:
        if _stack_room(g) < 2:
            return None
        # Pushed first, so it ends on top of everything: an open well.
        column = int(rng.integers(BOARD_WIDTH))
        child = replace(g, stack=(Well(column, 2), *g.stack))
        return child, f"new 2-deep well in column {column} on top of the stack"
    return _resized(g, index, extra, "well depth")


def shallow_well(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    return _shrink(g, rng, _well_indices(g), "well depth")


def move_well(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    index = _pick(_well_indices(g), rng)
    if index is None:
        return None
    block = g.stack[index]
    assert isinstance(block, Well)
    column = int(rng.choice([c for c in range(BOARD_WIDTH) if c != block.column]))
    stack = list(g.stack)
    stack[index] = Well(column, block.depth)
    note = f"well moved from column {block.column} to {column} (block {index + 1})"
    return replace(g, stack=tuple(stack)), note


# --- surface cells -------------------------------------------------------------------------


def add_bumps(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    """Fill 1–3 cells on top of the garbage (never completing a row, never in a well)."""
    base = g.stack_rows
    # Over kept set-up code the surface height is unknown: a bump could complete a row.
    if g.setup_code or base + 1 > MAX_CELL_ROW:
        return None
    filled = set(g.filled)
    cleared = set(g.cleared)
    added: list[Cell] = []
    for _ in range(int(rng.integers(1, 4))):
        row = base + int(rng.integers(0, 2))
        col = int(rng.integers(BOARD_WIDTH))
        # A cell one row up needs support to be a bump rather than a floating block.
        if row > base and (row - 1, col) not in filled:
            row -= 1
        in_row = sum(1 for r, _ in filled if r == row)
        if (row, col) in filled or in_row >= BOARD_WIDTH - 2:
            continue
        filled.add((row, col))
        cleared.discard((row, col))
        added.append((row, col))
    if not added:
        return None
    note = "filled cells " + ", ".join(f"({r}, {c})" for r, c in added)
    return replace(g, filled=tuple(sorted(filled)), cleared=tuple(sorted(cleared))), note


def remove_cells(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    if not g.filled:
        return None
    count = min(len(g.filled), int(rng.integers(1, 4)))
    drop = {g.filled[int(i)] for i in rng.choice(len(g.filled), size=count, replace=False)}
    filled = tuple(c for c in g.filled if c not in drop)
    note = "emptied cells " + ", ".join(f"({r}, {c})" for r, c in sorted(drop))
    return replace(g, filled=filled), note


def mirror(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    """Mirror the level left-right: columns flip, S↔Z and J↔L swap (difficulty-neutral)."""
    del rng  # deterministic edit; the signature matches the other operators
    if g.setup_code:
        return None  # kept code cannot be mirrored

    def flip(cells: tuple[Cell, ...]) -> tuple[Cell, ...]:
        return tuple((r, BOARD_WIDTH - 1 - c) for r, c in cells)

    weights = g.piece_weights
    if weights is not None:
        order = [PIECE_NAMES.index(p.translate(_MIRROR)) for p in PIECE_NAMES]
        weights = tuple(weights[i] for i in order)
    child = replace(
        g,
        stack=tuple(
            Well(BOARD_WIDTH - 1 - b.column, b.depth) if isinstance(b, Well) else b for b in g.stack
        ),
        filled=flip(g.filled),
        cleared=flip(g.cleared),
        piece_weights=weights,
        sequence=g.sequence.translate(_MIRROR),
    )
    if child.normalized() == g.normalized():
        return None
    return child, "mirrored left-right (S↔Z, J↔L)"


# --- pieces --------------------------------------------------------------------------------


def _weights(g: Genome) -> list[float]:
    return list(g.piece_weights) if g.piece_weights is not None else [1.0] * len(PIECE_NAMES)


def _format_weights(weights: tuple[float, ...] | list[float] | None) -> str:
    if weights is None:
        return "uniform"
    return " ".join(f"{p}{w:g}" for p, w in zip(PIECE_NAMES, weights, strict=True))


def _tilt_weights(g: Genome, rng: np.random.Generator, harsher: bool) -> tuple[Genome, str] | None:
    weights = _weights(g)
    factor = float(rng.uniform(1.3, 2.0))
    up, down = ([_S, _Z], [_I]) if harsher else ([_I], [_S, _Z])
    for i in up:
        # A zero weight cannot grow by a factor; give it a small start.
        weights[i] = min(MAX_WEIGHT, max(weights[i], 0.25) * factor)
    for i in down:
        weights[i] = weights[i] / factor
        if weights[i] < 0.05:
            weights[i] = 0.0
    new = tuple(round(w, 3) for w in weights)
    if not any(w > 0 for w in new) or new == tuple(_weights(g)):
        return None
    note = f"piece weights {_format_weights(g.piece_weights)} → {_format_weights(new)}"
    return replace(g, piece_weights=new), note


def harsher_pieces(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    return _tilt_weights(g, rng, harsher=True)


def kinder_pieces(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    return _tilt_weights(g, rng, harsher=False)


def reweigh_neutral(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    """Scale one of O/T/J/L by a factor in [0.7, 1.4]; S, Z and I stay as they are."""
    weights = _weights(g)
    i = PIECE_NAMES.index("OTJL"[int(rng.integers(4))])
    weights[i] = round(min(MAX_WEIGHT, max(weights[i], 0.25) * float(rng.uniform(0.7, 1.4))), 3)
    new = tuple(weights)
    if new == tuple(_weights(g)):
        return None
    note = f"piece weights {_format_weights(g.piece_weights)} → {_format_weights(new)}"
    return replace(g, piece_weights=new), note


def harsh_opening(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    room = MAX_SEQUENCE - len(g.sequence)
    if room <= 0:
        return None
    extra = "".join("SZ"[int(i)] for i in rng.integers(0, 2, size=min(room, 2)))
    new = g.sequence + extra
    return replace(g, sequence=new), f"opening {g.sequence or '-'} → {new}"


def kind_opening(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    """Drop the S and Z pieces from the opening sequence."""
    del rng  # deterministic edit
    new = g.sequence.replace("S", "").replace("Z", "")
    if new == g.sequence:
        return None
    return replace(g, sequence=new), f"opening {g.sequence} → {new or '-'}"


def reroll_opening_piece(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    """Swap one opening piece for its mirror twin (S↔Z, J↔L)."""
    twins = [i for i, p in enumerate(g.sequence) if p in "SZJL"]
    if not twins:
        return None
    i = twins[int(rng.integers(len(twins)))]
    new = g.sequence[:i] + g.sequence[i].translate(_MIRROR) + g.sequence[i + 1 :]
    return replace(g, sequence=new), f"opening {g.sequence} → {new}"


# --- goals ---------------------------------------------------------------------------------


def min_pieces_for_lines(g: Genome, lines: int) -> int:
    """Pieces a lines-within-pieces goal should allow at least, with a safety margin.

    Counts the empty cells of the ``lines`` fullest rows at the start (garbage rows lack
    ``holes`` cells, well rows one; other rows are empty; explicit cells are ignored) and
    divides by a conservative number of useful cells per piece.
    """
    missing: list[int] = []
    for block in g.stack:
        empty = 1 if isinstance(block, Well) else block.holes
        missing.extend([empty] * block.rows)
    missing.sort()
    needed = sum(missing[:lines]) + BOARD_WIDTH * max(0, lines - len(missing))
    return max(1, math.ceil(needed / CELLS_PER_PIECE_MARGIN))


def tighten_goal(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    lines, pieces = g.goal_lines, g.goal_pieces
    if lines is None and pieces is None:
        return None
    if pieces is None:  # clear N lines: more lines
        assert lines is not None
        new_lines = min(MAX_GOAL_LINES, lines + int(rng.integers(1, 3)))
        if new_lines == lines:
            return None
        return replace(g, goal_lines=new_lines), f"goal lines {lines} → {new_lines}"
    if lines is None:  # survive N pieces: survive longer
        new_pieces = min(MAX_GOAL_PIECES, math.ceil(pieces * float(rng.uniform(1.2, 1.5))))
        if new_pieces == pieces:
            return None
        return replace(g, goal_pieces=new_pieces), f"survive {pieces} → {new_pieces} pieces"
    if rng.random() < 0.5 and lines < MAX_GOAL_LINES:
        new_lines = lines + 1
        if pieces >= min_pieces_for_lines(g, new_lines):
            return replace(g, goal_lines=new_lines), f"goal lines {lines} → {new_lines}"
    floor = min_pieces_for_lines(g, lines)
    new_pieces = max(floor, math.floor(pieces * float(rng.uniform(0.75, 0.9))))
    if new_pieces >= pieces:
        return None
    return replace(g, goal_pieces=new_pieces), f"goal pieces {pieces} → {new_pieces}"


def loosen_goal(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    lines, pieces = g.goal_lines, g.goal_pieces
    if lines is None and pieces is None:
        # The standard game has no finish line; a survival goal gives it one.
        child = replace(g, goal_pieces=EASY_SURVIVE_PIECES)
        return child, f"goal: standard game → survive {EASY_SURVIVE_PIECES} pieces"
    if pieces is None:
        assert lines is not None
        new_lines = max(1, lines - int(rng.integers(1, 3)))
        if new_lines == lines:
            return None
        return replace(g, goal_lines=new_lines), f"goal lines {lines} → {new_lines}"
    if lines is None:
        new_pieces = max(1, math.floor(pieces * float(rng.uniform(0.6, 0.8))))
        if new_pieces == pieces:
            return None
        return replace(g, goal_pieces=new_pieces), f"survive {pieces} → {new_pieces} pieces"
    if rng.random() < 0.5 and lines > 1:
        return replace(g, goal_lines=lines - 1), f"goal lines {lines} → {lines - 1}"
    new_pieces = min(MAX_GOAL_PIECES, math.ceil(pieces * float(rng.uniform(1.15, 1.4))))
    if new_pieces == pieces:
        return None
    return replace(g, goal_pieces=new_pieces), f"goal pieces {pieces} → {new_pieces}"


def goal_reachable(g: Genome) -> bool:
    """The builder's reachability rule for lines-within-pieces goals, on a lower bound of the
    starting cells: lines × width ≤ cells on the board + 4 × pieces."""
    if g.goal_lines is None or g.goal_pieces is None:
        return True
    cells = len(g.filled)
    for block in g.stack:
        empty = 1 if isinstance(block, Well) else block.holes
        cells += block.rows * (BOARD_WIDTH - empty)
    return g.goal_lines * BOARD_WIDTH <= cells + CELLS_PER_PIECE * g.goal_pieces


# Stack edits change difficulty one way for survival goals and the standard game: pushed rows
# only take room, so more or deeper rows are harder. For line goals the benchmark showed them
# pulling the two estimates apart — nearly full rows are ready-made lines for the heuristic
# (a 4-deep well plus an I is a Tetris) but less room for the random policy — so there they are
# offered as "vary" edits only.
_MORE_ROWS: dict[str, Operator] = {"add_garbage": add_garbage, "deepen_well": deepen_well}
_FEWER_ROWS: dict[str, Operator] = {"remove_garbage": remove_garbage, "shallow_well": shallow_well}
_HARDER: dict[str, Operator] = {
    "more_holes": more_holes,
    "add_bumps": add_bumps,
    "harsher_pieces": harsher_pieces,
    "harsh_opening": harsh_opening,
    "tighten_goal": tighten_goal,
}
_EASIER: dict[str, Operator] = {
    "fewer_holes": fewer_holes,
    "remove_cells": remove_cells,
    "kinder_pieces": kinder_pieces,
    "kind_opening": kind_opening,
    "loosen_goal": loosen_goal,
}
_VARY: dict[str, Operator] = {
    "mirror": mirror,
    "move_well": move_well,
    "move_holes": move_holes,
    "reweigh_neutral": reweigh_neutral,
    "reroll_opening_piece": reroll_opening_piece,
}


def operators_for(g: Genome, instruction: MutationInstruction) -> dict[str, Operator]:
    """The edits on offer for ``instruction`` given the level's goal (see ``_MORE_ROWS``)."""
    line_goal = g.goal_lines is not None
    if instruction is MutationInstruction.VARY:
        return {**_VARY, **_MORE_ROWS, **_FEWER_ROWS} if line_goal else dict(_VARY)
    if instruction is MutationInstruction.HARDER:
        return dict(_HARDER) if line_goal else {**_MORE_ROWS, **_HARDER}
    return dict(_EASIER) if line_goal else {**_FEWER_ROWS, **_EASIER}


# --- the skill instruction -------------------------------------------------------------------

# A survival level starts from a stack like the target student's boards shortly before a
# top-out: at most this high (the spawn rows stay free, and a few rows to play in).
SKILL_MAX_STACK_ROWS = 15
SKILL_MIN_STACK_ROWS = 4
SKILL_SURVIVE_PIECES = (50, 200)  # the survival goal's range: long enough to need recovering
_CLEAR_SIZES = {name: size for size, name in CLEAR_SKILLS.items()}


def teach(parent: Genome, target: SkillTarget, rng: np.random.Generator) -> Mutation[Genome] | None:
    """A level for one of the Tetris frontier skills (``dicode.domains.tetris.skills``).

    ``survive_N``: one of the target student's own mid-game boards (``target.start_states``,
    from its evaluation games; at most ``SKILL_MAX_STACK_ROWS`` high), so the level teaches
    keeping such a stack low; without one, garbage like its boards ``PRE_TOPOUT`` pieces before a
    top-out (height and holes from the profile, jittered). Goal: survive a share of N pieces.
    ``clear_double`` / ``_triple`` / ``_tetris``: a well of that depth and an I piece first,
    goal: that many lines within 3 pieces. The parent's description is kept as a starting
    point; its board, pieces and goal are replaced. None for any other skill.
    """
    if target.skill.startswith("survive_") and target.skill[8:].isdigit():
        pieces = int(target.skill[8:])
        boards = [b for b in target.start_states if 0 < len(b) <= SKILL_MAX_STACK_ROWS]
        if boards:
            child, note = _midgame_level(parent, pieces, boards[int(rng.integers(len(boards)))])
        else:
            child, note = _survival_level(parent, pieces, target.figures, rng)
    elif target.skill in _CLEAR_SIZES:
        size = _CLEAR_SIZES[target.skill]
        column = int(rng.integers(BOARD_WIDTH))
        child = Genome(
            description=parent.description,
            stack=(Well(column, size),),
            sequence="I",
            goal_lines=size,
            goal_pieces=3,
        )
        note = f"a {size}-deep well in column {column} and an I first: clear {size} lines at once"
    else:
        return None
    child = child.normalized()
    check_bounds(child)
    return Mutation(child, MutationInstruction.SKILL, (Edit(f"teach_{target.skill}", note),))


def target_genome(boards: tuple[Any, ...], rng: np.random.Generator) -> Genome | None:
    """The standard game (uniform pieces, no goal) from one of the target student's own
    mid-game boards (``PerformanceProfile.start_states``, text rows from the top down): a
    target-derived parent. The evaluation keeps the boards of its worst games (those that
    topped out first, the shortest first), so any of them is a board the student goes on to
    lose from; one is drawn at random, at most ``SKILL_MAX_STACK_ROWS`` high (room to play).
    None without such a board (no target evaluation yet)."""
    usable = [list(b) for b in boards if 0 < len(b) <= SKILL_MAX_STACK_ROWS]
    if not usable:
        return None
    rows = usable[int(rng.integers(len(usable)))]
    cells = tuple(rows_to_cells(rows))
    description = (
        "The standard game from one of the target student's own mid-game boards "
        f"({len(rows)} rows, {len(cells)} cells; its evaluation keeps those of its worst "
        "games, lost ones first): uniform pieces, no goal, play as long as possible."
    )
    child = Genome(description=description, filled=cells).normalized()
    check_bounds(child)
    return child


def _midgame_level(parent: Genome, pieces: int, rows: list[str]) -> tuple[Genome, str]:
    """Survive from one of the target student's own mid-game boards (text rows, top down)."""
    goal = int(np.clip(pieces // 5, *SKILL_SURVIVE_PIECES))
    cells = tuple(rows_to_cells(list(rows)))
    child = Genome(description=parent.description, filled=cells, goal_pieces=goal)
    note = (
        f"survive {goal} pieces from one of the target student's own mid-game boards "
        f"({len(rows)} rows, {len(cells)} cells): keep such a stack low"
    )
    return child, note


def _survival_level(
    parent: Genome, pieces: int, figures: Mapping[str, float], rng: np.random.Generator
) -> tuple[Genome, str]:
    height = figures.get("topout_height", 10.0)
    holes = figures.get("topout_holes", height)
    rows = int(np.clip(round(height) - 2 + int(rng.integers(-1, 2)), SKILL_MIN_STACK_ROWS,
                       SKILL_MAX_STACK_ROWS))  # fmt: skip
    per_row = int(np.clip(round(holes / max(rows, 1)), 1, MUTATION_MAX_HOLES))
    goal = int(np.clip(pieces // 5, *SKILL_SURVIVE_PIECES))
    child = Genome(
        description=parent.description, stack=(GarbageBlock(rows, per_row),), goal_pieces=goal
    )
    note = (
        f"survive {goal} pieces from a {rows}-row stack with {per_row} hole(s) per row, like the "
        f"target student's boards shortly before a top-out ({height:.1f} rows, {holes:.1f} holes)"
    )
    return child, note
