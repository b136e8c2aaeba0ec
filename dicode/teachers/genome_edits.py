"""Typed edits of a Tetris level genome, grouped by the direction they push difficulty.

ACCEL-style mutation: a child differs from its parent by one or two small, typed edits. Which
edits are on offer depends on the instruction derived from the parent's status:

- ``harder``: more garbage rows or holes, deeper wells, harsher piece weights (more S/Z, fewer
  I), S/Z pieces in the opening, bumps on the surface, tighter goals (more lines, fewer pieces;
  survive longer);
- ``easier``: the reverse of each;
- ``vary``: edits meant to leave difficulty alone (mirror the level, move a well, swap twin
  pieces, move holes between garbage blocks, re-roll an opening piece).

Every edit keeps the genome inside its bounds (``genome.check_bounds``) and returns a
``before → after`` note for the child's docstring; an edit that cannot apply (already at a bound)
returns ``None`` and another is tried. All randomness comes from the caller's
``numpy.random.Generator``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum

import numpy as np

from dicode.domains.tetris.schema import BOARD_WIDTH, MAX_SEQUENCE, PIECE_NAMES
from dicode.teachers.genome import (
    MAX_CELL_ROW,
    MAX_GARBAGE_ROWS,
    MAX_GOAL_LINES,
    MAX_GOAL_PIECES,
    MAX_WEIGHT,
    Cell,
    GarbageBlock,
    Genome,
    Well,
    check_bounds,
)

# Mutation keeps garbage rows at most this holey; the genome itself allows up to 9 holes.
MUTATION_MAX_HOLES = 4
# Survive goals the teacher writes when it makes the standard game easier.
EASY_SURVIVE_PIECES = 60
# Assumed cells a piece contributes when judging whether a lines-within-pieces goal is
# plausible; < 4 leaves room for the pieces that do not land in the cleared rows.
CELLS_PER_PIECE_MARGIN = 3.0

_MIRROR = str.maketrans("SZJL", "ZSLJ")
_I, _S, _Z = PIECE_NAMES.index("I"), PIECE_NAMES.index("S"), PIECE_NAMES.index("Z")


class Direction(StrEnum):
    """Which way the child's difficulty should move relative to the parent."""

    HARDER = "harder"
    EASIER = "easier"
    VARY = "vary"


@dataclass(frozen=True)
class Edit:
    """One applied edit: its operator name and a human-readable ``before → after`` note."""

    kind: str
    note: str


@dataclass(frozen=True)
class Mutation:
    """A child genome and the edits that made it from the parent."""

    child: Genome
    direction: Direction
    edits: tuple[Edit, ...]


Operator = Callable[[Genome, np.random.Generator], tuple[Genome, str] | None]


def mutate(
    parent: Genome, direction: Direction, rng: np.random.Generator, max_edits: int = 2
) -> Mutation:
    """Apply 1..``max_edits`` edits of ``direction`` to ``parent`` (always at least one edit).

    When no edit of the requested direction applies (every field already at its bound), one
    ``vary`` edit is made instead and the returned direction says so.
    """
    genome = parent.normalized()
    wanted = int(rng.integers(1, max_edits + 1)) if direction is not Direction.VARY else 1
    edits = _apply_some(genome, OPERATORS[direction], wanted, rng)
    used = direction
    if not edits:
        edits = _apply_some(genome, OPERATORS[Direction.VARY], 1, rng)
        used = Direction.VARY
    child = edits[-1][1] if edits else genome
    check_bounds(child)
    return Mutation(child=child, direction=used, edits=tuple(edit for edit, _ in edits))


def _apply_some(
    genome: Genome, operators: dict[str, Operator], wanted: int, rng: np.random.Generator
) -> list[tuple[Edit, Genome]]:
    names = list(operators)
    order = rng.permutation(len(names))
    done: list[tuple[Edit, Genome]] = []
    current = genome
    for index in order:
        if len(done) == wanted:
            break
        name = names[int(index)]
        result = operators[name](current, rng)
        if result is None:
            continue
        child, note = result
        current = child.normalized()
        done.append((Edit(name, note), current))
    return done


# --- garbage and holes ---------------------------------------------------------------------


