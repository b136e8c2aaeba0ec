"""The Tetris environment as pure JAX functions (gymnax style), compiled once for every level.

API (``dicode.environment``'s interface; jit- and vmap-friendly, static shapes):

- ``reset(key, params) -> (obs, state)``: start a game on ``params.level`` (one
  ``TetrisLevel`` instance of a pool; the standard empty-board game when None).
- ``step(key, state, action, params) -> (obs, state, reward, done, info)``: place the current
  piece with a placement action (see ``placements``; a legacy action when
  ``params.legacy_actions``). ``info``: ``lines`` (cleared by this step), ``total_lines``,
  ``pieces`` (placed so far), ``game_over``, ``success`` (the goal holds) and ``completed``
  (this placement met the goal: never on a game already decided, so not for a level solved
  at reset).
- ``success(state)``: the level's goal is met (semantics in ``schema.TetrisLevel``).

Rules:
- **Pieces**: first the level's ``sequence`` (entries ``>= 0``, ``-1`` padding at the end), then
  i.i.d. draws from ``piece_weights`` (or a 7-bag when ``params.seven_bag``). One preview piece.
- **Spawn**: a new piece appears in rotation state 0, leftmost cell at column
  ``(width - piece width) // 2`` (I at 3–6, O at 4–5, others 3–5 on a 10-wide board), its top
  cell in the top row.
- **Game over** (either): the chosen action is illegal (no legal placement, off the board, or
  the piece would rest partly above the top row) — nothing is placed; or after a placement and
  its line clears, the next piece's spawn cells overlap the stack (block out).
- **Reward** per step: ``piece_reward + line_reward * lines**2`` for a legal placement
  (defaults 1 + 10·lines²), plus ``game_over_reward`` (default 0) on the step that ends the game.
- **Done**: game over, or the level's goal is decided (met, or its piece budget is spent).
  Stepping a done state returns it unchanged with reward 0 (no auto-reset).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import flax.struct
import jax
import jax.numpy as jnp

from dicode.domains.tetris import legacy
from dicode.domains.tetris.pieces import PIECE_CELLS, PIECE_HEIGHT, PIECE_WIDTH
from dicode.domains.tetris.placements import legal_mask, num_actions, place
from dicode.domains.tetris.schema import (
    BOARD_HEIGHT,
    BOARD_WIDTH,
    MAX_SEQUENCE,
    NUM_PIECES,
    TetrisLevel,
    target_level,
)


@flax.struct.dataclass
class EnvParams:
    """The level (data) and the fixed rules. The rules are static (a change is a new compile),
    so a batch of params is the level's arrays alone: slots vmap over it."""

    level: TetrisLevel | None = None  # one pool instance; None: the standard game
    width: int = flax.struct.field(pytree_node=False, default=BOARD_WIDTH)
    height: int = flax.struct.field(pytree_node=False, default=BOARD_HEIGHT)
    legacy_actions: bool = flax.struct.field(pytree_node=False, default=False)
    seven_bag: bool = flax.struct.field(pytree_node=False, default=False)
    piece_reward: float = flax.struct.field(pytree_node=False, default=1.0)  # per placed piece
    line_reward: float = flax.struct.field(pytree_node=False, default=10.0)  # × lines cleared²
    # Added on the step that ends the game.
    game_over_reward: float = flax.struct.field(pytree_node=False, default=0.0)


@flax.struct.dataclass
class EnvState:
    """Everything the game needs; ``level`` is the episode's initial condition and goal."""

    board: jnp.ndarray  # (H, W) uint8, row 0 = bottom
    piece: jnp.ndarray  # () int32, current piece id
    next_piece: jnp.ndarray  # () int32, the preview
    pieces: jnp.ndarray  # () int32, pieces placed
    lines: jnp.ndarray  # () int32, lines cleared
    drawn: jnp.ndarray  # () int32, pieces drawn so far (position in level.sequence)
    bag: jnp.ndarray  # (7,) int32, current 7-bag permutation (unused unless seven_bag)
    bag_pos: jnp.ndarray  # () int32, next index into bag (7 = draw a new bag)
    level: TetrisLevel
    game_over: jnp.ndarray  # () bool
    done: jnp.ndarray  # () bool


@flax.struct.dataclass
class Observation:
    """What a policy sees. ``action_mask`` is over the action encoding in use."""

    board: jnp.ndarray  # (H, W) uint8
    piece: jnp.ndarray  # () int32
    next_piece: jnp.ndarray  # () int32
    action_mask: jnp.ndarray  # (4·W,) bool


def action_mask(state: EnvState, params: EnvParams) -> jnp.ndarray:
    """Legal actions for the current piece, in the encoding ``params`` selects."""
    mask = legal_mask(state.board, state.piece)
    if params.legacy_actions:
        every_legacy_action = jnp.arange(num_actions(params.width))
        return mask[legacy.to_placement(state.piece, every_legacy_action, params.width)]
    return mask


def observe(state: EnvState, params: EnvParams) -> Observation:
    """The observation of a state."""
    return Observation(state.board, state.piece, state.next_piece, action_mask(state, params))


def can_spawn(board: jnp.ndarray, piece: jnp.ndarray) -> jnp.ndarray:
    """True when ``piece`` in rotation 0 at its spawn position overlaps no filled cell."""
    height, width = board.shape
    cells = jnp.asarray(PIECE_CELLS)[piece, 0]
    rows = height - jnp.asarray(PIECE_HEIGHT)[piece, 0] + cells[:, 0]
    cols = (width - jnp.asarray(PIECE_WIDTH)[piece, 0]) // 2 + cells[:, 1]
    return ~jnp.any(board[rows, cols] > 0)


