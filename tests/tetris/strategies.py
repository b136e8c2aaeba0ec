"""Shared strategies for the Tetris tests: random boards with row 0 at the bottom."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

HEIGHT, WIDTH = 20, 10


@st.composite
def boards(draw: st.DrawFn, height: int = HEIGHT, width: int = WIDTH) -> np.ndarray:
    """A board with a ragged stack: per column a height, cells below it filled with holes."""
    tops = draw(st.lists(st.integers(0, height), min_size=width, max_size=width))
    density = draw(st.sampled_from([0.6, 0.85, 1.0]))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    board = np.zeros((height, width), np.uint8)
    for col, top in enumerate(tops):
        board[:top, col] = rng.random(top) < density
        if top:
            board[top - 1, col] = 1  # the column really reaches its height
    return board
