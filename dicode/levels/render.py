"""Render a level bundle's pool instances for people, as text or one PNG strip.

The one place that picks a renderer by domain: Tetris draws boards side by side, Craftax one
block per instance (goal and rules once, then each instance's player and map crop). The CLI's
``levels show`` and the API's level preview both come through here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image

from dicode.domains.craftax import render as craftax_render
from dicode.domains.craftax.level_checks import pool_to_bundle
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


def _tetris_text(bundle: LevelBundle, count: int) -> str:
    header = [f"goal: {_goal_text(bundle.goal)}", _pool_line(bundle)]
    blocks = []
    for index in range(count):
        instance = bundle.instance(index)
        board_lines = ascii_board(instance["board"]).splitlines()
        title = f"#{index}".ljust(len(board_lines[0]))
        blocks.append([title, *board_lines])
        header.append(f"#{index}: {_supply_text(instance['piece_weights'], instance['sequence'])}")
    rows = [GAP.join(block[i] for block in blocks) for i in range(len(blocks[0]))]
    return "\n".join(header) + "\n\n" + "\n".join(rows)


def _tetris_image(bundle: LevelBundle, index: int, cell: int) -> Image.Image:
    return board_image(bundle.instance(index)["board"], cell)


def _craftax_text(bundle: LevelBundle, count: int) -> str:
    # pool_to_bundle re-checks the stored arrays, so the renderer can index them safely.
    level = pool_to_bundle(bundle.pool)
    parts = ["\n".join([*craftax_render.level_header(level), _pool_line(bundle)])]
    for index in range(count):
        parts.append(f"#{index}\n" + craftax_render.render_instance_text(level, index))
    return "\n\n".join(parts)


def _craftax_image(bundle: LevelBundle, index: int, cell: int) -> Image.Image:
    return craftax_render.floor_image(pool_to_bundle(bundle.pool), index, max(cell // 2, 2))


def _pool_line(bundle: LevelBundle) -> str:
    return f"content hash {bundle.content_hash[:16]}  pool {bundle.pool_size} instances"


# Domain -> (text of the first ``count`` instances, image of one instance at ``cell`` pixels).
_RENDERERS: dict[
    str,
    tuple[Callable[[LevelBundle, int], str], Callable[[LevelBundle, int, int], Image.Image]],
] = {
    "tetris": (_tetris_text, _tetris_image),
    "craftax": (_craftax_text, _craftax_image),
}


def _renderers(
    bundle: LevelBundle,
) -> tuple[Callable[[LevelBundle, int], str], Callable[[LevelBundle, int, int], Image.Image]]:
    if bundle.domain not in _RENDERERS:
        raise ValueError(f"no renderer for domain {bundle.domain!r}")
    return _RENDERERS[bundle.domain]


def render_instances_text(bundle: LevelBundle, count: int | None = None) -> str:
    """Description, goal, and the first ``count`` instances of the pool (all by default).

    Raises ValueError for a domain without a renderer or a pool that fails the domain's checks.
    """
    text, _ = _renderers(bundle)
    count = bundle.pool_size if count is None else min(count, bundle.pool_size)
    return bundle.description + "\n" + text(bundle, count)


def render_instances_image(
    bundle: LevelBundle, count: int | None = None, cell: int = 16
) -> Image.Image:
    """The first ``count`` instances side by side, left to right, on a white strip."""
    _, image_of = _renderers(bundle)
    count = bundle.pool_size if count is None else min(count, bundle.pool_size)
    images = [image_of(bundle, i, cell) for i in range(count)]
    gap = cell
    strip = Image.new(
        "RGB",
        (sum(im.width for im in images) + gap * (count - 1), max(im.height for im in images)),
        (255, 255, 255),
    )
    x = 0
    for image in images:
        strip.paste(image, (x, 0))
        x += image.width + gap
    return strip


def render_instances_png(
    bundle: LevelBundle, path: str | Path, count: int | None = None, cell: int = 16
) -> Path:
    """``render_instances_image`` written to ``path`` as PNG."""
    target = Path(path)
    render_instances_image(bundle, count, cell).save(target, format="PNG")
    return target
