"""Hand-written maze seed levels, easy first, the target game last: each module's docstring
describes it; ``build(level, rng)`` edits a ``dicode.domains.maze.builder.MazeLevel``."""

from __future__ import annotations

from importlib import resources

SEED_LEVEL_NAMES: tuple[str, ...] = (
    "empty_room",
    "open_room",
    "wall_in_the_way",
    "corridor",
    "winding_corridor",
    "side_pockets",
    "two_rooms",
    "small_labyrinth",
    "scattered_walls",
    "target_game",
)


def seed_level_source(name: str) -> str:
    """The source text of a seed level (what the sandbox runs and the archive stores)."""
    if name not in SEED_LEVEL_NAMES:
        raise KeyError(f"unknown maze seed level {name!r}; known: {SEED_LEVEL_NAMES}")
    return resources.files(__package__).joinpath(f"{name}.py").read_text(encoding="utf-8")
