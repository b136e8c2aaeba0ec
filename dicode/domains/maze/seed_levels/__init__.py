"""Hand-written maze seed levels, easy first, the target game last: each module's docstring
describes it; ``build(level, rng)`` edits a ``dicode.domains.maze.builder.MazeLevel``."""

from __future__ import annotations

from functools import partial

from dicode.domains.folder import packaged_seed_source

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

#: The source text of a seed level (what the sandbox runs and the archive stores).
seed_level_source = partial(packaged_seed_source, __name__, SEED_LEVEL_NAMES)
