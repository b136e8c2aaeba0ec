"""Renderers for people and judges: ASCII text and PNG images of a board (top row first)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from dicode.domains.tetris.engine import EnvState
from dicode.domains.tetris.schema import PIECE_NAMES
from dicode.levels.bundle import LevelBundle

FILLED, EMPTY, MARKED = "#", ".", "@"


def ascii_board(board: np.ndarray, highlight: np.ndarray | None = None) -> str:
    """The board as text: one line per row, top row first, walls and floor drawn.

    Filled cells where ``highlight`` (same shape, optional) is set are drawn as ``@`` — e.g. the
    piece just placed, for a judge.
    """
    cells = np.asarray(board)
    marks = np.zeros_like(cells, bool) if highlight is None else np.asarray(highlight, bool)
    symbols = np.where(cells > 0, np.where(marks, MARKED, FILLED), EMPTY)
    lines = ["|" + "".join(row) + "|" for row in symbols[::-1]]
    lines.append("+" + "-" * cells.shape[1] + "+")
    return "\n".join(lines)


def ascii_state(state: EnvState) -> str:
    """Board plus the current and preview pieces and the counters."""
    status = "game over" if bool(state.game_over) else "playing"
    header = (
        f"piece {PIECE_NAMES[int(state.piece)]}  next {PIECE_NAMES[int(state.next_piece)]}  "
        f"pieces {int(state.pieces)}  lines {int(state.lines)}  ({status})"
    )
    return header + "\n" + ascii_board(np.asarray(state.board))


def board_image(board: np.ndarray, cell: int = 24) -> Image.Image:
    """The board as an RGB image, ``cell`` pixels per cell, row 0 at the bottom."""
    cells = np.asarray(board)
    height, width = cells.shape
    image = Image.new("RGB", (width * cell + 1, height * cell + 1), (24, 24, 32))
    draw = ImageDraw.Draw(image)
    for row in range(height):
        y = (height - 1 - row) * cell  # flip: row 0 is drawn at the bottom
        for col in range(width):
            x = col * cell
            box = (x, y, x + cell, y + cell)
            if cells[row, col]:
                draw.rectangle(box, fill=(90, 160, 230), outline=(24, 24, 32))
            else:
                draw.rectangle(box, outline=(48, 48, 60))
    return image


def save_png(board: np.ndarray, path: str | Path, cell: int = 24) -> Path:
    """Write ``board_image`` to ``path`` (PNG) and return the path."""
    target = Path(path)
    board_image(board, cell).save(target, format="PNG")
    return target


GAP = "   "


def _goal_text(goal: dict[str, int]) -> str:
    lines, pieces = goal.get("lines", 0), goal.get("pieces", 0)
    if lines and pieces:
        return f"clear {lines} lines within {pieces} pieces"
    if lines:
        return f"clear {lines} lines"
    if pieces:
        return f"survive {pieces} pieces"
    return "standard game (no goal)"


def _supply_text(weights: np.ndarray, sequence: np.ndarray) -> str:
    mix = " ".join(f"{name}:{w:.2f}" for name, w in zip(PIECE_NAMES, weights, strict=True) if w)
    fixed = "".join(PIECE_NAMES[int(p)] for p in sequence if p >= 0)
    return f"pieces {mix}" + (f"; first {fixed}" if fixed else "")


def pool_text(bundle: LevelBundle, count: int) -> str:
    """Goal, the pool's size, each instance's piece supply, then the boards side by side."""
    header = [f"goal: {_goal_text(bundle.goal)}", bundle.identity_line()]
    blocks = []
    for index in range(count):
        instance = bundle.instance(index)
        board_lines = ascii_board(instance["board"]).splitlines()
        title = f"#{index}".ljust(len(board_lines[0]))
        blocks.append([title, *board_lines])
        header.append(f"#{index}: {_supply_text(instance['piece_weights'], instance['sequence'])}")
    rows = [GAP.join(block[i] for block in blocks) for i in range(len(blocks[0]))]
    return "\n".join(header) + "\n\n" + "\n".join(rows)


def pool_image(bundle: LevelBundle, index: int, cell: int) -> Image.Image:
    """Instance ``index``'s start board."""
    return board_image(bundle.instance(index)["board"], cell)
