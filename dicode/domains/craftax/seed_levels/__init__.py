"""Hand-written Craftax seed levels: each module's docstring describes it; ``build(level, rng)``
edits a standard world through ``dicode.domains.craftax.builder.CraftaxLevel``."""

from __future__ import annotations

from functools import partial

from dicode.domains.folder import packaged_seed_source

SEED_LEVEL_NAMES: tuple[str, ...] = (
    "collect_basics",
    "craft_tools",
    "mine_iron",
    "fight_zombies",
    "survive_night",
    "descend",
    "target_game",
)

#: The source text of a seed level (what the sandbox runs and the archive stores).
seed_level_source = partial(packaged_seed_source, __name__, SEED_LEVEL_NAMES)
