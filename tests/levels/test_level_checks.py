"""Schema, range and goal checks on pools coming back from the sandbox."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicode.domains.build_args import LevelBuildError
from dicode.domains.tetris.builder import LevelBuilder, make_builder
from dicode.domains.tetris.level_checks import LevelCheckError, check_pool, impossible_goal

Pool = dict[str, np.ndarray]


def _pool(k: int = 3, build: Callable[[LevelBuilder], None] | None = None) -> Pool:
    instances = []
    for i in range(k):
        level = make_builder(np.random.default_rng(i))
        if build is not None:
            build(level)
        instances.append(level.to_arrays())
    return {key: np.stack([inst[key] for inst in instances]) for key in instances[0]}


def test_a_builder_pool_passes_and_yields_its_goal() -> None:
    pool = _pool(build=lambda level: level.goal(lines=2, pieces=9))
    assert check_pool(pool) == {"lines": 2, "pieces": 9}


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda p: p.pop("sequence"), "pool fields"),
        (lambda p: p.update(board=p["board"].astype(np.int64)), "board: expected uint8"),
        (lambda p: p.update(board=p["board"][:, :19]), r"board: expected uint8 array of shape"),
        (lambda p: p["board"].__setitem__((0, 0, 0), 2), "cells must be 0"),
        (lambda p: p["piece_weights"].__setitem__((1, 0), np.nan), "finite and non-negative"),
        (lambda p: p["piece_weights"].__setitem__((1, 0), 0.9), "must sum to 1"),
        (lambda p: p["sequence"].__setitem__((0, 0), 7), "piece ids must be in 0..6"),
        (lambda p: p["sequence"].__setitem__((0, 5), 2), "padding may only follow"),
        (lambda p: p["board"].__setitem__((2, 4), 1), "instance 2: row 4 is full"),
        (lambda p: p["board"].__setitem__((1, 18, 6), 1), "instance 1: the spawn area"),
        (lambda p: p["goal_lines"].__setitem__(0, -1), "goal_lines: must be in 0..250"),
        (lambda p: p["goal_pieces"].__setitem__(0, 5000), "goal_pieces: must be in 0..1000"),
        (lambda p: p["goal_lines"].__setitem__(2, 3), "same goal"),
    ],
)
def test_damage_is_named(damage: Callable[[Pool], object], message: str) -> None:
    pool = _pool()
    damage(pool)
    with pytest.raises(LevelCheckError, match=message):
        check_pool(pool)


def test_impossible_goal_boundary() -> None:
    # 3 filled cells + 4 x 7 pieces = 31 cells: 3 lines (30 cells) reachable, 4 lines not.
    def board(level: LevelBuilder) -> None:
        for col in range(3):
            level.fill(0, col)

    reachable = _pool(build=lambda level: (board(level), level.goal(lines=3, pieces=7)))
    unreachable = _pool(build=lambda level: (board(level), level.goal(lines=4, pieces=7)))
    assert impossible_goal(reachable) is None
    problem = impossible_goal(unreachable)
    assert problem is not None and "4 lines within 7 pieces needs 40 cells" in problem
    assert impossible_goal(_pool(build=lambda level: level.goal(lines=200))) is None


_ops = st.one_of(
    st.tuples(st.just("fill"), st.integers(-2, 21), st.integers(-1, 10)),
    st.tuples(st.just("clear"), st.integers(0, 19), st.integers(0, 9)),
    st.tuples(st.just("garbage"), st.integers(0, 19), st.integers(0, 10)),
    st.tuples(st.just("well"), st.integers(0, 9), st.integers(0, 19)),
    st.tuples(st.just("column"), st.integers(0, 9), st.integers(0, 19)),
)


@settings(max_examples=200, deadline=None)
@given(ops=st.lists(_ops, max_size=12), seed=st.integers(0, 1000))
def test_builder_output_always_fits_the_schema_and_checks_match_the_rules(
    ops: list[tuple[str, int, int]], seed: int
) -> None:
    """Whatever a level does with the builder, the arrays have the schema's types, and
    ``check_pool`` rejects exactly the boards with a full row or a blocked spawn area."""
    level = make_builder(np.random.default_rng(seed))
    for name, a, b in ops:
        with contextlib.suppress(LevelBuildError):  # a rejected call leaves the board as it was
            getattr(level, name)(a, b)
    arrays = level.to_arrays()
    pool = {key: value[None] for key, value in arrays.items()}
    board = arrays["board"]
    breaks_rules = bool(board.all(axis=1).any() or board[18:, 3:7].any())
    if breaks_rules:
        with pytest.raises(LevelCheckError):
            check_pool(pool)
    else:
        assert check_pool(pool) == {"lines": 0, "pieces": 0}
