"""Render a level bundle's pool instances for people, as text or one PNG strip.

The world draws its instances (``Domain.render_text`` / ``render_image``); this module adds the
description and lays the images out. The CLI's ``levels show`` and the API's level preview both
come through here.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from dicode.levels.bundle import LevelBundle
from dicode.levels.world import LevelWorld


def render_instances_text(world: LevelWorld, bundle: LevelBundle, count: int | None = None) -> str:
    """Description, goal, and the first ``count`` instances of the pool (all by default), drawn
    by ``world``, the bundle's world.

    Raises ValueError for a pool that fails the world's checks.
    """
    count = bundle.pool_size if count is None else min(count, bundle.pool_size)
    return bundle.description + "\n" + world.render_text(bundle, count)


def render_instances_image(
    world: LevelWorld, bundle: LevelBundle, count: int | None = None, cell: int = 16
) -> Image.Image:
    """The first ``count`` instances side by side, left to right, on a white strip."""
    count = bundle.pool_size if count is None else min(count, bundle.pool_size)
    images = [world.render_image(bundle, i, cell) for i in range(count)]
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
    world: LevelWorld,
    bundle: LevelBundle,
    path: str | Path,
    count: int | None = None,
    cell: int = 16,
) -> Path:
    """``render_instances_image`` written to ``path`` as PNG."""
    target = Path(path)
    render_instances_image(world, bundle, count, cell).save(target, format="PNG")
    return target
