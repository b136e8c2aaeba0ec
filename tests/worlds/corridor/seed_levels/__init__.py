"""Hand-written corridor seed levels, easy first, the target game last."""

from __future__ import annotations

from dicode.domains.folder import packaged_seed_source

SEED_LEVEL_NAMES: tuple[str, ...] = ("short_walk", "walled_room", "target_game")


def seed_level_source(name: str) -> str:
    """The source text of a seed level (what the sandbox runs and the archive stores)."""
    return packaged_seed_source(__name__, SEED_LEVEL_NAMES, name)
