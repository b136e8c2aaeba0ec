"""The NumPy-side game facts must equal those of the installed craftax package."""

from __future__ import annotations

import numpy as np
from craftax.craftax import constants as C
from craftax.craftax.craftax_state import StaticEnvParams

from dicode.domains.craftax import catalog
from dicode.domains.craftax.schema import StateArrays


def test_achievements_and_rewards_match_craftax() -> None:
    names = {a.value: a.name.lower() for a in C.Achievement}
    assert tuple(names[i] for i in range(len(names))) == catalog.ACHIEVEMENT_NAMES
    assert tuple(np.asarray(C.ACHIEVEMENT_REWARD_MAP).tolist()) == catalog.ACHIEVEMENT_REWARDS
    assert catalog.MAX_RETURN == 226


def test_blocks_and_solidity_match_craftax() -> None:
    assert tuple(b.name.lower() for b in C.BlockType) == catalog.BLOCK_NAMES
    solid = {catalog.BLOCK_NAMES[i] for i in np.flatnonzero(np.asarray(C.SOLID_BLOCK_MAPPING))}
    assert solid == catalog.SOLID_BLOCKS
    assert C.ItemType.LADDER_DOWN.value == catalog.ITEM_LADDER_DOWN
    assert C.ItemType.LADDER_UP.value == catalog.ITEM_LADDER_UP
    assert C.ItemType.TORCH.value == catalog.ITEM_TORCH
    assert C.ItemType.LADDER_DOWN_BLOCKED.value == catalog.ITEM_LADDER_DOWN_BLOCKED


def test_mob_tables_match_craftax() -> None:
    static = StaticEnvParams()
    assert {
        "passive": static.max_passive_mobs,
        "melee": static.max_melee_mobs,
        "ranged": static.max_ranged_mobs,
    } == catalog.MOB_CAPS
    health = np.asarray(C.MOB_TYPE_HEALTH_MAPPING)
    collision = np.asarray(C.MOB_TYPE_COLLISION_MAPPING).astype(bool)
    for class_index, mob_class in enumerate(catalog.MOB_CLASSES):
        table = catalog.MOB_HEALTH[mob_class]
        assert table == tuple(health[: len(table), class_index].tolist())
        for floor in range(catalog.NUM_FLOORS):
            expected = tuple(collision[floor, class_index].tolist())
            assert catalog.MOB_BLOCKED_TERRAIN[floor][mob_class] == expected


def test_floor_entries_and_constants_match_craftax() -> None:
    entry = np.asarray(C.LEVEL_ACHIEVEMENT_MAP).tolist()
    for floor in range(1, catalog.NUM_FLOORS):
        assert catalog.ACHIEVEMENT_IDS[catalog.FLOOR_ENTRY_ACHIEVEMENT[floor]] == entry[floor]
    assert catalog.MONSTERS_KILLED_TO_CLEAR_FLOOR == C.MONSTERS_KILLED_TO_CLEAR_LEVEL
    assert StaticEnvParams().map_size[0] == catalog.MAP_SIZE
    assert StaticEnvParams().num_levels == catalog.NUM_FLOORS


def test_mob_kill_achievements_match_craftax() -> None:
    table = np.asarray(C.MOB_ACHIEVEMENT_MAP)
    for kind, (mob_class, type_id) in catalog.MOB_KINDS.items():
        expected = int(table[catalog.MOB_CLASSES.index(mob_class), type_id])
        assert catalog.ACHIEVEMENT_IDS[catalog.MOB_KILL_ACHIEVEMENTS[kind]] == expected


def test_floor_mobs_and_starting_vitals_match_craftax(base_pool: StateArrays) -> None:
    assert tuple(map(tuple, np.asarray(C.FLOOR_MOB_MAPPING).tolist())) == catalog.FLOOR_MOB_TYPES
    overworld = [catalog.floor_mob_kind(0, c) for c in catalog.MOB_CLASSES]
    assert overworld == ["cow", "zombie", "skeleton"]
    for vital in ("health", "food", "drink", "energy", "mana"):
        assert (base_pool[f"player_{vital}"] == catalog.START_VITAL).all()
