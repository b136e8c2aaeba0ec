"""The placement action space: one action per final placement of the current piece.

Action encoding (fixed size ``4 * width``): ``action = rotation * width + column`` where
``rotation`` is the SRS rotation state (0–3, see ``pieces``) and ``column`` is the board column
of the orientation's **leftmost occupied cell** (not a box edge, so column 0 is always
reachable). A placement is a straight hard drop from above the stack: the piece comes down in
that orientation and column until it rests on the floor or on a filled cell.

An action is **legal** when its rotation state is the first of its shape (duplicates of O, I, S,
Z are masked), the orientation fits horizontally (``column + piece width <= width``) and the
piece at rest lies fully inside the board (its top cell below row ``height``). On an empty
10-wide board that leaves 162 legal actions: I 17, O 9, S 17, Z 17, T/J/L 34 each.

``afterstates(board, piece)`` returns every candidate's board after placement and line clears
in one batched call; ``place`` does one candidate. Both are pure, jit- and vmap-friendly.
"""

from __future__ import annotations

import flax.struct
import jax
import jax.numpy as jnp
import numpy as np

from dicode.domains.tetris.pieces import (
    DISTINCT_ROTATION,
    NUM_ROTATIONS,
    PIECE_CELLS,
    PIECE_HEIGHT,
    PIECE_WIDTH,
)


def _column_bottoms() -> np.ndarray:
    """(7, 4, 4) lowest cell row of each orientation per column offset; 99 where empty."""
    bottoms = np.full((*PIECE_CELLS.shape[:2], 4), 99, np.int32)
    for p in range(bottoms.shape[0]):
        for r in range(bottoms.shape[1]):
            for row, col in PIECE_CELLS[p, r]:
                bottoms[p, r, col] = min(bottoms[p, r, col], row)
    return bottoms


_COLUMN_BOTTOM = _column_bottoms()


@flax.struct.dataclass
class Afterstates:
    """Every candidate placement of one piece on one board (leading axis = action)."""

    boards: jnp.ndarray  # (A, H, W) uint8: board after placement and line clears (input if illegal)
    lines: jnp.ndarray  # (A,) int32: rows cleared by the placement
    legal: jnp.ndarray  # (A,) bool: legality mask
    landing_row: jnp.ndarray  # (A,) int32: board row of the piece's lowest cell
    piece_height: jnp.ndarray  # (A,) int32: height of the orientation in cells
    eroded_cells: jnp.ndarray  # (A,) int32: cells of the placed piece removed by the clear


def num_actions(width: int) -> int:
    """Size of the placement action space for a board ``width`` columns wide."""
    return NUM_ROTATIONS * width


def decode_action(action: jnp.ndarray, width: int) -> tuple[jnp.ndarray, jnp.ndarray]:
    """(rotation, leftmost occupied column) of a placement action."""
    return action // width, action % width


def column_heights(board: jnp.ndarray) -> jnp.ndarray:
    """(W,) int32: 1 + row of the highest filled cell per column, 0 for an empty column."""
    rows = jnp.arange(1, board.shape[0] + 1, dtype=jnp.int32)[:, None]
    return jnp.max(board.astype(jnp.int32) * rows, axis=0)


def landing_rows(board: jnp.ndarray, piece: jnp.ndarray) -> jnp.ndarray:
    """(A,) int32: row where each candidate's lowest cell comes to rest after a straight drop."""
    width = board.shape[1]
    heights = jnp.concatenate([column_heights(board), jnp.zeros((4,), jnp.int32)])
    rot, col = decode_action(jnp.arange(num_actions(width)), width)
    bottoms = jnp.asarray(_COLUMN_BOTTOM)[piece][rot]  # (A, 4)
    offsets = jnp.arange(4)
    under = heights[col[:, None] + offsets[None, :]]  # column heights below each piece column
    rest = jnp.where(bottoms < 99, under - bottoms, -99)
    return jnp.maximum(jnp.max(rest, axis=1), 0)


def legal_mask(board: jnp.ndarray, piece: jnp.ndarray) -> jnp.ndarray:
    """(A,) bool legality of every placement action (cheap: no board copies)."""
    height, width = board.shape
    rot, col = decode_action(jnp.arange(num_actions(width)), width)
    w = jnp.asarray(PIECE_WIDTH)[piece][rot]
    h = jnp.asarray(PIECE_HEIGHT)[piece][rot]
    distinct = jnp.asarray(DISTINCT_ROTATION)[piece][rot]
    return distinct & (col + w <= width) & (landing_rows(board, piece) + h <= height)


def clear_lines(board: jnp.ndarray) -> tuple[jnp.ndarray, jnp.ndarray]:
    """Remove full rows; rows above fall by the number of full rows beneath them.

    Returns the new board and the number of rows cleared.
    """
    height = board.shape[0]
    full = jnp.all(board > 0, axis=1)
    kept = ~full
    # Kept row r moves to row (number of kept rows below it); a one-hot move matrix does the
    # compaction as a small matmul, which XLA runs far faster than a sort or scatter.
    destination = jnp.cumsum(kept) - 1
    move = (destination[None, :] == jnp.arange(height)[:, None]) & kept[None, :]
    moved = move.astype(jnp.float32) @ board.astype(jnp.float32)
    return moved.astype(board.dtype), jnp.sum(full, dtype=jnp.int32)


def place(board: jnp.ndarray, piece: jnp.ndarray, action: jnp.ndarray) -> Afterstates:
    """Place ``piece`` with one placement ``action``; fields are scalars (no action axis).

    When the action is illegal the returned board is the input board and ``lines`` is 0.
    """
    land = landing_rows(board, piece)[action]
    legal = legal_mask(board, piece)[action]
    return _drop(board, piece, action, land, legal)


def afterstates(board: jnp.ndarray, piece: jnp.ndarray) -> Afterstates:
    """Every candidate placement of ``piece`` on ``board`` (leading axis = action, size 4·W)."""
    actions = jnp.arange(num_actions(board.shape[1]))
    # Landing rows and legality are computed once for all candidates, then each is dropped.
    lands = landing_rows(board, piece)
    legal = legal_mask(board, piece)
    return jax.vmap(_drop, in_axes=(None, None, 0, 0, 0))(board, piece, actions, lands, legal)


def _drop(
    board: jnp.ndarray,
    piece: jnp.ndarray,
    action: jnp.ndarray,
    land: jnp.ndarray,
    legal: jnp.ndarray,
) -> Afterstates:
    """Write the piece at its resting row, then clear lines (board unchanged if illegal)."""
    height, width = board.shape
    rot, col = decode_action(action, width)
    cells = jnp.asarray(PIECE_CELLS)[piece, rot]  # (4, 2)
    rows = land + cells[:, 0]
    cols = col + cells[:, 1]
    # Compare-based painting (no scatter): cells outside the board simply match nothing.
    covers = (rows[:, None, None] == jnp.arange(height)[None, :, None]) & (
        cols[:, None, None] == jnp.arange(width)[None, None, :]
    )
    placed = jnp.maximum(board, jnp.any(covers, axis=0).astype(board.dtype))
    full = jnp.all(placed > 0, axis=1)
    eroded = jnp.sum(full[jnp.clip(rows, 0, height - 1)], dtype=jnp.int32)
    cleared, lines = clear_lines(placed)
    return Afterstates(
        boards=jnp.where(legal, cleared, board),
        lines=jnp.where(legal, lines, 0),
        legal=legal,
        landing_row=land,
        piece_height=jnp.asarray(PIECE_HEIGHT)[piece, rot],
        eroded_cells=jnp.where(legal, eroded, 0),
    )
