"""Render a level bundle's pool instances for people: ASCII side by side, or one PNG strip."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from dicode.domains.tetris.render import ascii_board, board_image
from dicode.domains.tetris.schema import PIECE_NAMES
from dicode.levels.bundle import LevelBundle

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


def render_instances_text(bundle: LevelBundle, count: int | None = None) -> str:
    """Description, goal, and the first ``count`` instances' boards side by side (top row first)."""
    if bundle.domain != "tetris":
        raise ValueError(f"no renderer for domain {bundle.domain!r}")
    count = bundle.pool_size if count is None else min(count, bundle.pool_size)
    header = [
        bundle.description,
        f"goal: {_goal_text(bundle.goal)}",
        f"content hash {bundle.content_hash[:16]}  pool {bundle.pool_size} instances",
    ]
    blocks = []
    for index in range(count):
        instance = bundle.instance(index)
        board_lines = ascii_board(instance["board"]).splitlines()
        title = f"#{index}".ljust(len(board_lines[0]))
        blocks.append([title, *board_lines])
        header.append(f"#{index}: {_supply_text(instance['piece_weights'], instance['sequence'])}")
    rows = [GAP.join(block[i] for block in blocks) for i in range(len(blocks[0]))]
    return "\n".join(header) + "\n\n" + "\n".join(rows)


def render_instances_png(
    bundle: LevelBundle, path: str | Path, count: int | None = None, cell: int = 16
) -> Path:
    """The first ``count`` instances' boards in one PNG strip, left to right."""
    if bundle.domain != "tetris":
        raise ValueError(f"no renderer for domain {bundle.domain!r}")
    count = bundle.pool_size if count is None else min(count, bundle.pool_size)
    images = [board_image(bundle.instance(i)["board"], cell) for i in range(count)]
    gap = cell
    strip = Image.new(
        "RGB",
        (sum(im.width for im in images) + gap * (count - 1), images[0].height),
        (255, 255, 255),
    )
    x = 0
    for image in images:
        strip.paste(image, (x, 0))
        x += image.width + gap
    target = Path(path)
    strip.save(target, format="PNG")
    return target
