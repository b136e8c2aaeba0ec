"""The student's view of the Tetris engine: state in, afterstate observation out.

The engine (``dicode.domains.tetris.engine``) observes the board, the piece and a mask; the
student scores every candidate placement by the board it leads to, so this adapter adds the
batched afterstates (``placements.afterstates``) to each observation. Only the legal ones
matter (illegal placements get no probability), and no piece has more than ``MAX_LEGAL`` = 34
legal placements on a 10-wide board (vs 40 slots), so observations keep the legal candidates
first, in placement order, in ``MAX_LEGAL`` slots: the network then scores 15 % fewer boards.
``Obs.placement`` maps a candidate slot back to the engine's action. Everything is pure and
vmap-friendly; the rule parameters are the engine's defaults (1 + 10·lines² per piece).

Besides the boards, the value reads the level's *context* (:func:`level_context`): what is left
of its goal and how its piece mix departs from the uniform draw, for the current state and for
each candidate's afterstate. It is all zeros on the target game, so a student trained on
levels plays the target game exactly as one that never saw a goal.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import flax.struct
import jax
import jax.numpy as jnp

from dicode.domains.tetris import engine
from dicode.domains.tetris.placements import afterstates
from dicode.domains.tetris.schema import NUM_PIECES, TetrisLevel

PARAMS = engine.EnvParams()
# Scales of the goal's remaining lines and pieces in the context (values stay O(1)).
LINES_SCALE, PIECES_SCALE = 10.0, 100.0
CONTEXT_SIZE = 4 + NUM_PIECES
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
    context: jnp.ndarray  # (CONTEXT_SIZE,) float32, the level's context now
    after_context: jnp.ndarray  # (C, CONTEXT_SIZE) float32, the context after each candidate


def level_context(level: TetrisLevel, lines: jnp.ndarray, pieces: jnp.ndarray) -> jnp.ndarray:
    """The goal left (has a lines goal, lines left; has a pieces goal, pieces left, scaled) and
    the piece weights' departure from uniform (× 7): zeros for the standard game."""
    has_lines, has_pieces = level.goal_lines > 0, level.goal_pieces > 0
    lines_left = jnp.maximum(level.goal_lines - lines, 0) / LINES_SCALE
    pieces_left = jnp.maximum(level.goal_pieces - pieces, 0) / PIECES_SCALE
    goal = jnp.stack(
        [has_lines, jnp.where(has_lines, lines_left, 0.0), has_pieces,
         jnp.where(has_pieces, pieces_left, 0.0)]
    ).astype(jnp.float32)  # fmt: skip
    mix = (level.piece_weights.astype(jnp.float32) - 1.0 / NUM_PIECES) * NUM_PIECES
    return jnp.concatenate([goal, mix])


def state_context(state: engine.EnvState) -> jnp.ndarray:
    """The level's context in ``state``."""
    return level_context(state.level, state.lines, state.pieces)


def reset(key: jax.Array, level: TetrisLevel) -> engine.EnvState:
    """A fresh game on one level instance."""
    return engine.reset(key, dataclasses.replace(PARAMS, level=level))[1]


def observe(state: engine.EnvState) -> Obs:
    """The afterstate observation of a state: its ``MAX_LEGAL`` candidates, legal ones first."""
    after = afterstates(state.board, state.piece)
    keep = jnp.argsort(~after.legal, stable=True)[:MAX_LEGAL].astype(jnp.int32)
    lines = after.lines[keep]
    after_context = jax.vmap(
        lambda cleared: level_context(state.level, state.lines + cleared, state.pieces + 1)
    )(lines)
    return Obs(
        state.board, after.boards[keep], lines, after.legal[keep], keep, state_context(state),
        after_context,
    )  # fmt: skip


def step(
    key: jax.Array, state: engine.EnvState, action: jnp.ndarray
) -> tuple[engine.EnvState, jnp.ndarray, jnp.ndarray, dict[str, Any]]:
    """One placement: ``(state, reward, done, info)``; info as the engine's."""
    _, new_state, reward, done, info = engine.step(key, state, action, PARAMS)
    return new_state, reward, done, info
