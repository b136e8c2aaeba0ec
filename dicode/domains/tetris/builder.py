"""The Tetris level builder: the API a level's ``build(level, rng)`` function edits.

A Tetris level is one Python module. Its docstring describes the level; it defines
``build(level, rng)``, which is called once per pool instance with a fresh ``LevelBuilder`` as
``level`` and a seeded ``numpy.random.Generator`` as ``rng``. ``build`` edits ``level``; its
return value is ignored. Level code may import only ``math``, ``itertools``, ``functools``,
``collections`` and ``numpy``.

This module imports only NumPy and the standard library on purpose: it runs inside the sandbox
worker, where importing JAX would cost seconds per level. Its arrays follow
``dicode.domains.tetris.schema.TetrisLevel`` field for field.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Mapping
from numbers import Real

import numpy as np

from dicode.domains.api_docs import render_builder_api
from dicode.domains.build_args import check_int, fail
from dicode.domains.tetris.constants import BOARD_HEIGHT, BOARD_WIDTH, MAX_SEQUENCE, PIECE_NAMES

#: Version of the builder contract; stored in every level bundle's provenance.
BUILDER_VERSION = "tetris-builder/1"

#: Pieces enter in the top SPAWN_ROWS rows, columns SPAWN_COLS[0]..SPAWN_COLS[1]-1; those cells
#: must be empty at the start of every level.
SPAWN_ROWS = 2
SPAWN_COLS = (3, 7)

#: Largest goals a level may set.
MAX_GOAL_LINES = 250
MAX_GOAL_PIECES = 1000

CELLS_PER_PIECE = 4


class LevelBuilder:
    """The start of one Tetris game: a 10-wide, 20-tall board plus the piece supply and goal.

    Coordinates: ``row`` 0 is the **bottom** row and ``row`` 19 the top; ``col`` 0 is the
    leftmost column and ``col`` 9 the rightmost. A new builder holds the standard game: an
    empty board, the seven pieces "IOTSZJL" drawn uniformly at random, and no goal (play until
    the board tops out).

    Rules every finished level must satisfy (checked after ``build`` returns):
    no row may be completely full; the spawn area (the top 2 rows, columns 3..6) must be
    empty; a goal of ``lines`` within ``pieces`` must be reachable (each piece adds 4 cells,
    each line needs 10).

    Every method raises ``LevelBuildError`` naming the method and the bad value when an
    argument is out of range or of the wrong type.
    """

    __slots__ = ("_board", "_goal_lines", "_goal_pieces", "_rng", "_sequence", "_weights")

    def __init__(self, rng: np.random.Generator) -> None:
        self._rng = rng
        self._board = np.zeros((BOARD_HEIGHT, BOARD_WIDTH), np.uint8)
        self._weights = np.full(len(PIECE_NAMES), 1.0 / len(PIECE_NAMES), np.float64)
        self._sequence: list[int] = []
        self._goal_lines = 0
        self._goal_pieces = 0

    @property
    def height(self) -> int:
        """Number of rows (20)."""
        return BOARD_HEIGHT

    @property
    def width(self) -> int:
        """Number of columns (10)."""
        return BOARD_WIDTH

    def fill(self, row: int, col: int) -> None:
        """Fill the cell at ``row`` (0 = bottom .. 19 = top), ``col`` (0 = left .. 9 = right)."""
        r = check_int("fill", "row", row, 0, BOARD_HEIGHT - 1)
        c = check_int("fill", "col", col, 0, BOARD_WIDTH - 1)
        self._board[r, c] = 1

    def clear(self, row: int, col: int) -> None:
        """Empty the cell at ``row`` (0 = bottom .. 19 = top), ``col`` (0 = left .. 9 = right)."""
        r = check_int("clear", "row", row, 0, BOARD_HEIGHT - 1)
        c = check_int("clear", "col", col, 0, BOARD_WIDTH - 1)
        self._board[r, c] = 0

    def is_filled(self, row: int, col: int) -> bool:
        """True if the cell at ``row``, ``col`` is filled."""
        r = check_int("is_filled", "row", row, 0, BOARD_HEIGHT - 1)
        c = check_int("is_filled", "col", col, 0, BOARD_WIDTH - 1)
        return bool(self._board[r, c])

    def row(self, row: int, cells: str) -> None:
        """Set a whole row from a 10-character picture: ``"#"`` or ``"X"`` filled, ``"."`` empty.

        Example: ``level.row(0, "####.#####")`` fills the bottom row except column 4.
        """
        r = check_int("row", "row", row, 0, BOARD_HEIGHT - 1)
        if not isinstance(cells, str) or len(cells) != BOARD_WIDTH:
            raise fail("row", f"cells must be a string of {BOARD_WIDTH} characters, got {cells!r}")
        bad = sorted(set(cells) - set("#X."))
        if bad:
            raise fail("row", f"cells may contain only '#', 'X' and '.', got {bad[0]!r}")
        self._board[r] = [ch != "." for ch in cells]

    def column(self, col: int, height: int) -> None:
        """Fill column ``col`` from the bottom up to ``height`` cells (rows 0..height-1)."""
        c = check_int("column", "col", col, 0, BOARD_WIDTH - 1)
        h = check_int("column", "height", height, 0, BOARD_HEIGHT - SPAWN_ROWS)
        self._board[:h, c] = 1

    def garbage(self, rows: int, holes: int = 1) -> None:
        """Push ``rows`` garbage rows in at the bottom, shifting the board up.

        Each new row is full except ``holes`` empty cells at distinct random columns (drawn
        from the builder's own seeded generator). Filled cells may not be pushed off the top.
        """
        n = check_int("garbage", "rows", rows, 1, BOARD_HEIGHT - SPAWN_ROWS)
        k = check_int("garbage", "holes", holes, 1, BOARD_WIDTH - 1)
        if self._board[BOARD_HEIGHT - n :].any():
            raise fail(
                "garbage", f"pushing {n} rows would push filled cells off the top of the board"
            )
        new_rows = np.ones((n, BOARD_WIDTH), np.uint8)
        for i in range(n):
            new_rows[i, self._rng.choice(BOARD_WIDTH, size=k, replace=False)] = 0
        self._board = np.concatenate([new_rows, self._board[: BOARD_HEIGHT - n]])

    def well(self, col: int, depth: int) -> None:
        """Push ``depth`` rows in at the bottom, each full except column ``col`` (a well).

        Example: ``level.well(9, 4)`` leaves a 4-deep well on the right for an I piece.
        """
        c = check_int("well", "col", col, 0, BOARD_WIDTH - 1)
        d = check_int("well", "depth", depth, 1, BOARD_HEIGHT - SPAWN_ROWS)
        if self._board[BOARD_HEIGHT - d :].any():
            raise fail(
                "well", f"pushing {d} rows would push filled cells off the top of the board"
            )
        new_rows = np.ones((d, BOARD_WIDTH), np.uint8)
        new_rows[:, c] = 0
        self._board = np.concatenate([new_rows, self._board[: BOARD_HEIGHT - d]])

    def pieces(self, weights: Mapping[str, float]) -> None:
        """Set the weighted random piece draw, e.g. ``level.pieces({"I": 2, "O": 1})``.

        ``weights`` maps piece letters from ``"IOTSZJL"`` to non-negative numbers; missing
        letters get 0 and at least one weight must be positive. Weights are normalised.
        """
        if not isinstance(weights, Mapping):
            raise fail("pieces", f"weights must be a dict over 'IOTSZJL', got {weights!r}")
        values = np.zeros(len(PIECE_NAMES), np.float64)
        for key, value in weights.items():
            if not isinstance(key, str) or key not in PIECE_NAMES or len(key) != 1:
                raise fail("pieces", f"unknown piece {key!r}; use letters from 'IOTSZJL'")
            if isinstance(value, bool) or not isinstance(value, Real):
                raise fail("pieces", f"weight of {key!r} must be a number, got {value!r}")
            number = float(value)
            if not math.isfinite(number) or number < 0:
                raise fail("pieces", f"weight of {key!r} must be finite and >= 0, got {number}")
            values[PIECE_NAMES.index(key)] = number
        total = values.sum()
        if not total > 0 or not math.isfinite(total):
            raise fail("pieces", f"at least one weight must be positive, got {dict(weights)!r}")
        self._weights = values / total

    def sequence(self, pieces: str) -> None:
        """Fix the first pieces, e.g. ``level.sequence("IIOT")``; the weighted draw follows.

        At most 64 letters from ``"IOTSZJL"``; ``""`` removes a fixed sequence.
        """
        if not isinstance(pieces, str):
            raise fail("sequence", f"pieces must be a string such as 'IIOT', got {pieces!r}")
        if len(pieces) > MAX_SEQUENCE:
            raise fail("sequence", f"at most {MAX_SEQUENCE} pieces, got {len(pieces)}")
        for ch in pieces:
            if ch not in PIECE_NAMES:
                raise fail("sequence", f"unknown piece {ch!r}; use letters from 'IOTSZJL'")
        self._sequence = [PIECE_NAMES.index(ch) for ch in pieces]

    def goal(self, lines: int | None = None, pieces: int | None = None) -> None:
        """Set the success condition.

        - ``goal(lines=L, pieces=P)``: clear ``L`` lines within ``P`` pieces;
        - ``goal(lines=L)``: clear ``L`` lines (no piece limit);
        - ``goal(pieces=P)``: survive ``P`` pieces without topping out;
        - ``goal()``: the standard game (no success condition; play until the board tops out).

        ``lines`` is 1..250 and ``pieces`` 1..1000.
        """
        self._goal_lines = (
            0 if lines is None else check_int("goal", "lines", lines, 1, MAX_GOAL_LINES)
        )
        self._goal_pieces = (
            0 if pieces is None else check_int("goal", "pieces", pieces, 1, MAX_GOAL_PIECES)
        )

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The instance as arrays in the ``TetrisLevel`` schema (called after ``build``)."""
        sequence = np.full(MAX_SEQUENCE, -1, np.int32)
        sequence[: len(self._sequence)] = self._sequence
        return {
            "board": self._board.astype(np.uint8),
            "piece_weights": self._weights.astype(np.float32),
            "sequence": sequence,
            "goal_lines": np.asarray(self._goal_lines, np.int32),
            "goal_pieces": np.asarray(self._goal_pieces, np.int32),
        }


def make_builder(rng: np.random.Generator) -> LevelBuilder:
    """A fresh builder holding the standard game; ``rng`` serves ``garbage`` hole columns."""
    return LevelBuilder(rng)


_BOUNDS = f"""\
Bounds: board {BOARD_HEIGHT} rows x {BOARD_WIDTH} columns, row 0 = bottom, col 0 = left;
fixed sequence at most {MAX_SEQUENCE} pieces; goal lines 1..{MAX_GOAL_LINES},
goal pieces 1..{MAX_GOAL_PIECES}; spawn area = top {SPAWN_ROWS} rows, columns
{SPAWN_COLS[0]}..{SPAWN_COLS[1] - 1} (must stay empty); no full rows at the start.
Allowed imports: math, itertools, functools, collections, numpy."""


def builder_api_docs() -> str:
    """The builder API documentation for prompts, rendered from this module's docstrings."""
    # The module docstring's first two paragraphs state the contract; the rest is for maintainers.
    contract = "\n\n".join(inspect.cleandoc(__doc__ or "").split("\n\n")[:2])
    return render_builder_api(contract, LevelBuilder, _BOUNDS, skip=("to_arrays",))


def prompt_facts() -> dict[str, str]:
    """Game facts the Tetris prompt templates name (``$board_width`` and so on)."""
    return {
        "board_width": str(BOARD_WIDTH),
        "board_height": str(BOARD_HEIGHT),
        "piece_names": " ".join(PIECE_NAMES),
    }
