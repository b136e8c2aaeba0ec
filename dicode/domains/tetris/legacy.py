"""The field report's 40-action encoding, kept as a legacy mode to show its coverage loss.

Legacy action ``a`` (``4 * width`` of them): ``rotation = a % 4``, ``x = a // 4`` clipped to
``0 .. width-1``, where ``x`` is the **left edge of the piece's 4×4 (SRS) box**, not of the piece.
The piece is rotated, shifted until its box edge is at ``x`` (a wall stops the shift, so a piece
pushed past the right wall ends against it), then hard-dropped. Each legacy action therefore
lands on exactly one of our placements; ``LEGACY_TO_PLACEMENT`` is that map.

Because the box edge cannot go below 0, an orientation whose leftmost cell sits ``k > 0``
columns inside its box can never reach board columns ``0 .. k-1``. In our SRS geometry this
loses the vertical I in column 0 (its two vertical states sit in box columns 2 and 1), the O in
column 0 (box columns 1–2), and the right-pointing T, J and L (state R, box column 1) in
column 0: 5 of 162 placements. The report's own shapes lost 11 (151 reachable), because they
sat further inside the box; see ``docs/tetris.md``.
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np

from dicode.domains.tetris.pieces import (
    BOX_LEFT,
    CANONICAL_ROTATION,
    DISTINCT_ROTATION,
    NUM_ROTATIONS,
    PIECE_WIDTH,
)
from dicode.domains.tetris.schema import NUM_PIECES, PIECE_NAMES


@functools.cache
def legacy_to_placement(width: int) -> np.ndarray:
    """(7, 4·W) int32: the placement action each legacy action lands on, per piece."""
    table = np.zeros((NUM_PIECES, NUM_ROTATIONS * width), np.int32)
    for p in range(NUM_PIECES):
        for a in range(NUM_ROTATIONS * width):
            rot, x = a % NUM_ROTATIONS, min(max(a // NUM_ROTATIONS, 0), width - 1)
            column = min(x + BOX_LEFT[p, rot], width - PIECE_WIDTH[p, rot])  # wall stops shift
            table[p, a] = CANONICAL_ROTATION[p, rot] * width + column
    return table


@functools.cache
def reachable_placements(width: int) -> np.ndarray:
    """(7, 4·W) bool over placement actions: True where some legacy action lands there."""
    reach = np.zeros((NUM_PIECES, NUM_ROTATIONS * width), bool)
    table = legacy_to_placement(width)
    for p in range(NUM_PIECES):
        reach[p, table[p]] = True
    return reach


def to_placement(piece: jnp.ndarray, legacy_action: jnp.ndarray, width: int) -> jnp.ndarray:
    """Map a legacy action of ``piece`` to the placement action it produces (jit-friendly)."""
    return jnp.asarray(legacy_to_placement(width))[piece, legacy_action]


def unreachable_placements(width: int = 10) -> list[dict[str, int | str]]:
    """Placements legal on an empty board that no legacy action reaches, sorted by piece."""
    reach = reachable_placements(width)
    missing: list[dict[str, int | str]] = []
    for p, name in enumerate(PIECE_NAMES):
        for rot in range(NUM_ROTATIONS):
            if not DISTINCT_ROTATION[p, rot]:
                continue
            for column in range(width - PIECE_WIDTH[p, rot] + 1):
                if not reach[p, rot * width + column]:
                    missing.append({"piece": name, "rotation": rot, "column": column})
    return missing
