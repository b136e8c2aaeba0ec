"""Hand-written corridor seed levels, easy first, the target game last."""

from __future__ import annotations

from importlib import resources

SEED_LEVEL_NAMES: tuple[str, ...] = ("short_walk", "walled_room", "target_game")


def seed_level_source(name: str) -> str:
    """The source text of a seed level (what the sandbox runs and the archive stores)."""
    if name not in SEED_LEVEL_NAMES:
        raise KeyError(f"unknown corridor seed level {name!r}; known: {SEED_LEVEL_NAMES}")
    return resources.files(__package__).joinpath(f"{name}.py").read_text(encoding="utf-8")