def _shift_cells(cells: tuple[Cell, ...], by: int) -> tuple[Cell, ...]:
    """Move explicit cells up (or down) with the garbage, dropping those pushed off range."""
    return tuple((r + by, c) for r, c in cells if 0 <= r + by <= MAX_CELL_ROW)


def _with_garbage_rows(g: Genome, delta: int) -> Genome:
    """Grow or shrink the last garbage block by ``delta`` rows, moving cells and wells along."""
    blocks = list(g.garbage)
    if delta > 0:
        if blocks:
            blocks[-1] = replace(blocks[-1], rows=blocks[-1].rows + delta)
        else:
            blocks.append(GarbageBlock(delta, 1))
    else:
        remove = -delta
        while remove and blocks:
            take = min(remove, blocks[-1].rows)
            remove -= take
            rows = blocks[-1].rows - take
            blocks[-1] = replace(blocks[-1], rows=rows)
            if rows == 0:
                blocks.pop()
    total = sum(b.rows for b in blocks)
    shift = total - g.garbage_rows
    wells = tuple(Well(w.column, min(w.depth, total)) for w in g.wells if total > 0)
    return replace(
        g,
        garbage=tuple(blocks),
        wells=wells,
        filled=_shift_cells(g.filled, shift),
        cleared=_shift_cells(g.cleared, shift),
    )


