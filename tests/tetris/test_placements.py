"""Placement action space: counts, legality and afterstates (lines clear, cells conserved)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicode.domains.tetris.pieces import PIECE_CELLS, PIECE_HEIGHT, PIECE_WIDTH
from dicode.domains.tetris.placements import afterstates, clear_lines, legal_mask
from dicode.domains.tetris.schema import PIECE_NAMES
from tests.tetris.strategies import HEIGHT, WIDTH, boards

_afterstates = jax.jit(afterstates)
_clear = jax.jit(clear_lines)
_legal = jax.jit(legal_mask)

EXPECTED = {"I": 17, "O": 9, "T": 34, "S": 17, "Z": 17, "J": 34, "L": 34}


def test_empty_board_has_162_placements_with_the_published_per_piece_counts() -> None:
    empty = jnp.zeros((HEIGHT, WIDTH), jnp.uint8)
    counts = {name: int(_legal(empty, jnp.int32(p)).sum()) for p, name in enumerate(PIECE_NAMES)}
    assert counts == EXPECTED
    assert sum(counts.values()) == 162


@pytest.mark.parametrize("width", [4, 6, 13])
def test_other_widths_count_one_placement_per_orientation_and_column(width: int) -> None:
    empty = jnp.zeros((HEIGHT, width), jnp.uint8)
    total = sum(int(legal_mask(empty, jnp.int32(p)).sum()) for p in range(7))
    # Distinct orientations: per piece, width - orientation width + 1 columns each.
    per_orientation = {"I": [4, 1], "O": [2], "S": [3, 2], "Z": [3, 2]}
    per_orientation |= {k: [3, 2, 3, 2] for k in "TJL"}
    expected_total = sum(
        max(width - w + 1, 0) for widths in per_orientation.values() for w in widths
    )
    assert total == expected_total


def test_every_column_including_the_leftmost_is_reachable_by_every_orientation() -> None:
    empty = jnp.zeros((HEIGHT, WIDTH), jnp.uint8)
    for p in range(7):
        mask = np.asarray(_legal(empty, jnp.int32(p))).reshape(4, WIDTH)
        for rot in range(4):
            if mask[rot].any():
                assert mask[rot, 0], (PIECE_NAMES[p], rot)


def _reference_clear(board: np.ndarray) -> tuple[np.ndarray, int]:
    kept = [row for row in board if not row.all()]
    n = board.shape[0] - len(kept)
    out = np.zeros_like(board)
    if kept:
        out[: len(kept)] = np.stack(kept)
    return out, n


@settings(max_examples=60, deadline=None)
@given(boards())
def test_full_rows_clear_and_the_rows_above_fall(board: np.ndarray) -> None:
    cleared, n = _clear(jnp.asarray(board))
    expected, expected_n = _reference_clear(board)
    assert int(n) == expected_n
    np.testing.assert_array_equal(np.asarray(cleared), expected)


@settings(max_examples=60, deadline=None)
@given(boards(), st.integers(0, 6))
def test_legal_afterstates_conserve_cells_and_rest_on_the_stack(
    board: np.ndarray, piece: int
) -> None:
    result = _afterstates(jnp.asarray(board), jnp.int32(piece))
    legal = np.asarray(result.legal)
    before = int(board.sum())
    for action in np.flatnonzero(legal):
        rot, col = divmod(int(action), WIDTH)
        land = int(result.landing_row[action])
        cells = [(land + r, col + c) for r, c in PIECE_CELLS[piece, rot]]
        # The piece never overlaps the stack and lies inside the board.
        assert all(0 <= r < HEIGHT and 0 <= c < WIDTH and board[r, c] == 0 for r, c in cells)
        # It rests: on the floor or on a filled cell directly below one of its cells.
        assert any(r == 0 or (board[r - 1, c] and (r - 1, c) not in cells) for r, c in cells)
        # A straight drop: nothing filled above the piece in its columns.
        for r, c in cells:
            assert not board[r + 1 :, c].any()
        lines = int(result.lines[action])
        after = np.asarray(result.boards[action])
        assert int(after.sum()) == before + 4 - WIDTH * lines
        placed = board.copy()
        for r, c in cells:
            placed[r, c] = 1
        np.testing.assert_array_equal(after, _reference_clear(placed)[0])


@settings(max_examples=60, deadline=None)
@given(boards(), st.integers(0, 6))
def test_illegal_means_off_the_board_duplicate_or_poking_above_the_top(
    board: np.ndarray, piece: int
) -> None:
    result = _afterstates(jnp.asarray(board), jnp.int32(piece))
    heights = [
        int(np.max(np.nonzero(board[:, c])[0]) + 1) if board[:, c].any() else 0
        for c in range(WIDTH)
    ]
    for action, legal in enumerate(np.asarray(result.legal)):
        rot, col = divmod(action, WIDTH)
        w, h = int(PIECE_WIDTH[piece, rot]), int(PIECE_HEIGHT[piece, rot])
        shape = {tuple(x) for x in PIECE_CELLS[piece, rot].tolist()}
        duplicate = any(
            {tuple(x) for x in PIECE_CELLS[piece, q].tolist()} == shape for q in range(rot)
        )
        fits = col + w <= WIDTH
        if fits:
            rest = max(heights[col + c] - min(r for r, cc in shape if cc == c) for c in range(w))
            fits = max(rest, 0) + h <= HEIGHT
        assert bool(legal) == (fits and not duplicate)
        if not legal:
            np.testing.assert_array_equal(np.asarray(result.boards[action]), board)
            assert int(result.lines[action]) == 0


def test_eroded_cells_count_the_placed_pieces_cells_in_cleared_rows() -> None:
    board = np.zeros((HEIGHT, WIDTH), np.uint8)
    board[0:2, 1:] = 1  # two rows missing only column 0
    result = _afterstates(jnp.asarray(board), jnp.int32(PIECE_NAMES.index("I")))
    vertical_left = 1 * WIDTH + 0
    assert int(result.lines[vertical_left]) == 2
    assert int(result.eroded_cells[vertical_left]) == 2
    after = np.asarray(result.boards[vertical_left])
    assert after[0:2, 0].all() and after.sum() == 2
