"""Renderers for people and judges: ASCII text and PNG images of a board (top row first)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from dicode.domains.tetris.engine import EnvState
from dicode.domains.tetris.schema import PIECE_NAMES

FILLED, EMPTY = "#", "."


def ascii_board(board: np.ndarray) -> str:
    """The board as text: one line per row, top row first, walls and floor drawn."""
    cells = np.asarray(board)
    lines = ["|" + "".join(FILLED if v else EMPTY for v in row) + "|" for row in cells[::-1]]
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
