"""Corridor levels for people: a line of text or a strip of cells per instance."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from dicode.levels.bundle import LevelBundle

_COLOURS = {".": (235, 235, 235), "#": (40, 40, 40), "S": (200, 40, 40), "G": (40, 160, 60)}


def instance_text(bundle: LevelBundle, index: int) -> str:
    """``#`` walls, ``.`` free cells, ``S`` the start, ``G`` the goal."""
    inst = bundle.instance(index)
    row = np.where(inst["cells"] == 1, "#", ".").astype("<U1")
    row[int(inst["start"])], row[int(inst["goal"])] = "S", "G"
    return "".join(row)


def pool_text(bundle: LevelBundle, count: int) -> str:
    shown = min(count, bundle.pool_size)
    return "\n".join(f"{i:>3} {instance_text(bundle, i)}" for i in range(shown))


def pool_image(bundle: LevelBundle, index: int, cell: int) -> Image.Image:
    text = instance_text(bundle, index)
    image = Image.new("RGB", (cell * len(text), cell))
    draw = ImageDraw.Draw(image)
    for i, ch in enumerate(text):
        draw.rectangle([i * cell, 0, (i + 1) * cell - 1, cell - 1], fill=_COLOURS[ch])
    return image
