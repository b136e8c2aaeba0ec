"""Every domain's hand-written seed levels, by name: what a generator puts in a new archive."""

from __future__ import annotations

DOMAINS = ("tetris", "craftax")


def seed_sources(domain: str) -> dict[str, str]:
    """Seed level sources of ``domain`` by name (each one's docstring describes it)."""
    if domain == "tetris":
        from dicode.domains.tetris.seeds import seed_level_sources

        return seed_level_sources()
    if domain == "craftax":
        from dicode.domains.craftax.seed_levels import SEED_LEVEL_NAMES, seed_level_source

        return {name: seed_level_source(name) for name in SEED_LEVEL_NAMES}
    raise ValueError(f"unknown domain {domain!r}; known: {', '.join(DOMAINS)}")
