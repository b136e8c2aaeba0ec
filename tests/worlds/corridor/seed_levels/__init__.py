"""Hand-written corridor seed levels, easy first, the target game last."""

from __future__ import annotations

from functools import partial

from dicode.domains.folder import packaged_seed_source

SEED_LEVEL_NAMES: tuple[str, ...] = ("short_walk", "walled_room", "target_game")

#: The source text of a seed level (what the sandbox runs and the archive stores).
seed_level_source = partial(packaged_seed_source, __name__, SEED_LEVEL_NAMES)
