"""Craftax game facts as plain Python data, for code that must not import JAX.

The level builder runs inside the sandbox worker, where only NumPy and the standard library
are loaded, so it cannot read ``craftax.craftax.constants`` (which imports JAX). The tables
below restate the facts of ``craftax==1.6.1`` it needs; ``tests/craftax/test_catalog.py``
checks every one of them against the installed package so they cannot drift silently.
"""

from __future__ import annotations

# Achievement names, indexed by their Craftax id (0..66). Reward weights follow below.
ACHIEVEMENT_NAMES: tuple[str, ...] = (
    "collect_wood", "place_table", "eat_cow", "collect_sapling", "collect_drink",
    "make_wood_pickaxe", "make_wood_sword", "place_plant", "defeat_zombie", "collect_stone",
    "place_stone", "eat_plant", "defeat_skeleton", "make_stone_pickaxe", "make_stone_sword",
    "wake_up", "place_furnace", "collect_coal", "collect_iron", "collect_diamond",
    "make_iron_pickaxe", "make_iron_sword", "make_arrow", "make_torch", "place_torch",
    "make_diamond_sword", "make_iron_armour", "make_diamond_armour", "enter_gnomish_mines",
    "enter_dungeon", "enter_sewers", "enter_vault", "enter_troll_mines", "enter_fire_realm",
    "enter_ice_realm", "enter_graveyard", "defeat_gnome_warrior", "defeat_gnome_archer",
    "defeat_orc_solider", "defeat_orc_mage", "defeat_lizard", "defeat_kobold", "defeat_troll",
    "defeat_deep_thing", "defeat_pigman", "defeat_fire_elemental", "defeat_frost_troll",
    "defeat_ice_elemental", "damage_necromancer", "defeat_necromancer", "eat_bat", "eat_snail",
    "find_bow", "fire_bow", "collect_sapphire", "learn_fireball", "cast_fireball",
    "learn_iceball", "cast_iceball", "collect_ruby", "make_diamond_pickaxe", "open_chest",
    "drink_potion", "enchant_sword", "enchant_armour", "defeat_knight", "defeat_archer",
)  # fmt: skip
NUM_ACHIEVEMENTS = len(ACHIEVEMENT_NAMES)
ACHIEVEMENT_IDS: dict[str, int] = {name: i for i, name in enumerate(ACHIEVEMENT_NAMES)}
# Craftax rewards each achievement once: 1 (basic), 3 (intermediate), 5 (advanced), 8 (very
# advanced); they sum to 226, the "% of max" denominator.
ACHIEVEMENT_REWARDS: tuple[int, ...] = (
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 3,
    5, 5, 5, 8, 8, 8, 3, 3, 3, 3, 5, 5, 5, 5, 8, 8, 8, 8, 8, 8, 3, 3, 3, 3, 3, 5, 5, 5, 5, 3,
    3, 3, 3, 5, 5, 5, 5,
)  # fmt: skip
MAX_RETURN = sum(ACHIEVEMENT_REWARDS)  # 226

# Block names, indexed by their Craftax id.
BLOCK_NAMES: tuple[str, ...] = (
    "invalid", "out_of_bounds", "grass", "water", "stone", "tree", "wood", "path", "coal",
    "iron", "diamond", "crafting_table", "furnace", "sand", "lava", "plant", "ripe_plant",
    "wall", "darkness", "wall_moss", "stalagmite", "sapphire", "ruby", "chest", "fountain",
    "fire_grass", "ice_grass", "gravel", "fire_tree", "ice_shrub", "enchantment_table_fire",
    "enchantment_table_ice", "necromancer", "grave", "grave2", "grave3", "necromancer_vulnerable",
)  # fmt: skip
BLOCK_IDS: dict[str, int] = {name: i for i, name in enumerate(BLOCK_NAMES)}
# Blocks level code may place. Excluded: engine-internal ids and the boss-fight blocks, whose
# meaning depends on boss state the builder does not manage.
PLACEABLE_BLOCKS: frozenset[str] = frozenset(BLOCK_NAMES) - {
    "invalid", "out_of_bounds", "darkness", "necromancer", "necromancer_vulnerable",
    "grave", "grave2", "grave3",
}  # fmt: skip
SOLID_BLOCKS: frozenset[str] = frozenset({
    "stone", "tree", "coal", "iron", "diamond", "crafting_table", "furnace", "plant",
    "ripe_plant", "wall", "wall_moss", "stalagmite", "ruby", "sapphire", "chest", "fountain",
    "fire_tree", "enchantment_table_fire", "enchantment_table_ice", "grave", "grave2", "grave3",
    "necromancer",
})  # fmt: skip

# Item-map ids (ladders and torches live on a separate layer from blocks).
ITEM_TORCH = 1
ITEM_LADDER_DOWN = 2
ITEM_LADDER_UP = 3
ITEM_LADDER_DOWN_BLOCKED = 4  # a down-ladder that opens once the floor's monsters are cleared

NUM_FLOORS = 9
FLOOR_NAMES: tuple[str, ...] = (
    "overworld", "dungeon", "gnomish_mines", "sewers", "vault", "troll_mines", "fire_realm",
    "ice_realm", "graveyard",
)  # fmt: skip
# Achievement unlocked by arriving on each floor (none for the overworld).
FLOOR_ENTRY_ACHIEVEMENT: tuple[str | None, ...] = (
    None, "enter_dungeon", "enter_gnomish_mines", "enter_sewers", "enter_vault",
    "enter_troll_mines", "enter_fire_realm", "enter_ice_realm", "enter_graveyard",
)  # fmt: skip
MONSTERS_KILLED_TO_CLEAR_FLOOR = 8
MAP_SIZE = 48
DAY_LENGTH = 300

