"""Engine rules: spawn, game over, reward, piece draw, goals, done-freezing, jit/vmap."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicode.domains.tetris import engine
from dicode.domains.tetris.engine import EnvParams
from dicode.domains.tetris.pieces import PIECE_CELLS, PIECE_HEIGHT, PIECE_WIDTH
from dicode.domains.tetris.placements import afterstates, legal_mask
from dicode.domains.tetris.schema import MAX_SEQUENCE, PIECE_NAMES, stack_levels, target_level
from dicode.domains.tetris.student.config import PPOConfig
from dicode.domains.tetris.student.slot_world import bonus_config
from dicode.environment import draw_entries, slot_params
from dicode.student.bonus import BonusParams, CompletionBonus
from tests.tetris.strategies import HEIGHT, WIDTH, boards

PARAMS = EnvParams()
_reset = jax.jit(engine.reset)
_step = jax.jit(engine.step)
_legal = jax.jit(legal_mask)


def _level(board: np.ndarray | None = None, sequence: list[int] | None = None, **goal: int):
    level = target_level()
    seq = np.full(MAX_SEQUENCE, -1, np.int32)
    if sequence:
        seq[: len(sequence)] = sequence
    return dataclasses.replace(
        level,
        board=jnp.asarray(board if board is not None else np.zeros((HEIGHT, WIDTH), np.uint8)),
        sequence=jnp.asarray(seq),
        goal_lines=jnp.int32(goal.get("lines", 0)),
        goal_pieces=jnp.int32(goal.get("pieces", 0)),
    )


def _spawn_blocked(board: np.ndarray, piece: int) -> bool:
    """Reference spawn rule: rotation 0, centred, top cell in the top row."""
    col0 = (WIDTH - int(PIECE_WIDTH[piece, 0])) // 2
    row0 = HEIGHT - int(PIECE_HEIGHT[piece, 0])
    return any(board[row0 + r, col0 + c] for r, c in PIECE_CELLS[piece, 0])


def test_reset_is_seeded_and_starts_an_empty_standard_game() -> None:
    obs_a, state_a = _reset(jax.random.key(3), PARAMS)
    obs_b, state_b = _reset(jax.random.key(3), PARAMS)
    assert int(state_a.piece) == int(state_b.piece)
    assert int(state_a.next_piece) == int(state_b.next_piece)
    assert not np.asarray(state_a.board).any()
    assert not bool(state_a.done)
    assert obs_a.action_mask.shape == (4 * WIDTH,)
    np.testing.assert_array_equal(obs_a.action_mask, obs_b.action_mask)


def test_the_level_sequence_comes_first_then_the_piece_weights() -> None:
    only_o = np.zeros(7, np.float32)
    only_o[PIECE_NAMES.index("O")] = 1.0
    level = dataclasses.replace(_level(sequence=[0, 2, 6]), piece_weights=jnp.asarray(only_o))
    _, state = _reset(jax.random.key(0), PARAMS.replace(level=level))
    seen = [int(state.piece)]
    key = jax.random.key(1)
    for _ in range(5):
        key, sub = jax.random.split(key)
        action = int(np.flatnonzero(np.asarray(_legal(state.board, state.piece)))[0])
        _, state, *_ = _step(sub, state, action, PARAMS)
        seen.append(int(state.piece))
    assert seen == [0, 2, 6, 1, 1, 1]


def test_seven_bag_deals_each_piece_once_per_seven() -> None:
    params = EnvParams(seven_bag=True)
    reset, step = jax.jit(engine.reset), jax.jit(engine.step)
    _, state = reset(jax.random.key(5), params)
    dealt = [int(state.piece)]
    key = jax.random.key(6)
    floor_clear = np.zeros((HEIGHT, WIDTH), np.uint8)
    for _ in range(13):
        key, sub = jax.random.split(key)
        # Keep the board empty so the game never ends: reset the board between steps.
        state = dataclasses.replace(state, board=jnp.asarray(floor_clear))
        action = int(np.flatnonzero(np.asarray(_legal(state.board, state.piece)))[0])
        _, state, *_ = step(sub, state, action, params)
        dealt.append(int(state.piece))
    assert sorted(dealt[:7]) == list(range(7))
    assert sorted(dealt[7:14]) == list(range(7))


def test_reward_is_one_plus_ten_lines_squared() -> None:
    board = np.zeros((HEIGHT, WIDTH), np.uint8)
    board[0:4, 1:] = 1
    _, state = _reset(jax.random.key(0), PARAMS.replace(level=_level(board, sequence=[0, 1])))
    vertical_i_left = 1 * WIDTH + 0
    _, state, reward, done, info = _step(jax.random.key(1), state, vertical_i_left, PARAMS)
    assert int(info["lines"]) == 4
    assert float(reward) == 1.0 + 10.0 * 16
    assert int(state.lines) == 4 and int(state.pieces) == 1
    assert not bool(done) and not np.asarray(state.board).any()


@settings(max_examples=40, deadline=None)
@given(boards(), st.integers(0, 6), st.integers(0, 6), st.integers(0, 4 * WIDTH - 1))
def test_game_over_exactly_when_the_action_is_illegal_or_the_next_piece_cannot_spawn(
    board: np.ndarray, piece: int, next_piece: int, action: int
) -> None:
    level = _level(board, sequence=[piece, next_piece])
    _, state = _reset(jax.random.key(0), PARAMS.replace(level=level))
    if _spawn_blocked(board, piece):
        assert bool(state.game_over) and bool(state.done)
        return
    legal = bool(np.asarray(_legal(state.board, state.piece))[action])
    after = np.asarray(afterstates(state.board, state.piece).boards[action])
    _, new, reward, done, info = _step(jax.random.key(1), state, action, PARAMS)
    expected = (not legal) or _spawn_blocked(after, next_piece)
    assert bool(info["game_over"]) == expected
    assert bool(done) == expected
    if not legal:
        np.testing.assert_array_equal(np.asarray(new.board), board)
        assert int(new.pieces) == 0 and float(reward) == 0.0
    else:
        np.testing.assert_array_equal(np.asarray(new.board), after)
        assert int(new.pieces) == 1


def test_a_done_game_stays_frozen() -> None:
    board = np.zeros((HEIGHT, WIDTH), np.uint8)
    _, state = _reset(jax.random.key(0), PARAMS.replace(level=_level(board, sequence=[0, 0])))
    illegal = 2 * WIDTH + 0  # duplicate rotation of I
    _, over, _, done, _ = _step(jax.random.key(1), state, illegal, PARAMS)
    assert bool(done)
    _, again, reward, done_again, info = _step(jax.random.key(2), over, 0, PARAMS)
    assert bool(done_again) and float(reward) == 0.0 and int(info["lines"]) == 0
    for a, b in zip(jax.tree_util.tree_leaves(over), jax.tree_util.tree_leaves(again), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_survive_goal_succeeds_after_the_piece_budget() -> None:
    _, state = _reset(jax.random.key(0), PARAMS.replace(level=_level(pieces=3)))
    for i in range(3):
        assert not bool(engine.success(state))
        action = int(np.flatnonzero(np.asarray(_legal(state.board, state.piece)))[i])
        _, state, _, done, info = _step(jax.random.key(i), state, action, PARAMS)
    assert bool(done) and bool(info["success"])


def test_lines_within_pieces_goal_fails_when_the_budget_runs_out() -> None:
    _, state = _reset(jax.random.key(0), PARAMS.replace(level=_level(lines=1, pieces=2)))
    for i in range(2):
        action = int(np.flatnonzero(np.asarray(_legal(state.board, state.piece)))[0])
        _, state, _, done, info = _step(jax.random.key(i), state, action, PARAMS)
    assert bool(done) and not bool(info["success"]) and not bool(info["game_over"])


def test_lines_goal_succeeds_on_the_clearing_step() -> None:
    board = np.zeros((HEIGHT, WIDTH), np.uint8)
    board[0, 1:] = 1
    _, state = _reset(jax.random.key(0), PARAMS.replace(level=_level(board, sequence=[0], lines=1)))
    _, state, _, done, info = _step(jax.random.key(1), state, 1 * WIDTH + 0, PARAMS)
    assert bool(done) and bool(info["success"])


def test_slots_index_a_stacked_pool_and_vmap_the_engine() -> None:
    boards_ = []
    for k in range(3):
        b = np.zeros((HEIGHT, WIDTH), np.uint8)
        b[0, k] = 1
        boards_.append(_level(b))
    slots = EnvParams(level=jax.tree_util.tree_map(lambda x: x[None], stack_levels(boards_)))
    env_slot = jnp.zeros((64,), jnp.int32)
    entries = draw_entries(jax.random.key(0), slots, env_slot)
    keys = jax.random.split(jax.random.key(1), 64)
    params = slot_params(slots, env_slot, entries)
    _, states = jax.jit(jax.vmap(engine.reset))(keys, params)
    picked = {int(np.flatnonzero(np.asarray(b)[0])[0]) for b in states.board}
    assert picked == {0, 1, 2}
    masks = jax.vmap(engine.observe)(states, params).action_mask
    step = jax.jit(jax.vmap(engine.step))
    _, stepped, reward, _, info = step(keys, states, jnp.argmax(masks, axis=-1), params)
    assert stepped.board.shape == (64, HEIGHT, WIDTH)
    assert np.all(np.asarray(reward) == 1.0)
    assert not np.asarray(info["completed"]).any()  # the standard game has no goal


def test_mismatched_level_shape_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="does not match"):
        engine.reset(jax.random.key(0), EnvParams(level=target_level(), width=8))


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_a_random_game_conserves_cells_and_never_overlaps(seed: int) -> None:
    rng = np.random.default_rng(seed)
    _, state = _reset(jax.random.key(seed), PARAMS)
    for t in range(40):
        legal = np.flatnonzero(np.asarray(_legal(state.board, state.piece)))
        before = np.asarray(state.board).copy()
        _, state, _, done, info = _step(jax.random.key(t), state, int(rng.choice(legal)), PARAMS)
        after = np.asarray(state.board)
        # Cells = 4 per placed piece minus a full row per cleared line, from an empty board.
        assert int(after.sum()) == 4 * int(state.pieces) - WIDTH * int(state.lines)
        if int(info["lines"]) == 0:
            # Without a clear, every filled cell stays and exactly four are added.
            assert np.all(after >= before) and int((after - before).sum()) == 4
        if bool(done):
            break


def test_the_bonus_wrapper_pays_in_tetris_units_on_the_completing_placement() -> None:
    config = bonus_config(PPOConfig())  # d = 20, k = 0, ε = 1: max(1, min(20, R̄)) lines
    bonus_step = jax.jit(CompletionBonus(engine, config).step)
    _, state = _reset(jax.random.key(0), PARAMS.replace(level=_level(pieces=1)))
    action = int(np.flatnonzero(np.asarray(_legal(state.board, state.piece)))[0])
    for running, want in ((0.0, 1.0), (0.5, 1.0), (7.0, 7.0), (300.0, 20.0)):
        for pays in (True, False):
            params = BonusParams(PARAMS, jnp.float32(running), jnp.asarray(pays))
            _, after, reward, done, info = bonus_step(jax.random.key(1), state, action, params)
            paid = want if pays else 0.0
            assert bool(done) and bool(info["completed"])
            assert float(info["engine_reward"]) == PARAMS.piece_reward
            assert float(info["bonus"]) == paid and float(reward) == PARAMS.piece_reward + paid
    # The game is decided: stepping it again completes (and pays) nothing.
    params = BonusParams(PARAMS, jnp.float32(7.0), jnp.asarray(True))
    _, _, reward, _, info = bonus_step(jax.random.key(2), after, action, params)
    assert not bool(info["completed"]) and float(reward) == 0.0
