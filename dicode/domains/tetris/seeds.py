"""The hand-written seed levels shipped with the Tetris domain (easy to the target game)."""

from __future__ import annotations

from pathlib import Path

SEED_LEVEL_DIR = Path(__file__).with_name("seed_levels")
#: The seed level that is the target game itself (empty board, default goal).
TARGET_LEVEL_FILE = SEED_LEVEL_DIR / "11_target_game.py"


def seed_level_paths() -> list[Path]:
    """Seed level files in curriculum order (their names start with a two-digit rank)."""
    return sorted(SEED_LEVEL_DIR.glob("[0-9][0-9]_*.py"))


def seed_level_sources() -> dict[str, str]:
    """Seed level sources by file stem."""
    return {path.stem: path.read_text(encoding="utf-8") for path in seed_level_paths()}
