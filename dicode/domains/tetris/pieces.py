"""The seven tetrominoes and their rotation system (SRS box geometry).

Every piece has four rotation states 0, R, 2, L (indices 0–3, clockwise), drawn as in the
Super Rotation System: J, L, S, T, Z in a 3×3 box, I and O in a 4-wide box. The box matters
only for the legacy action encoding (whose ``x`` is the box's left edge); the modern placement
action space uses each orientation *normalised* to its own bounding box.

Distinct orientations: O 1, I/S/Z 2, T/J/L 4. Rotation states that repeat an earlier state's
shape (O 1–3, I/S/Z 2–3) are *duplicates*; the placement action space masks them so that each
final placement has exactly one action.

All tables are NumPy constants (static data for jit); rows count **up** (row 0 = bottom cell of
the orientation), as on the board.
"""

from __future__ import annotations

import numpy as np

from dicode.domains.tetris.schema import NUM_PIECES, PIECE_NAMES

NUM_ROTATIONS = 4
CELLS_PER_PIECE = 4

# SRS boxes, top row first, for rotation states 0, R, 2, L.
_SRS_BOXES: dict[str, tuple[tuple[str, ...], ...]] = {
    "I": (
        ("....", "IIII", "....", "...."),
        ("..I.", "..I.", "..I.", "..I."),
        ("....", "....", "IIII", "...."),
        (".I..", ".I..", ".I..", ".I.."),
    ),
    "O": ((".OO.", ".OO.", "....", "...."),) * 4,
    "T": (
        (".T.", "TTT", "..."),
        (".T.", ".TT", ".T."),
        ("...", "TTT", ".T."),
        (".T.", "TT.", ".T."),
    ),
    "S": (
        (".SS", "SS.", "..."),
        (".S.", ".SS", "..S"),
        ("...", ".SS", "SS."),
        ("S..", "SS.", ".S."),
    ),
    "Z": (
        ("ZZ.", ".ZZ", "..."),
        ("..Z", ".ZZ", ".Z."),
        ("...", "ZZ.", ".ZZ"),
        (".Z.", "ZZ.", "Z.."),
    ),
    "J": (
        ("J..", "JJJ", "..."),
        (".JJ", ".J.", ".J."),
        ("...", "JJJ", "..J"),
        (".J.", ".J.", "JJ."),
    ),
    "L": (
        ("..L", "LLL", "..."),
        (".L.", ".L.", ".LL"),
        ("...", "LLL", "L.."),
        ("LL.", ".L.", ".L."),
    ),
}


def _box_cells(rows: tuple[str, ...]) -> list[tuple[int, int]]:
    """(row-from-bottom, column) of the filled cells of a box drawn top row first."""
    height = len(rows)
    return [
        (height - 1 - i, j) for i, line in enumerate(rows) for j, ch in enumerate(line) if ch != "."
    ]


def _build_tables() -> dict[str, np.ndarray]:
    cells = np.zeros((NUM_PIECES, NUM_ROTATIONS, CELLS_PER_PIECE, 2), np.int32)
    box_left = np.zeros((NUM_PIECES, NUM_ROTATIONS), np.int32)
    width = np.zeros((NUM_PIECES, NUM_ROTATIONS), np.int32)
    height = np.zeros((NUM_PIECES, NUM_ROTATIONS), np.int32)
    canonical = np.zeros((NUM_PIECES, NUM_ROTATIONS), np.int32)
    for p, name in enumerate(PIECE_NAMES):
        shapes: list[frozenset[tuple[int, int]]] = []
        for r, box in enumerate(_SRS_BOXES[name]):
            raw = _box_cells(box)
            min_row = min(c[0] for c in raw)
            min_col = min(c[1] for c in raw)
            norm = sorted((row - min_row, col - min_col) for row, col in raw)
            cells[p, r] = norm
            box_left[p, r] = min_col
            width[p, r] = max(c[1] for c in norm) + 1
            height[p, r] = max(c[0] for c in norm) + 1
            shape = frozenset(norm)
            # A duplicate points at the first rotation state with the same shape.
            canonical[p, r] = shapes.index(shape) if shape in shapes else r
            shapes.append(shape)
    return {
        "cells": cells,
        "box_left": box_left,
        "width": width,
        "height": height,
        "canonical": canonical,
    }


_TABLES = _build_tables()

#: (7, 4, 4, 2) int32: (row, col) of each cell of each orientation, normalised so the lowest
#: cell is row 0 and the leftmost occupied column is col 0.
PIECE_CELLS: np.ndarray = _TABLES["cells"]
#: (7, 4) int32: column of the orientation's leftmost occupied cell inside its SRS box.
BOX_LEFT: np.ndarray = _TABLES["box_left"]
#: (7, 4) int32: orientation width / height in cells.
PIECE_WIDTH: np.ndarray = _TABLES["width"]
PIECE_HEIGHT: np.ndarray = _TABLES["height"]
#: (7, 4) int32: the first rotation state with the same shape (itself when distinct).
CANONICAL_ROTATION: np.ndarray = _TABLES["canonical"]
#: (7, 4) bool: True where the rotation state is the first of its shape.
DISTINCT_ROTATION: np.ndarray = np.arange(NUM_ROTATIONS)[None, :] == CANONICAL_ROTATION


def piece_id(name: str) -> int:
    """Index of a piece letter in ``PIECE_NAMES``; raises ValueError for anything else."""
    if len(name) != 1 or name not in PIECE_NAMES:
        raise ValueError(f"unknown piece {name!r}; expected one of {PIECE_NAMES!r}")
    return PIECE_NAMES.index(name)
