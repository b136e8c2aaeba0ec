"""Heuristic planners: feature values, symmetry, and play far above random."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings

from dicode.domains.tetris.engine import EnvParams
from dicode.domains.tetris.evaluate import play
from dicode.domains.tetris.heuristics import board_features
from dicode.domains.tetris.placements import afterstates
from dicode.domains.tetris.policies import make_policy
from tests.tetris.strategies import boards

_features = jax.jit(board_features)


def _board(rows_top_first: list[str], height: int) -> jnp.ndarray:
    board = np.zeros((height, len(rows_top_first[0])), np.uint8)
    for i, row in enumerate(reversed(rows_top_first)):
        board[i] = [ch == "#" for ch in row]
    return jnp.asarray(board)


def test_board_features_on_a_hand_checked_board() -> None:
    board = _board(["##...", "#..#.", "##.##"], height=6)
    row_t, col_t, holes, wells, hole_depth, rows_with_holes = np.asarray(_features(board))
    # Rows (walls filled): 2 + 4 + 2, plus 2 for each of the three empty rows.
    assert row_t == 14
    # Columns (floor filled): 1 + 3 + 1 + 1 + 1.
    assert col_t == 7
    assert (holes, hole_depth, rows_with_holes) == (1, 1, 1)
    # Open wells: column 2 bottom cell (depth 1) and column 4 second cell (depth 1).
    assert wells == 2


def test_a_deep_well_counts_one_plus_two_plus_three() -> None:
    board = _board(["#.#", "#.#", "#.#"], height=4)
    assert np.asarray(_features(board))[3] == 1 + 2 + 3


@settings(max_examples=40, deadline=None)
@given(boards())
def test_board_features_are_mirror_symmetric(board: np.ndarray) -> None:
    np.testing.assert_array_equal(
        np.asarray(_features(jnp.asarray(board))),
        np.asarray(_features(jnp.asarray(board[:, ::-1].copy()))),
    )


def test_unknown_policy_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown policy 'greedy'"):
        make_policy("greedy")


def test_first_legal_takes_the_lowest_legal_action() -> None:
    board = jnp.zeros((20, 10), jnp.int32)
    for piece in range(7):
        legal = np.asarray(afterstates(board, jnp.int32(piece)).legal)
        action = make_policy("first_legal")(jax.random.PRNGKey(0), board, jnp.int32(piece))
        assert int(action) == int(np.argmax(legal))
    # Always the same column: the stack tops out fast, with next to no lines.
    final = play(make_policy("first_legal"), EnvParams(), 4, 200, seed=0)
    assert np.all(np.asarray(final.game_over)) and int(np.asarray(final.lines).max()) <= 2


@pytest.mark.parametrize("name", ["dellacherie", "eltetris", "bcts"])
def test_heuristics_clear_lines_far_above_random(name: str) -> None:
    params = EnvParams()
    cap = 150
    random_final = play(make_policy("random"), params, 4, cap, seed=0)
    final = play(make_policy(name), params, 4, cap, seed=0)
    # Random play dies within a few dozen pieces without clearing lines.
    assert int(np.asarray(random_final.lines).max()) <= 2
    # 150 pieces hold at most 60 lines; a real planner survives and clears nearly all of them.
    assert np.all(np.asarray(final.pieces) == cap)
    assert np.all(np.asarray(final.lines) >= 50)


def test_legacy_actions_make_a_planner_collapse() -> None:
    # The field report's failure, on purpose: without column-0 placements BCTS dies early.
    legacy_params = EnvParams(legacy_actions=True)
    final = play(make_policy("bcts", legacy_actions=True), legacy_params, 4, 1_000, seed=0)
    assert np.all(np.asarray(final.game_over))
    assert float(np.mean(np.asarray(final.lines))) < 100