# Mob classes and their per-floor slot counts (Craftax's static caps).
MOB_CLASSES: tuple[str, ...] = ("passive", "melee", "ranged")
MOB_CAPS: dict[str, int] = {"passive": 3, "melee": 3, "ranged": 2}
# Mob kind -> (class, type id). The type id fixes looks, damage and the achievement for a kill.
MOB_KINDS: dict[str, tuple[str, int]] = {
    "cow": ("passive", 0), "bat": ("passive", 1), "snail": ("passive", 2),
    "zombie": ("melee", 0), "gnome_warrior": ("melee", 1), "orc_soldier": ("melee", 2),
    "lizard": ("melee", 3), "knight": ("melee", 4), "troll": ("melee", 5),
    "pigman": ("melee", 6), "frost_troll": ("melee", 7),
    "skeleton": ("ranged", 0), "gnome_archer": ("ranged", 1), "orc_mage": ("ranged", 2),
    "kobold": ("ranged", 3), "knight_archer": ("ranged", 4), "deep_thing": ("ranged", 5),
    "fire_elemental": ("ranged", 6), "ice_elemental": ("ranged", 7),
}  # fmt: skip
# The mob type Craftax spawns on each floor, per class (passive, melee, ranged): its
# FLOOR_MOB_MAPPING. ``floor_mob_kind`` names them.
FLOOR_MOB_TYPES: tuple[tuple[int, int, int], ...] = (
    (0, 0, 0), (2, 2, 2), (1, 1, 1), (2, 3, 3), (2, 4, 4), (1, 5, 5), (1, 6, 6), (1, 7, 7),
    (0, 0, 0),
)  # fmt: skip
# Every vital (health, food, drink, energy, mana) of a newly generated world.
START_VITAL = 9
# Starting health of a mob by class and type id, as Craftax spawns them.
MOB_HEALTH: dict[str, tuple[float, ...]] = {
    "passive": (3.0, 4.0, 6.0),
    "melee": (5.0, 7.0, 9.0, 11.0, 12.0, 20.0, 20.0, 24.0),
    "ranged": (3.0, 5.0, 6.0, 8.0, 12.0, 4.0, 14.0, 16.0),
}
# Per floor and mob class: may it not stand on (ground, water, lava)? Craftax's collision table.
MOB_BLOCKED_TERRAIN: tuple[dict[str, tuple[bool, bool, bool]], ...] = tuple(
    {"passive": p, "melee": m, "ranged": r}
    for p, m, r in (
        ((False, True, True), (False, True, True), (False, True, True)),
        ((False, False, False), (False, True, True), (False, True, True)),
        ((False, True, True), (False, True, True), (False, True, True)),
        ((False, True, True), (False, False, True), (False, True, True)),
        ((False, True, True), (False, True, True), (False, True, True)),
        ((False, True, True), (False, True, True), (True, False, True)),
        ((False, True, True), (False, True, True), (False, False, False)),
        ((False, True, True), (False, True, True), (False, False, False)),
        ((False, True, True), (False, True, True), (False, True, True)),
    )
)

# Inventory counts that imply an achievement as soon as Craftax looks at the inventory
# (it does so at the end of every step): item -> ((minimum count, achievement), ...).
INVENTORY_ACHIEVEMENTS: dict[str, tuple[tuple[int, str], ...]] = {
    "wood": ((1, "collect_wood"),),
    "stone": ((1, "collect_stone"),),
    "coal": ((1, "collect_coal"),),
    "iron": ((1, "collect_iron"),),
    "diamond": ((1, "collect_diamond"),),
    "ruby": ((1, "collect_ruby"),),
    "sapphire": ((1, "collect_sapphire"),),
    "sapling": ((1, "collect_sapling"),),
    "bow": ((1, "find_bow"),),
    "arrows": ((1, "make_arrow"),),
    "torches": ((1, "make_torch"),),
    "pickaxe": (
        (1, "make_wood_pickaxe"), (2, "make_stone_pickaxe"),
        (3, "make_iron_pickaxe"), (4, "make_diamond_pickaxe"),
    ),
    "sword": (
        (1, "make_wood_sword"), (2, "make_stone_sword"),
        (3, "make_iron_sword"), (4, "make_diamond_sword"),
    ),
}  # fmt: skip

# The achievement for killing (or eating) each mob kind.
MOB_KILL_ACHIEVEMENTS: dict[str, str] = {
    "cow": "eat_cow", "bat": "eat_bat", "snail": "eat_snail",
    "zombie": "defeat_zombie", "gnome_warrior": "defeat_gnome_warrior",
    "orc_soldier": "defeat_orc_solider", "lizard": "defeat_lizard", "knight": "defeat_knight",
    "troll": "defeat_troll", "pigman": "defeat_pigman", "frost_troll": "defeat_frost_troll",
    "skeleton": "defeat_skeleton", "gnome_archer": "defeat_gnome_archer",
    "orc_mage": "defeat_orc_mage", "kobold": "defeat_kobold", "knight_archer": "defeat_archer",
    "deep_thing": "defeat_deep_thing", "fire_elemental": "defeat_fire_elemental",
    "ice_elemental": "defeat_ice_elemental",
}  # fmt: skip


def floor_mob_kind(floor: int, mob_class: str) -> str:
    """The kind of ``mob_class`` Craftax spawns on ``floor`` (e.g. floor 0, "melee" → zombie)."""
    type_id = FLOOR_MOB_TYPES[floor][MOB_CLASSES.index(mob_class)]
    return next(k for k, (c, t) in MOB_KINDS.items() if c == mob_class and t == type_id)
