"""Hand-written Craftax seed levels: each module's docstring describes it; ``build(level, rng)``
edits a standard world through ``dicode.domains.craftax.builder.CraftaxLevel``."""

from __future__ import annotations

from importlib import resources

SEED_LEVEL_NAMES: tuple[str, ...] = (
    "collect_basics",
    "craft_tools",
    "mine_iron",
    "fight_zombies",
    "survive_night",
    "descend",
    "target_game",
)


def seed_level_source(name: str) -> str:
    """The source text of a seed level (what the sandbox runs and the archive stores)."""
    if name not in SEED_LEVEL_NAMES:
        raise KeyError(f"unknown Craftax seed level {name!r}; known: {SEED_LEVEL_NAMES}")
    return resources.files(__package__).joinpath(f"{name}.py").read_text(encoding="utf-8")