def success(state: EnvState) -> jnp.ndarray:
    """The level's goal is met (always False for the standard game, which has no goal)."""
    goal_lines, goal_pieces = state.level.goal_lines, state.level.goal_pieces
    lines_met = state.lines >= goal_lines
    survived = state.pieces >= goal_pieces
    within = state.pieces <= goal_pieces
    met = jnp.where(
        (goal_lines > 0) & (goal_pieces > 0),
        lines_met & within,
        jnp.where(goal_lines > 0, lines_met, (goal_pieces > 0) & survived),
    )
    return met & ~state.game_over


def _goal_decided(state: EnvState) -> jnp.ndarray:
    """Goal met, or its piece budget spent (a goal-less game is never decided this way)."""
    spent = (state.level.goal_pieces > 0) & (state.pieces >= state.level.goal_pieces)
    return success(state) | spent


def _draw(
    key: jax.Array,
    drawn: jnp.ndarray,
    bag: jnp.ndarray,
    bag_pos: jnp.ndarray,
    level: TetrisLevel,
    params: EnvParams,
) -> tuple[jnp.ndarray, jnp.ndarray, jnp.ndarray]:
    """Next piece: the level's sequence first, then the randomiser. Returns (piece, bag, pos)."""
    key_iid, key_bag = jax.random.split(key)
    in_sequence = level.sequence[jnp.minimum(drawn, MAX_SEQUENCE - 1)]
    scripted = jnp.where(drawn < MAX_SEQUENCE, in_sequence, -1)
    if params.seven_bag:
        refill = bag_pos >= NUM_PIECES
        bag = jnp.where(refill, jax.random.permutation(key_bag, NUM_PIECES), bag)
        bag_pos = jnp.where(refill, 0, bag_pos)
        random_piece = bag[bag_pos]
        bag_pos = jnp.where(scripted >= 0, bag_pos, bag_pos + 1)
    else:
        random_piece = jax.random.categorical(key_iid, jnp.log(level.piece_weights))
    return jnp.where(scripted >= 0, scripted, random_piece).astype(jnp.int32), bag, bag_pos


def _check_level(level: TetrisLevel, params: EnvParams) -> None:
    if level.board.shape[-2:] != (params.height, params.width):
        raise ValueError(
            f"level board shape {level.board.shape[-2:]} does not match params "
            f"(height={params.height}, width={params.width})"
        )


def reset(key: jax.Array, params: EnvParams) -> tuple[Observation, EnvState]:
    """Start a game on ``params.level`` (None: the standard game, empty board, uniform pieces)."""
    level = params.level
    if level is None:
        level = target_level(params.height, params.width)
    _check_level(level, params)
    key_first, key_second = jax.random.split(key)
    bag = jnp.arange(NUM_PIECES, dtype=jnp.int32)
    bag_pos = jnp.int32(NUM_PIECES)
    first, bag, bag_pos = _draw(key_first, jnp.int32(0), bag, bag_pos, level, params)
    second, bag, bag_pos = _draw(key_second, jnp.int32(1), bag, bag_pos, level, params)
    board = level.board.astype(jnp.uint8)
    game_over = ~can_spawn(board, first)
    state = EnvState(
        board=board,
        piece=first,
        next_piece=second,
        pieces=jnp.int32(0),
        lines=jnp.int32(0),
        drawn=jnp.int32(2),
        bag=bag,
        bag_pos=bag_pos,
        level=level,
        game_over=game_over,
        done=game_over,
    )
    state = dataclasses.replace(state, done=state.done | _goal_decided(state))
    return observe(state, params), state


def step(
    key: jax.Array, state: EnvState, action: jnp.ndarray, params: EnvParams
) -> tuple[Observation, EnvState, jnp.ndarray, jnp.ndarray, dict[str, Any]]:
    """Place the current piece with ``action``, draw the next, apply the rules above."""
    action = jnp.asarray(action, jnp.int32)
    if params.legacy_actions:
        action = legacy.to_placement(state.piece, action, params.width)
    result = place(state.board, state.piece, action)
    legal = result.legal
    new_piece, bag, bag_pos = _draw(key, state.drawn, state.bag, state.bag_pos, state.level, params)
    spawned = state.next_piece
    game_over = ~legal | ~can_spawn(result.boards, spawned)
    lines = result.lines
    moved = dataclasses.replace(
        state,
        board=result.boards,
        piece=jnp.where(legal, spawned, state.piece),
        next_piece=jnp.where(legal, new_piece, state.next_piece),
        pieces=state.pieces + legal.astype(jnp.int32),
        lines=state.lines + lines,
        drawn=state.drawn + legal.astype(jnp.int32),
        bag=jnp.where(legal, bag, state.bag),
        bag_pos=jnp.where(legal, bag_pos, state.bag_pos),
        game_over=game_over,
    )
    moved = dataclasses.replace(moved, done=game_over | _goal_decided(moved))
    placed_reward = params.piece_reward + params.line_reward * lines.astype(jnp.float32) ** 2
    reward = (
        jnp.where(legal, placed_reward, 0.0) + jnp.where(game_over, params.game_over_reward, 0.0)
    ).astype(jnp.float32)

    # A finished game stays as it is.
    frozen = state.done
    new_state = jax.tree_util.tree_map(lambda old, new: jnp.where(frozen, old, new), state, moved)
    reward = jnp.where(frozen, 0.0, reward)
    info = {
        "lines": jnp.where(frozen, 0, lines),
        "total_lines": new_state.lines,
        "pieces": new_state.pieces,
        "game_over": new_state.game_over,
        "success": success(new_state),
        "completed": success(new_state) & ~frozen,
    }
    return observe(new_state, params), new_state, reward, new_state.done, info
