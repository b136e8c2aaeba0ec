"""Hand-made one-piece placement planners as vectorised JAX policies over afterstates.

Each planner computes board features of every candidate afterstate, scores them with a fixed
weight vector, and takes the argmax over legal candidates. Weights and features follow
``reference-tetris.md`` (· = not used):

==================  ===========  ===================  ======
feature             Dellacherie  El-Tetris            BCTS
==================  ===========  ===================  ======
landing height      −1           −4.500158825082766   −12.63
eroded piece cells  +1           ·                    +6.60
rows eliminated     ·            +3.4181268101392694  ·
row transitions     −1           −3.2178882868487753  −9.22
column transitions  −1           −9.348695305445199   −19.77
holes               −4           −7.899265427351652   −13.08
cumulative wells    −1           −3.3855972247263626  −10.49
hole depth          ·            ·                    −1.61
rows with holes     ·            ·                    −24.04
==================  ===========  ===================  ======

Ties (equal scores up to float rounding) are broken as in Dellacherie's published planner:
prefer the placement farthest from the spawn column, then one left of it, then the lower
rotation index.

Feature definitions (board row 0 = bottom):
- landing height: landing row of the piece's lowest cell + (piece height − 1) / 2;
- eroded piece cells: rows cleared × cells of the placed piece removed by the clear;
- row transitions: filled/empty changes along each of the H rows, walls count as filled (an
  empty row counts 2);
- column transitions: filled/empty changes up each column, the floor counts as filled;
- holes: empty cells with a filled cell somewhere above in the same column;
- cumulative wells: for every vertical run of d well cells (empty, both side neighbours filled
  or walls, above the column's top filled cell), 1 + 2 + … + d;
- hole depth: for every hole, the number of filled cells above it in its column;
- rows with holes: rows that contain at least one hole.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from dicode.domains.tetris.pieces import PIECE_WIDTH
from dicode.domains.tetris.placements import Afterstates, decode_action, num_actions

FEATURES = (
    "landing_height",
    "eroded_piece_cells",
    "rows_eliminated",
    "row_transitions",
    "column_transitions",
    "holes",
    "cumulative_wells",
    "hole_depth",
    "rows_with_holes",
)

WEIGHTS: dict[str, np.ndarray] = {
    "dellacherie": np.array([-1, 1, 0, -1, -1, -4, -1, 0, 0], np.float32),
    "eltetris": np.array(
        [
            -4.500158825082766,
            0.0,
            3.4181268101392694,
            -3.2178882868487753,
            -9.348695305445199,
            -7.899265427351652,
            -3.3855972247263626,
            0.0,
            0.0,
        ],
        np.float32,
    ),
    "bcts": np.array([-12.63, 6.60, 0, -9.22, -19.77, -13.08, -10.49, -1.61, -24.04], np.float32),
}


def board_features(board: jnp.ndarray) -> jnp.ndarray:
    """(6,) float32: the board-only features, in ``FEATURES`` order from row transitions on."""
    height = board.shape[0]
    filled = board > 0
    rows = jnp.arange(height)[:, None]
    col_height = jnp.max(jnp.where(filled, rows + 1, 0), axis=0)  # (W,)

    walled = jnp.pad(filled, ((0, 0), (1, 1)), constant_values=True)
    row_transitions = jnp.sum(walled[:, 1:] != walled[:, :-1])

    floored = jnp.pad(filled, ((1, 0), (0, 0)), constant_values=True)
    column_transitions = jnp.sum(floored[1:] != floored[:-1])

    hole = ~filled & (rows < col_height[None, :])
    holes = jnp.sum(hole)
    # Filled cells strictly above each cell: total in column minus those at or below.
    filled_at_or_below = jnp.cumsum(filled, axis=0)
    filled_above = jnp.sum(filled, axis=0)[None, :] - filled_at_or_below
    hole_depth = jnp.sum(jnp.where(hole, filled_above, 0))
    rows_with_holes = jnp.sum(jnp.any(hole, axis=1))

    open_above = rows >= col_height[None, :]
    well = open_above & walled[:, :-2] & walled[:, 2:]
    # Run length of well cells counted from the top: the k-th cell of a run adds k.
    top_down = well[::-1]
    index = jnp.arange(height)[:, None]
    last_break = jax.lax.cummax(jnp.where(top_down, -1, index), axis=0)
    cumulative_wells = jnp.sum(jnp.where(top_down, index - last_break, 0))

    return jnp.stack(
        [
            row_transitions,
            column_transitions,
            holes,
            cumulative_wells,
            hole_depth,
            rows_with_holes,
        ]
    ).astype(jnp.float32)


def features(candidates: Afterstates) -> jnp.ndarray:
    """(A, 9) float32 features of every candidate, in ``FEATURES`` order."""
    landing_height = candidates.landing_row + (candidates.piece_height - 1) / 2.0
    eroded = candidates.lines * candidates.eroded_cells
    placement = jnp.stack([landing_height, eroded, candidates.lines], axis=1)
    return jnp.concatenate(
        [placement.astype(jnp.float32), jax.vmap(board_features)(candidates.boards)], axis=1
    )


def scores(candidates: Afterstates, weights: jnp.ndarray) -> jnp.ndarray:
    """(A,) float32: weighted feature sum per candidate, −inf where illegal."""
    value = features(candidates) @ weights
    return jnp.where(candidates.legal, value, -jnp.inf)


def tie_break_priority(piece: jnp.ndarray, width: int) -> jnp.ndarray:
    """(A,) Dellacherie's tie-break: 100·|shift from spawn| + 10·(left of spawn) − rotation."""
    rotation, column = decode_action(jnp.arange(num_actions(width)), width)
    spawn = (width - jnp.asarray(PIECE_WIDTH)[piece, 0]) // 2
    shift = column - spawn
    return 100 * jnp.abs(shift) + 10 * (shift < 0) - rotation


def best_candidate(value: jnp.ndarray, priority: jnp.ndarray) -> jnp.ndarray:
    """Index of the highest value; among values tied up to float rounding, highest priority."""
    best = jnp.max(value)
    tied = value >= best - 1e-4 * jnp.maximum(1.0, jnp.abs(best))
    return jnp.argmax(jnp.where(tied, priority, jnp.iinfo(jnp.int32).min)).astype(jnp.int32)
