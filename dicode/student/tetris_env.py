"""PROVISIONAL adapter (to be replaced by calls into dicode.domains.tetris once merged)."""

from __future__ import annotations

from typing import Any

import flax.struct
import jax
import jax.numpy as jnp
import numpy as np

from dicode.domains.tetris.schema import BOARD_HEIGHT as H
from dicode.domains.tetris.schema import BOARD_WIDTH as W
from dicode.domains.tetris.schema import TetrisLevel

_BASE = {
    "I": [(0, 0), (0, 1), (0, 2), (0, 3)],
    "O": [(0, 0), (0, 1), (1, 0), (1, 1)],
    "T": [(0, 0), (0, 1), (0, 2), (1, 1)],
    "S": [(0, 0), (0, 1), (1, 1), (1, 2)],
    "Z": [(1, 0), (1, 1), (0, 1), (0, 2)],
    "J": [(0, 0), (0, 1), (0, 2), (1, 0)],
    "L": [(0, 0), (0, 1), (0, 2), (1, 2)],
}


def _rotations() -> np.ndarray:
    out = np.zeros((7, 4, 4, 2), np.int32)
    for p, name in enumerate("IOTSZJL"):
        cells = np.array(_BASE[name])
        for r in range(4):
            c = cells - cells.min(0)
            out[p, r] = c
            cells = np.stack([c[:, 1], -c[:, 0]], 1)  # rotate 90 degrees
    return out


SHAPES = jnp.asarray(_rotations())
NUM_ACTIONS = 4 * W


@flax.struct.dataclass
class State:
    board: jnp.ndarray
    piece: jnp.ndarray
    level: TetrisLevel
    lines: jnp.ndarray
    pieces: jnp.ndarray


@flax.struct.dataclass
class Obs:
    board: jnp.ndarray
    afterstates: jnp.ndarray
    lines: jnp.ndarray
    legal: jnp.ndarray


def _place(board: jnp.ndarray, piece: jnp.ndarray, action: jnp.ndarray):
    rot, col = action // W, action % W
    cells = SHAPES[piece, rot]
    cols = col + cells[:, 1]
    fits = jnp.all(cols < W)
    cols = jnp.clip(cols, 0, W - 1)
    filled = board.astype(bool)
    heights = jnp.where(filled.any(0), H - jnp.argmax(filled[::-1], axis=0), 0)
    y = jnp.max(heights[cols] - cells[:, 0])
    rows = y + cells[:, 0]
    big = jnp.zeros((H + 4, W), jnp.uint8).at[:H].set(board)
    big = big.at[rows, cols].set(1)
    full = big.all(1)
    n = full.sum()
    order = jnp.argsort(full, stable=True)
    cleared = big[order]
    cleared = jnp.where((jnp.arange(H + 4) >= H + 4 - n)[:, None], 0, cleared)
    over = cleared[H:].any()
    return cleared[:H], n, fits, over


_afterstates = jax.vmap(_place, in_axes=(None, None, 0))


def _draw(key: jnp.ndarray, level: TetrisLevel) -> jnp.ndarray:
    return jax.random.categorical(key, jnp.log(level.piece_weights))


def reset(key: jnp.ndarray, level: TetrisLevel) -> State:
    return State(level.board, _draw(key, level), level, jnp.zeros((), jnp.int32),
                 jnp.zeros((), jnp.int32))


def observe(state: State) -> Obs:
    boards, lines, fits, over = _afterstates(state.board, state.piece, jnp.arange(NUM_ACTIONS))
    legal = fits & ~over
    legal = jnp.where(legal.any(), legal, fits)
    return Obs(state.board, boards, lines, legal)


def step(key: jnp.ndarray, state: State, action: jnp.ndarray) -> tuple[State, Any, Any, dict]:
    board, lines, _, over = _place(state.board, state.piece, action)
    reward = 1.0 + 10.0 * lines.astype(jnp.float32) ** 2
    total = state.lines + lines
    ns = State(board, _draw(key, state.level), state.level, total, state.pieces + 1)
    reward = jnp.where(over, 0.0, reward)
    return ns, reward, over, {"success": jnp.zeros((), bool), "lines": total}
