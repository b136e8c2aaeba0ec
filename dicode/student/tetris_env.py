"""The student's view of the Tetris engine: state in, afterstate observation out.

The engine (``dicode.domains.tetris.engine``) observes the board, the piece and a mask; the
student scores every candidate placement by the board it leads to, so this adapter adds the
batched afterstates (``placements.afterstates``) to each observation. Everything is pure and
vmap-friendly; the rule parameters are the engine's defaults (1 + 10·lines² per piece).
"""

from __future__ import annotations

from typing import Any

import flax.struct
import jax
import jax.numpy as jnp

from dicode.domains.tetris import engine
from dicode.domains.tetris.placements import afterstates
from dicode.domains.tetris.schema import TetrisLevel

PARAMS = engine.EnvParams()


@flax.struct.dataclass
class Obs:
    """What the policy sees: the current board and every candidate's afterstate."""

    board: jnp.ndarray  # (H, W) uint8, the current board
    afterstates: jnp.ndarray  # (A, H, W) uint8, board after each placement and its clears
    lines: jnp.ndarray  # (A,) int32, lines each placement clears
    legal: jnp.ndarray  # (A,) bool


def reset(key: jax.Array, level: TetrisLevel) -> engine.EnvState:
    """A fresh game on one level instance."""
    return engine.reset(key, PARAMS, level)[1]


def observe(state: engine.EnvState) -> Obs:
    """The afterstate observation of a state."""
    after = afterstates(state.board, state.piece)
    return Obs(state.board, after.boards, after.lines, after.legal)


def step(
    key: jax.Array, state: engine.EnvState, action: jnp.ndarray
) -> tuple[engine.EnvState, jnp.ndarray, jnp.ndarray, dict[str, Any]]:
    """One placement: ``(state, reward, done, info)``; info as the engine's."""
    _, new_state, reward, done, info = engine.step(key, state, action, PARAMS)
    return new_state, reward, done, info
