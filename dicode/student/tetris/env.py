"""The student's view of the Tetris engine: state in, afterstate observation out.

The engine (``dicode.domains.tetris.engine``) observes the board, the piece and a mask; the
student scores every candidate placement by the board it leads to, so this adapter adds the
batched afterstates (``placements.afterstates``) to each observation. Only the legal ones
matter (illegal placements get no probability), and no piece has more than ``MAX_LEGAL`` = 34
legal placements on a 10-wide board (vs 40 slots), so observations keep the legal candidates
first, in placement order, in ``MAX_LEGAL`` slots: the network then scores 15 % fewer boards.
``Obs.placement`` maps a candidate slot back to the engine's action. Everything is pure and
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
# Most legal placements of any piece (T, J, L: 8 + 9 + 8 + 9 on the empty 10-wide board; a
# filled board only removes some). tests/student/test_tetris_env.py checks it against the engine.
MAX_LEGAL = 34


@flax.struct.dataclass
class Obs:
    """What the policy sees: the current board and every candidate's afterstate."""

    board: jnp.ndarray  # (H, W) uint8, the current board
    afterstates: jnp.ndarray  # (C, H, W) uint8, board after each candidate and its clears
    lines: jnp.ndarray  # (C,) int32, lines each candidate clears
    legal: jnp.ndarray  # (C,) bool; the legal candidates come first
    placement: jnp.ndarray  # (C,) int32, the engine action of each candidate


def reset(key: jax.Array, level: TetrisLevel) -> engine.EnvState:
    """A fresh game on one level instance."""
    return engine.reset(key, PARAMS, level)[1]


def observe(state: engine.EnvState) -> Obs:
    """The afterstate observation of a state: its ``MAX_LEGAL`` candidates, legal ones first."""
    after = afterstates(state.board, state.piece)
    keep = jnp.argsort(~after.legal, stable=True)[:MAX_LEGAL].astype(jnp.int32)
    return Obs(state.board, after.boards[keep], after.lines[keep], after.legal[keep], keep)


def step(
    key: jax.Array, state: engine.EnvState, action: jnp.ndarray
) -> tuple[engine.EnvState, jnp.ndarray, jnp.ndarray, dict[str, Any]]:
    """One placement: ``(state, reward, done, info)``; info as the engine's."""
    _, new_state, reward, done, info = engine.step(key, state, action, PARAMS)
    return new_state, reward, done, info
