"""Checks on a pool of Craftax level instances coming back from the sandbox (NumPy only).

Nothing from the sandbox is trusted: the stacked arrays (state fields + ``rules`` + ``goal``)
are validated again here against the schema, the rule bounds and the goal rules, and turned
into a ``CraftaxBundle``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from dicode.domains.craftax.bundle import BundleError, CraftaxBundle, make_bundle
from dicode.domains.craftax.catalog import (
    ACHIEVEMENT_IDS,
    ACHIEVEMENT_NAMES,
    MOB_CAPS,
    MOB_CLASSES,
    MOB_KILL_ACHIEVEMENTS,
    MOB_KINDS,
)
from dicode.domains.craftax.rules import RULE_NAMES
from dicode.domains.craftax.schema import FIELD_NAMES

_LEVEL_KEYS = frozenset(FIELD_NAMES) | {"rules", "goal"}


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
    floors = bundle.pool["player_level"]
    if ((floors < 0) | (floors > 8)).any():
        raise LevelCheckError("player_level: must be in 0..8")
    position = bundle.pool["player_position"]
    if ((position < 0) | (position > 47)).any():
        raise LevelCheckError("player_position: must be in 0..47")
    return bundle


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