def add_garbage(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    room = MAX_GARBAGE_ROWS - g.garbage_rows
    if room <= 0:
        return None
    rows = int(rng.integers(1, min(2, room) + 1))
    child = _with_garbage_rows(g, rows)
    return child, f"garbage rows {g.garbage_rows} → {child.garbage_rows}"


def remove_garbage(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    if g.garbage_rows == 0:
        return None
    rows = int(rng.integers(1, min(2, g.garbage_rows) + 1))
    child = _with_garbage_rows(g, -rows)
    return child, f"garbage rows {g.garbage_rows} → {child.garbage_rows}"


def _change_holes(g: Genome, rng: np.random.Generator, step: int) -> tuple[Genome, str] | None:
    candidates = [
        i for i, b in enumerate(g.garbage) if 1 <= b.holes + step <= MUTATION_MAX_HOLES
    ]
    if not candidates:
        return None
    i = candidates[int(rng.integers(len(candidates)))]
    blocks = list(g.garbage)
    before = blocks[i].holes
    blocks[i] = replace(blocks[i], holes=before + step)
    note = f"holes per row in garbage block {i + 1} {before} → {before + step}"
    return replace(g, garbage=tuple(blocks)), note


def more_holes(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    return _change_holes(g, rng, +1)


def fewer_holes(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    return _change_holes(g, rng, -1)


def move_holes(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    """Swap the hole counts of two garbage blocks with different counts."""
    pairs = [
        (i, j)
        for i in range(len(g.garbage))
        for j in range(i + 1, len(g.garbage))
        if g.garbage[i].holes != g.garbage[j].holes
    ]
    if not pairs:
        return None
    i, j = pairs[int(rng.integers(len(pairs)))]
    blocks = list(g.garbage)
    blocks[i], blocks[j] = (
        replace(blocks[i], holes=g.garbage[j].holes),
        replace(blocks[j], holes=g.garbage[i].holes),
    )
    note = f"swapped hole counts of garbage blocks {i + 1} and {j + 1}"
    return replace(g, garbage=tuple(blocks)), note


# --- wells ---------------------------------------------------------------------------------


def deepen_well(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    total = g.garbage_rows
    deepenable = [w for w in g.wells if w.depth < total]
    if deepenable:
        well = deepenable[int(rng.integers(len(deepenable)))]
        depth = min(total, well.depth + int(rng.integers(1, 3)))
        wells = tuple(Well(w.column, depth) if w == well else w for w in g.wells)
        # A filled cell in the way would stop the well; the edit removes it.
        rows = range(total - depth, total)
        filled = tuple(c for c in g.filled if not (c[1] == well.column and c[0] in rows))
        note = f"well in column {well.column} depth {well.depth} → {depth}"
        return replace(g, wells=wells, filled=filled), note
    if g.wells or total < 2:
        return None
    column = int(rng.integers(BOARD_WIDTH))
    depth = min(total, 2)
    rows = range(total - depth, total)
    filled = tuple(c for c in g.filled if not (c[1] == column and c[0] in rows))
    wells = (Well(column, depth),)
    return replace(g, wells=wells, filled=filled), f"new well {depth} deep in column {column}"


def shallow_well(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    if not g.wells:
        return None
    well = g.wells[int(rng.integers(len(g.wells)))]
    depth = max(0, well.depth - int(rng.integers(1, 3)))
    wells = tuple(w for w in g.wells if w != well)
    if depth:
        wells += (Well(well.column, depth),)
    note = f"well in column {well.column} depth {well.depth} → {depth}"
    # Rows the well gave up become plain garbage again: drop the cleared run entirely.
    return replace(g, wells=wells), note


def move_well(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    if not g.wells:
        return None
    well = g.wells[int(rng.integers(len(g.wells)))]
    taken = {w.column for w in g.wells}
    free = [c for c in range(BOARD_WIDTH) if c not in taken]
    if not free:
        return None
    column = free[int(rng.integers(len(free)))]
    total = g.garbage_rows
    rows = range(total - well.depth, total)
    filled = tuple(c for c in g.filled if not (c[1] == column and c[0] in rows))
    wells = tuple(Well(column, w.depth) if w == well else w for w in g.wells)
    note = f"well moved from column {well.column} to {column}"
    return replace(g, wells=wells, filled=filled), note


# --- surface cells -------------------------------------------------------------------------


def add_bumps(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    """Fill 1–3 cells on top of the garbage (never completing a row, never in a well)."""
    base = g.garbage_rows
    if base + 1 > MAX_CELL_ROW:
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

    def flip(cells: tuple[Cell, ...]) -> tuple[Cell, ...]:
        return tuple((r, BOARD_WIDTH - 1 - c) for r, c in cells)

    weights = g.piece_weights
    if weights is not None:
        order = [PIECE_NAMES.index(p.translate(_MIRROR)) for p in PIECE_NAMES]
        weights = tuple(weights[i] for i in order)
    child = replace(
        g,
        wells=tuple(Well(BOARD_WIDTH - 1 - w.column, w.depth) for w in g.wells),
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
    del rng  # deterministic edit
    if any(p in "SZ" for p in g.sequence):
        new = g.sequence.replace("S", "").replace("Z", "")
    elif len(g.sequence) < MAX_SEQUENCE and g.sequence.count("I") < 2:
        new = "I" + g.sequence
    else:
        return None
    return replace(g, sequence=new), f"opening {g.sequence or '-'} → {new or '-'}"


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
    ``holes`` cells plus any well; other rows are empty) and divides by a conservative number
    of useful cells per piece.
    """
    missing: list[int] = []
    row = 0
    wells_by_row: dict[int, int] = {}
    for w in g.wells:
        for r in range(g.garbage_rows - w.depth, g.garbage_rows):
            wells_by_row[r] = wells_by_row.get(r, 0) + 1
    for block in g.garbage:
        for _ in range(block.rows):
            missing.append(min(BOARD_WIDTH, block.holes + wells_by_row.get(row, 0)))
            row += 1
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


OPERATORS: dict[Direction, dict[str, Operator]] = {
    Direction.HARDER: {
        "add_garbage": add_garbage,
        "more_holes": more_holes,
        "deepen_well": deepen_well,
        "add_bumps": add_bumps,
        "harsher_pieces": harsher_pieces,
        "harsh_opening": harsh_opening,
        "tighten_goal": tighten_goal,
    },
    Direction.EASIER: {
        "remove_garbage": remove_garbage,
        "fewer_holes": fewer_holes,
        "shallow_well": shallow_well,
        "remove_cells": remove_cells,
        "kinder_pieces": kinder_pieces,
        "kind_opening": kind_opening,
        "loosen_goal": loosen_goal,
    },
    Direction.VARY: {
        "mirror": mirror,
        "move_well": move_well,
        "move_holes": move_holes,
        "reweigh_neutral": reweigh_neutral,
        "reroll_opening_piece": reroll_opening_piece,
    },
}
