"""The maze renderers: text with border, arrow and goal; PNG images with the right size."""

from __future__ import annotations

import numpy as np

from dicode import domains
from dicode.domains.maze.builder import MazeLevel
from dicode.domains.maze.generate import stack
from dicode.domains.maze.grid import SIZE
from dicode.domains.maze.heldout import held_out_mazes
from dicode.domains.maze.render import ascii_maze, maze_image
from dicode.levels.bundle import LevelBundle


def bundle() -> LevelBundle:
    levels = []
    for direction in ("east", "north"):
        level = MazeLevel(np.random.default_rng(0))
        level.line(2, 0, 2, 10)
        level.start(0, 0, direction)
        level.goal(4, 0)
        levels.append(level.to_arrays())
    return LevelBundle("maze", "Test maze.", {"reach_goal": 1, "max_steps": 250}, {},
                       stack(levels), "src", "maze-builder/1")  # fmt: skip


def test_ascii_maze_draws_border_walls_agent_and_goal() -> None:
    walls = np.zeros((SIZE, SIZE), bool)
    walls[1, 1] = True
    text = ascii_maze(walls, (0, 0), 1, (12, 12)).splitlines()
    assert len(text) == SIZE + 2 and all(len(line) == SIZE + 2 for line in text)
    assert text[0] == "#" * (SIZE + 2) and text[-1] == text[0]
    assert text[1][1] == "v" and text[2][2] == "#" and text[13][13] == "G"


def test_pool_text_lists_instances_side_by_side() -> None:
    text = domains.get("maze").render_text(bundle(), 2)
    assert text.startswith("goal: reach G within 250 steps")
    assert "#0: start (0, 0) facing east, goal (4, 0), shortest path 26 moves, 11 walls" in text
    assert "#1: start (0, 0) facing north" in text
    maze_rows = text.split("\n\n", 1)[1].splitlines()
    assert len(maze_rows) == SIZE + 3  # titles + border + grid + border
    assert "#>" in maze_rows[2] and "#^" in maze_rows[2]


def test_images_have_the_expected_size_and_colours() -> None:
    image = domains.get("maze").render_image(bundle(), 1, 10)
    assert image.size == ((SIZE + 2) * 10, (SIZE + 2) * 10)
    pixels = np.asarray(image)
    goal_centre = pixels[(4 + 1) * 10 + 5, (0 + 1) * 10 + 5]
    agent_centre = pixels[(0 + 1) * 10 + 5, (0 + 1) * 10 + 5]
    assert tuple(goal_centre) == (40, 170, 70)
    assert tuple(agent_centre) == (210, 40, 40)


def test_every_held_out_maze_renders() -> None:
    for maze in held_out_mazes():
        image = maze_image(maze.walls, maze.start, ("east", "south", "west", "north").index(
            maze.direction), maze.goal, 8)  # fmt: skip
        assert image.size == ((SIZE + 2) * 8,) * 2
