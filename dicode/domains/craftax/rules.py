"""The bounded rule multipliers a Craftax level may set, shared by the builder and the engine.

Each rule is a multiplier on one Craftax mechanic; 1.0 everywhere is the unmodified game.
The engine reads them as a float32 vector in the order of ``RULE_NAMES``. NumPy only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Rule:
    """One knob: its inclusive bounds and what it multiplies."""

    low: float
    high: float
    meaning: str


RULES: dict[str, Rule] = {
    "spawn_passive": Rule(
        0.0, 1.0, "chance that each natural spawn of a passive mob (cow, bat, snail) happens"
    ),
    "spawn_melee": Rule(0.0, 1.0, "chance that each natural spawn of a melee monster happens"),
    "spawn_ranged": Rule(0.0, 1.0, "chance that each natural spawn of a ranged monster happens"),
    "mob_health": Rule(
        0.25, 4.0, "health of every mob present at the start and of every mob spawned later"
    ),
    "mob_damage": Rule(0.0, 3.0, "damage that monsters and their projectiles deal to the player"),
    "needs_depletion": Rule(0.25, 3.0, "speed at which food, drink and energy run down"),
    "health_recover": Rule(
        0.25, 4.0, "speed of natural health regeneration while fed, watered and rested"
    ),
    "health_loss": Rule(0.25, 3.0, "speed of health loss while starving, thirsty or exhausted"),
    "mana_recover": Rule(0.25, 4.0, "speed of mana regeneration"),
}
RULE_NAMES: tuple[str, ...] = tuple(RULES)
NUM_RULES = len(RULE_NAMES)


def default_rules() -> np.ndarray:
    """The unmodified game: every multiplier 1.0."""
    return np.ones((NUM_RULES,), np.float32)


def check_rules(vector: np.ndarray) -> np.ndarray:
    """Validate a rule vector (shape, finiteness, bounds) and return it as float32."""
    vec = np.asarray(vector, dtype=np.float64)
    if vec.shape != (NUM_RULES,):
        raise ValueError(f"rule vector has shape {vec.shape}, expected ({NUM_RULES},)")
    for name, value in zip(RULE_NAMES, vec, strict=True):
        rule = RULES[name]
        if not np.isfinite(value) or not rule.low <= value <= rule.high:
            raise ValueError(f"rule {name}={value} outside [{rule.low}, {rule.high}]")
    return vec.astype(np.float32)
