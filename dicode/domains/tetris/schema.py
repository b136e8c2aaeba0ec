"""The fixed Tetris state schema shared by the engine, the level builder and level bundles.

Conventions used everywhere in dicode (engine, builder, bundles, renderers):
- the board is a ``(height, width)`` uint8 array, 1 = filled; **row 0 is the bottom row**,
  column 0 the leftmost column (renderers flip rows for display);
- pieces are indexed in the order of ``PIECE_NAMES`` ("IOTSZJL").
"""

from __future__ import annotations

import flax.struct
import jax.numpy as jnp
import numpy as np

from dicode.domains.tetris.constants import (
    BOARD_HEIGHT,
    BOARD_WIDTH,
    MAX_SEQUENCE,
    NUM_PIECES,
    PIECE_NAMES,
)

__all__ = [
    "BOARD_HEIGHT",
    "BOARD_WIDTH",
    "MAX_SEQUENCE",
    "NUM_PIECES",
    "PIECE_NAMES",
    "TetrisLevel",
    "stack_levels",
    "target_level",
]


@flax.struct.dataclass
class TetrisLevel:
    """One initial condition of a level, as arrays the once-compiled engine consumes.

    A pool of K instances stacks every field along a new leading axis.
    ``goal_lines`` / ``goal_pieces`` are 0 when unset: both 0 is the standard (target) game;
    only ``goal_pieces`` means "survive that many pieces"; both means "clear ``goal_lines``
    lines within ``goal_pieces`` pieces"; only ``goal_lines`` means "clear that many lines".
    """

    board: jnp.ndarray  # (H, W) uint8
    piece_weights: jnp.ndarray  # (7,) float32, sums to 1
    sequence: jnp.ndarray  # (MAX_SEQUENCE,) int32, piece ids, -1 padding
    goal_lines: jnp.ndarray  # () int32
    goal_pieces: jnp.ndarray  # () int32


def target_level(height: int = BOARD_HEIGHT, width: int = BOARD_WIDTH) -> TetrisLevel:
    """The standard game: empty board, uniform i.i.d. pieces, no goal."""
    return TetrisLevel(
        board=jnp.zeros((height, width), jnp.uint8),
        piece_weights=jnp.full((NUM_PIECES,), 1.0 / NUM_PIECES, jnp.float32),
        sequence=jnp.full((MAX_SEQUENCE,), -1, jnp.int32),
        goal_lines=jnp.zeros((), jnp.int32),
        goal_pieces=jnp.zeros((), jnp.int32),
    )


def stack_levels(levels: list[TetrisLevel]) -> TetrisLevel:
    """Stack instances into a pool (leading axis K)."""
    return TetrisLevel(
        board=jnp.asarray(np.stack([np.asarray(x.board) for x in levels])),
        piece_weights=jnp.asarray(np.stack([np.asarray(x.piece_weights) for x in levels])),
        sequence=jnp.asarray(np.stack([np.asarray(x.sequence) for x in levels])),
        goal_lines=jnp.asarray(np.stack([np.asarray(x.goal_lines) for x in levels])),
        goal_pieces=jnp.asarray(np.stack([np.asarray(x.goal_pieces) for x in levels])),
    )
