"""The Tetris level builder: the contract level code relies on."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dicode.domains.build_args import LevelBuildError
from dicode.domains.tetris import builder as tetris_builder
from dicode.domains.tetris import schema
from dicode.domains.tetris.builder import builder_api_docs, make_builder


def _fresh(seed: int = 0) -> tetris_builder.LevelBuilder:
    return make_builder(np.random.default_rng(seed))


def test_a_fresh_builder_is_the_target_game() -> None:
    arrays = _fresh().to_arrays()
    target = schema.target_level()
    for key, value in arrays.items():
        expected = np.asarray(getattr(target, key))
        assert value.dtype == expected.dtype and value.shape == expected.shape, key
        np.testing.assert_allclose(value, expected, err_msg=key)


def test_row_zero_is_the_bottom_and_col_zero_the_left() -> None:
    level = _fresh()
    level.fill(0, 0)
    level.row(1, "#.........")
    board = level.to_arrays()["board"]
    assert board[0, 0] == 1 and board[1, 0] == 1 and board.sum() == 2
    level.clear(0, 0)
    assert not level.is_filled(0, 0)


@given(rows=st.integers(1, 18), holes=st.integers(1, 9), seed=st.integers(0, 2**32 - 1))
def test_garbage_rows_have_exactly_the_requested_holes(rows: int, holes: int, seed: int) -> None:
    level = _fresh(seed)
    level.garbage(rows, holes=holes)
    board = level.to_arrays()["board"]
    assert (board[:rows].sum(axis=1) == 10 - holes).all()
    assert board[rows:].sum() == 0


def test_garbage_pushes_the_board_up_and_refuses_to_push_cells_off_the_top() -> None:
    level = _fresh()
    level.fill(0, 5)
    level.garbage(2)
    assert level.is_filled(2, 5)
    level.fill(17, 0)
    with pytest.raises(LevelBuildError, match=r"level\.garbage: pushing 3 rows"):
        level.garbage(3)


def test_well_leaves_one_column_open() -> None:
    level = _fresh()
    level.well(9, 4)
    board = level.to_arrays()["board"]
    assert (board[:4, :9] == 1).all() and (board[:, 9] == 0).all() and board[4:].sum() == 0


def test_pieces_are_normalised_in_iotszjl_order() -> None:
    level = _fresh()
    level.pieces({"I": 3, "L": 1})
    weights = level.to_arrays()["piece_weights"]
    np.testing.assert_allclose(weights, [0.75, 0, 0, 0, 0, 0, 0.25])


def test_sequence_is_padded_with_minus_one() -> None:
    level = _fresh()
    level.sequence("IOL")
    assert level.to_arrays()["sequence"][:5].tolist() == [0, 1, 6, -1, -1]


def test_goal_defaults_and_both_parts() -> None:
    level = _fresh()
    level.goal(lines=3, pieces=20)
    arrays = level.to_arrays()
    assert (int(arrays["goal_lines"]), int(arrays["goal_pieces"])) == (3, 20)
    level.goal()
    arrays = level.to_arrays()
    assert (int(arrays["goal_lines"]), int(arrays["goal_pieces"])) == (0, 0)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda b: b.fill(20, 0), r"level\.fill: row must be in 0\.\.19, got 20"),
        (lambda b: b.fill(0, -1), r"level\.fill: col must be in 0\.\.9, got -1"),
        (lambda b: b.fill(1.5, 0), r"level\.fill: row must be an integer"),
        (lambda b: b.clear(True, 0), r"level\.clear: row must be an integer"),
        (lambda b: b.garbage(0), r"level\.garbage: rows must be in 1\.\.18, got 0"),
        (lambda b: b.garbage(2, holes=10), r"level\.garbage: holes must be in 1\.\.9, got 10"),
        (lambda b: b.pieces({"Q": 1}), r"level\.pieces: unknown piece 'Q'"),
        (lambda b: b.pieces({"I": -1}), r"level\.pieces: weight of 'I' must be finite and >= 0"),
        (lambda b: b.pieces({"I": 0}), r"level\.pieces: at least one weight must be positive"),
        (lambda b: b.pieces(["I"]), r"level\.pieces: weights must be a dict"),
        (lambda b: b.pieces({"I": float("nan")}), r"level\.pieces: weight of 'I' must be finite"),
        (lambda b: b.sequence("IIX"), r"level\.sequence: unknown piece 'X'"),
        (lambda b: b.sequence("I" * 65), r"level\.sequence: at most 64 pieces, got 65"),
        (lambda b: b.sequence(["I"]), r"level\.sequence: pieces must be a string"),
        (lambda b: b.goal(lines=0), r"level\.goal: lines must be in 1\.\.250, got 0"),
        (lambda b: b.goal(pieces=5000), r"level\.goal: pieces must be in 1\.\.1000, got 5000"),
        (lambda b: b.row(0, "###"), r"level\.row: cells must be a string of 10 characters"),
        (lambda b: b.row(0, "#########?"), r"level\.row: cells may contain only"),
        (lambda b: b.well(10, 2), r"level\.well: col must be in 0\.\.9, got 10"),
        (lambda b: b.column(0, 19), r"level\.column: height must be in 0\.\.18, got 19"),
    ],
)
def test_bad_arguments_name_the_method_and_value(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(LevelBuildError, match=message):
        call(_fresh())


def test_numpy_integers_are_accepted() -> None:
    level = _fresh()
    level.fill(np.int64(3), np.int32(4))
    assert level.is_filled(3, 4)


def test_api_docs_cover_every_public_method_with_plain_signatures() -> None:
    docs = builder_api_docs()
    for name in ("fill", "clear", "garbage", "pieces", "sequence", "goal", "row", "well", "column"):
        assert f"level.{name}(" in docs
    assert "level.fill(row: int, col: int) -> None" in docs
    assert "row 0 = bottom" in docs and "IOTSZJL" in docs
    assert "to_arrays" not in docs and "_board" not in docs
