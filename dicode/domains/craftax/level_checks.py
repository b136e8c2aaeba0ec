"""Checks on a pool of Craftax level instances coming back from the sandbox (NumPy only).

Nothing from the sandbox is trusted: the stacked arrays (state fields + ``rules`` + ``goal``)
are validated again here against the schema, the rule bounds and the goal rules, and turned
into a ``CraftaxBundle``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from dicode.domains.craftax.builder import MAX_ATTRIBUTE, MAX_INVENTORY, MAX_TOOL_TIER
from dicode.domains.craftax.bundle import BundleError, CraftaxBundle, make_bundle
from dicode.domains.craftax.catalog import (
    ACHIEVEMENT_IDS,
    ACHIEVEMENT_NAMES,
    BLOCK_NAMES,
    MAP_SIZE,
    MOB_CAPS,
    MOB_CLASSES,
    MOB_HEALTH,
    MOB_KILL_ACHIEVEMENTS,
    MOB_KINDS,
    NUM_FLOORS,
)
from dicode.domains.craftax.rules import NUM_RULES, RULE_NAMES
from dicode.domains.craftax.schema import FIELD_NAMES, STATE_FIELDS

#: The sandbox's answer schema: the state fields plus the level's rules and goal, per instance.
POOL_SCHEMA: dict[str, tuple[np.dtype, tuple[int, ...]]] = {
    **{name: (dtype, shape) for name, shape, dtype in STATE_FIELDS},
    "rules": (np.dtype(np.float32), (NUM_RULES,)),
    "goal": (np.dtype(bool), (len(ACHIEVEMENT_NAMES),)),
}
_LEVEL_KEYS = frozenset(POOL_SCHEMA)


class LevelCheckError(ValueError):
    """A pool breaks the Craftax state schema or the level rules; the message says where."""


def pool_to_bundle(pool: Mapping[str, np.ndarray]) -> CraftaxBundle:
    """Validate a stacked pool (K instances) and return it as a ``CraftaxBundle``."""
    if set(pool) != _LEVEL_KEYS:
        missing, extra = sorted(_LEVEL_KEYS - set(pool)), sorted(set(pool) - _LEVEL_KEYS)
        raise LevelCheckError(
            f"pool fields differ from the schema: missing={missing} extra={extra}"
        )
    rules, goal = np.asarray(pool["rules"]), np.asarray(pool["goal"])
    if rules.ndim != 2 or goal.ndim != 2 or len(rules) != len(goal) or len(rules) < 1:
        raise LevelCheckError(
            f"rules/goal: expected (K, R) and (K, 67), got {rules.shape} {goal.shape}"
        )
    if not (rules == rules[:1]).all():
        raise LevelCheckError("rules differ between instances: rules must not depend on rng")
    if not (goal == goal[:1]).all():
        raise LevelCheckError("goal differs between instances: the goal must not depend on rng")
    state = {name: np.asarray(pool[name]) for name in FIELD_NAMES}
    try:
        bundle = make_bundle(state, rules[0], goal[0])
    except BundleError as exc:
        raise LevelCheckError(str(exc)) from None
    if not bundle.goal.any():
        raise LevelCheckError("goal: a level needs at least one goal achievement")
    for mob_class in MOB_CLASSES:
        counts = bundle.pool[f"{mob_class}_mobs.mask"].sum(axis=2)
        if (counts > MOB_CAPS[mob_class]).any():
            raise LevelCheckError(f"{mob_class} mobs exceed the cap of {MOB_CAPS[mob_class]}")
    _check_ranges(bundle.pool)
    return bundle


def _check_ranges(pool: Mapping[str, np.ndarray]) -> None:
    """Value ranges the builder guarantees; arrays made any other way must obey them too."""

    def within(name: str, low: float, high: np.ndarray | float) -> None:
        values = pool[name]
        if not ((values >= low) & (values <= high)).all():
            raise LevelCheckError(f"{name}: values must be in [{low}, {high}]")

    within("map", 0, len(BLOCK_NAMES) - 1)
    within("item_map", 0, 4)
    within("player_level", 0, NUM_FLOORS - 1)
    within("player_position", 0, MAP_SIZE - 1)
    for attribute in ("player_dexterity", "player_strength", "player_intelligence"):
        within(attribute, 1, MAX_ATTRIBUTE)
    dex, intelligence = pool["player_dexterity"], pool["player_intelligence"]
    within("player_health", 0.0, 8 + pool["player_strength"])
    for need in ("player_food", "player_drink", "player_energy"):
        within(need, 0, 7 + 2 * dex)
    within("player_mana", 0, 6 + 3 * intelligence)
    for item in ("wood", "stone", "coal", "iron", "diamond", "sapling", "arrows", "torches",
                 "ruby", "sapphire", "books", "potions"):  # fmt: skip
        within(f"inventory.{item}", 0, MAX_INVENTORY)
    for tool in ("pickaxe", "sword"):
        within(f"inventory.{tool}", 0, MAX_TOOL_TIER)
    within("inventory.bow", 0, 1)
    within("inventory.armour", 0, 2)
    for mob_class in MOB_CLASSES:
        live = pool[f"{mob_class}_mobs.mask"]
        types = pool[f"{mob_class}_mobs.type_id"][live]
        if types.size and (types.min() < 0 or types.max() >= len(MOB_HEALTH[mob_class])):
            raise LevelCheckError(f"{mob_class}_mobs.type_id: unknown mob type")
        where = pool[f"{mob_class}_mobs.position"][live]
        if where.size and (where.min() < 0 or where.max() >= MAP_SIZE):
            raise LevelCheckError(f"{mob_class}_mobs.position: off the map")
        instance, floor, _ = np.nonzero(live)
        if not pool["mob_map"][instance, floor, where[:, 0], where[:, 1]].all():
            raise LevelCheckError(f"{mob_class}_mobs: a live mob is missing from mob_map")


def check_pool(pool: dict[str, np.ndarray]) -> dict[str, int]:
    """Validate a stacked pool; return the goal as ``{achievement: 1}`` for the level bundle."""
    bundle = pool_to_bundle(pool)
    return {ACHIEVEMENT_NAMES[i]: 1 for i in np.flatnonzero(bundle.goal)}


def rules_of(pool: dict[str, np.ndarray]) -> dict[str, float]:
    """The level's rule multipliers by name (from instance 0; ``check_pool`` proved them equal)."""
    return {
        name: float(v) for name, v in zip(RULE_NAMES, np.asarray(pool["rules"])[0], strict=True)
    }


def impossible_goal(pool: dict[str, np.ndarray]) -> str | None:
    """Name a goal no play can reach, or None: a kill achievement whose mob kind is absent at
    the start while the level's rules stop that mob class from spawning."""
    goal = np.asarray(pool["goal"])[0]
    rules = rules_of(pool)
    for kind, achievement in MOB_KILL_ACHIEVEMENTS.items():
        mob_class, type_id = MOB_KINDS[kind]
        if not goal[ACHIEVEMENT_IDS[achievement]] or rules[f"spawn_{mob_class}"] > 0.0:
            continue
        alive = np.asarray(pool[f"{mob_class}_mobs.mask"]) & (
            np.asarray(pool[f"{mob_class}_mobs.type_id"]) == type_id
        )
        lacking = np.flatnonzero(~alive.any(axis=(1, 2)))
        if lacking.size:
            return (
                f"goal {achievement} is impossible in instance {int(lacking[0])}: no {kind} is"
                f" present and spawn_{mob_class}=0 stops new ones"
            )
    return None
