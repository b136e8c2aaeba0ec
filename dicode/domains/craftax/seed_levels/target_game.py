"""Target game: the unmodified Craftax game.

Objective: every one of Craftax's 67 achievements (the full game; return is what matters).
World: a normal procedurally generated world, normal rules, no edits.
"""

ALL_ACHIEVEMENTS = (
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


def build(level, rng):
    level.set_goal(*ALL_ACHIEVEMENTS)
