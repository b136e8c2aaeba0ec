"""Classic afterstate features of a Tetris board, as an extra input to the student's value.

The raw-board trunk can learn these, but slowly: public afterstate agents that learn fast read
a handful of them (lines, holes, bumpiness, height), and the hand-made placement heuristics
(Dellacherie, El-Tetris, BCTS; ``docs/student.md``) are linear in the same family. Here the
value gets them *besides* the trunk, so it starts near a heuristic and the trunk refines it.

Boards are ``(..., H, W)`` with 1 = filled and row 0 the floor. Every feature is scaled to
about [0, 1] on a 20-row board so no input dominates the first layer.
"""

from __future__ import annotations

import jax.numpy as jnp


def classic_features(board: jnp.ndarray) -> jnp.ndarray:
    """Per-column heights and holes, then: max height, holes, rows with holes, bumpiness,
    row transitions, column transitions, cumulative well depth (all scaled)."""
    filled = board > 0
    rows = board.shape[-2]
    row_index = jnp.arange(rows)[:, None]
    heights = jnp.max(jnp.where(filled, row_index + 1, 0), axis=-2)  # (..., W)
    below_top = row_index < heights[..., None, :]  # (..., H, W)
    hole_cells = ~filled & below_top
    holes = jnp.sum(hole_cells, axis=-2)  # (..., W)
    rows_with_holes = jnp.sum(jnp.any(hole_cells, axis=-1), axis=-1)
    bumpiness = jnp.sum(jnp.abs(jnp.diff(heights, axis=-1)), axis=-1)
    # Transitions count walls as filled (Dellacherie): empty cells next to the sides count.
    walled = jnp.pad(filled, [(0, 0)] * (board.ndim - 1) + [(1, 1)], constant_values=True)
    row_transitions = jnp.sum(walled[..., 1:] != walled[..., :-1], axis=(-2, -1))
    floored = jnp.concatenate([jnp.ones_like(filled[..., :1, :]), filled], axis=-2)
    column_transitions = jnp.sum(floored[..., 1:, :] != floored[..., :-1, :], axis=(-2, -1))
    padded = jnp.pad(heights, [(0, 0)] * (heights.ndim - 1) + [(1, 1)], constant_values=rows)
    well_depth = jnp.maximum(jnp.minimum(padded[..., :-2], padded[..., 2:]) - heights, 0)
    cumulative_wells = jnp.sum(well_depth * (well_depth + 1) // 2, axis=-1)
    scale = float(rows)
    aggregates = jnp.stack(
        [
            jnp.max(heights, axis=-1) / scale,
            jnp.sum(holes, axis=-1) / (2 * scale),
            rows_with_holes / scale,
            bumpiness / (2 * scale),
            row_transitions / (4 * scale),
            column_transitions / (2 * scale),
            cumulative_wells / (4 * scale),
        ],
        axis=-1,
    )
    per_column = jnp.concatenate([heights / scale, holes / scale], axis=-1)
    return jnp.concatenate([per_column, aggregates.astype(per_column.dtype)], axis=-1).astype(
        jnp.float32
    )
