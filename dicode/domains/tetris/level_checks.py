"""Schema, range and goal checks for a pool of Tetris level instances (NumPy only).

Used by the validation pipeline on the arrays that come back from the sandbox: nothing from
there is trusted, so shapes, dtypes and every value are checked again here.
"""

from __future__ import annotations

import numpy as np

from dicode.domains.tetris.builder import (
    BOARD_HEIGHT,
    BOARD_WIDTH,
    CELLS_PER_PIECE,
    MAX_GOAL_LINES,
    MAX_GOAL_PIECES,
    MAX_SEQUENCE,
    PIECE_NAMES,
    SPAWN_COLS,
    SPAWN_ROWS,
)

#: The pool's fields: name -> (dtype, shape of one instance).
POOL_SCHEMA: dict[str, tuple[np.dtype, tuple[int, ...]]] = {
    "board": (np.dtype(np.uint8), (BOARD_HEIGHT, BOARD_WIDTH)),
    "piece_weights": (np.dtype(np.float32), (len(PIECE_NAMES),)),
    "sequence": (np.dtype(np.int32), (MAX_SEQUENCE,)),
    "goal_lines": (np.dtype(np.int32), ()),
    "goal_pieces": (np.dtype(np.int32), ()),
}


class LevelCheckError(ValueError):
    """A pool breaks the Tetris state schema or the level rules; the message says where."""


def check_pool(pool: dict[str, np.ndarray]) -> dict[str, int]:
    """Check a stacked pool; returns the level's goal ``{"lines": L, "pieces": P}`` (0 = unset)."""
    if set(pool) != set(POOL_SCHEMA):
        raise LevelCheckError(f"pool fields {sorted(pool)} differ from {sorted(POOL_SCHEMA)}")
    k = pool["board"].shape[0] if pool["board"].ndim == 3 else -1
    if k < 1:
        raise LevelCheckError(f"board: expected (K, {BOARD_HEIGHT}, {BOARD_WIDTH}) with K >= 1")
    for key, (dtype, shape) in POOL_SCHEMA.items():
        array = pool[key]
        if array.dtype != dtype or array.shape != (k, *shape):
            raise LevelCheckError(
                f"{key}: expected {dtype} array of shape {(k, *shape)}, "
                f"got {array.dtype} {array.shape}"
            )

    board, weights, sequence = pool["board"], pool["piece_weights"], pool["sequence"]
    if not np.isin(board, (0, 1)).all():
        raise LevelCheckError("board: cells must be 0 (empty) or 1 (filled)")
    if not np.isfinite(weights).all() or (weights < 0).any():
        raise LevelCheckError("piece_weights: must be finite and non-negative")
    if not np.allclose(weights.sum(axis=1), 1.0, atol=1e-4):
        raise LevelCheckError("piece_weights: each instance's weights must sum to 1")
    if ((sequence < -1) | (sequence >= len(PIECE_NAMES))).any():
        raise LevelCheckError(f"sequence: piece ids must be in 0..{len(PIECE_NAMES) - 1} or -1")
    padding = sequence == -1
    if (padding[:, :-1] & ~padding[:, 1:]).any():
        raise LevelCheckError("sequence: -1 padding may only follow the fixed pieces")

    full_rows = board.all(axis=2)
    if full_rows.any():
        instance, row = (int(i) for i in np.argwhere(full_rows)[0])
        raise LevelCheckError(f"instance {instance}: row {row} is full at the start")
    spawn = board[:, BOARD_HEIGHT - SPAWN_ROWS :, SPAWN_COLS[0] : SPAWN_COLS[1]]
    if spawn.any():
        instance = int(np.argwhere(spawn.any(axis=(1, 2)))[0][0])
        raise LevelCheckError(
            f"instance {instance}: the spawn area (top {SPAWN_ROWS} rows, columns "
            f"{SPAWN_COLS[0]}..{SPAWN_COLS[1] - 1}) is blocked"
        )

    lines, pieces = pool["goal_lines"], pool["goal_pieces"]
    if (lines < 0).any() or (lines > MAX_GOAL_LINES).any():
        raise LevelCheckError(f"goal_lines: must be in 0..{MAX_GOAL_LINES}")
    if (pieces < 0).any() or (pieces > MAX_GOAL_PIECES).any():
        raise LevelCheckError(f"goal_pieces: must be in 0..{MAX_GOAL_PIECES}")
    if (lines != lines[0]).any() or (pieces != pieces[0]).any():
        raise LevelCheckError("goal: every instance of a level must have the same goal")
    return {"lines": int(lines[0]), "pieces": int(pieces[0])}


def impossible_goal(pool: dict[str, np.ndarray]) -> str | None:
    """Why the goal cannot be reached in some instance, or None.

    A goal of L lines within P pieces needs L*W filled cells to disappear; at most the cells
    already on the board plus 4 per piece are ever available.
    """
    lines = int(pool["goal_lines"][0])
    pieces = int(pool["goal_pieces"][0])
    if lines == 0 or pieces == 0:
        return None
    filled = pool["board"].reshape(pool["board"].shape[0], -1).sum(axis=1)
    reachable = (filled + CELLS_PER_PIECE * pieces) // BOARD_WIDTH
    if (reachable < lines).any():
        instance = int(np.argmax(reachable < lines))
        return (
            f"impossible goal: {lines} lines within {pieces} pieces needs {lines * BOARD_WIDTH} "
            f"cells, but instance {instance} has only {int(filled[instance])} on the board "
            f"+ {CELLS_PER_PIECE} x {pieces} from pieces (at most {int(reachable[instance])} lines)"
        )
    return None
