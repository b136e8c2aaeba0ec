"""Renderers for people and judges: ASCII mazes and PNG pictures of pool instances.

Text: the 13×13 maze inside its border (``#``), free cells ``.``, the goal ``G`` and the agent
as an arrow showing where it faces (``>`` east, ``v`` south, ``<`` west, ``^`` north). Images:
walls dark, free cells light, the agent's 5×5 view lightly shaded, the goal green, the agent a
red triangle pointing where it faces.
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from dicode.domains.maze.grid import DIRECTIONS, MOVES, SIZE, VIEW, path_length
from dicode.levels.bundle import LevelBundle

ARROWS = ">v<^"
GAP = "   "


def ascii_maze(
    walls: np.ndarray, start: tuple[int, int], direction: int, goal: tuple[int, int]
) -> str:
    """One maze as text, top row first, with its border."""
    grid = np.where(np.asarray(walls, bool), "#", ".").astype("<U1")
    if 0 <= goal[0] < SIZE and 0 <= goal[1] < SIZE:
        grid[goal] = "G"
    if 0 <= start[0] < SIZE and 0 <= start[1] < SIZE:
        grid[start] = ARROWS[direction % 4]
    border = "#" * (SIZE + 2)
    return "\n".join([border, *("#" + "".join(row) + "#" for row in grid), border])


def _instance(
    bundle: LevelBundle, index: int
) -> tuple[np.ndarray, tuple[int, int], int, tuple[int, int]]:
    inst = bundle.instance(index)
    start = (int(inst["start_pos"][0]), int(inst["start_pos"][1]))
    goal = (int(inst["goal_pos"][0]), int(inst["goal_pos"][1]))
    return inst["walls"].astype(bool), start, int(inst["start_dir"]), goal


def instance_line(bundle: LevelBundle, index: int) -> str:
    """One instance in words: start, direction, goal, shortest path and wall count."""
    walls, start, direction, goal = _instance(bundle, index)
    length = path_length(walls, start, goal)
    path = "cut off" if length is None else f"{length} moves"
    return (
        f"#{index}: start {start} facing {DIRECTIONS[direction % 4]}, goal {goal}, "
        f"shortest path {path}, {int(walls.sum())} walls"
    )


def pool_text(bundle: LevelBundle, count: int) -> str:
    """Goal, the pool's size, each instance in words, then the mazes side by side."""
    header = [
        f"goal: reach G within {bundle.goal.get('max_steps', 0)} steps",
        bundle.identity_line(),
    ]
    blocks = []
    for index in range(count):
        walls, start, direction, goal = _instance(bundle, index)
        lines = ascii_maze(walls, start, direction, goal).splitlines()
        blocks.append([f"#{index}".ljust(len(lines[0])), *lines])
        header.append(instance_line(bundle, index))
    rows = [GAP.join(block[i] for block in blocks) for i in range(len(blocks[0]))]
    return "\n".join(header) + "\n\n" + "\n".join(rows)


def maze_image(
    walls: np.ndarray, start: tuple[int, int], direction: int, goal: tuple[int, int], cell: int = 16
) -> Image.Image:
    """One maze (with its border) as an RGB image, ``cell`` pixels per cell."""
    cell = max(int(cell), 4)
    side = (SIZE + 2) * cell
    image = Image.new("RGB", (side, side), (40, 40, 48))
    draw = ImageDraw.Draw(image)
    view = _view_cells(start, direction)
    grid = np.asarray(walls, bool)
    for r in range(SIZE):
        for c in range(SIZE):
            x, y = (c + 1) * cell, (r + 1) * cell
            box = (x, y, x + cell - 1, y + cell - 1)
            if grid[r, c]:
                colour = (70, 70, 82) if (r, c) in view else (40, 40, 48)
            else:
                colour = (205, 215, 235) if (r, c) in view else (235, 235, 235)
            draw.rectangle(box, fill=colour, outline=(200, 200, 200) if not grid[r, c] else None)
    if 0 <= goal[0] < SIZE and 0 <= goal[1] < SIZE:
        x, y = (goal[1] + 1) * cell, (goal[0] + 1) * cell
        draw.rectangle((x + 1, y + 1, x + cell - 2, y + cell - 2), fill=(40, 170, 70))
    if 0 <= start[0] < SIZE and 0 <= start[1] < SIZE:
        draw.polygon(_arrow(start, direction, cell), fill=(210, 40, 40))
    return image


def _view_cells(start: tuple[int, int], direction: int) -> set[tuple[int, int]]:
    forward, right = MOVES[direction % 4], MOVES[(direction + 1) % 4]
    cells = set()
    for ahead in range(VIEW):
        for side in range(-(VIEW // 2), VIEW // 2 + 1):
            cells.add(
                (start[0] + ahead * forward[0] + side * right[0],
                 start[1] + ahead * forward[1] + side * right[1])
            )  # fmt: skip
    return cells


def _arrow(start: tuple[int, int], direction: int, cell: int) -> list[tuple[float, float]]:
    cx, cy = (start[1] + 1.5) * cell, (start[0] + 1.5) * cell
    dr, dc = MOVES[direction % 4]
    half = cell * 0.4
    tip = (cx + dc * half, cy + dr * half)
    # The base is perpendicular to the facing direction.
    left = (cx - dc * half - dr * half, cy - dr * half + dc * half)
    right = (cx - dc * half + dr * half, cy - dr * half - dc * half)
    return [tip, left, right]


def pool_image(bundle: LevelBundle, index: int, cell: int) -> Image.Image:
    """Instance ``index`` of the pool."""
    walls, start, direction, goal = _instance(bundle, index)
    return maze_image(walls, start, direction, goal, cell)
