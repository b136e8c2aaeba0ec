"""What the Craftax mutation edits know about achievements: which build on which, what helps.

Curriculum knowledge, not game data: a small tech tree over Craftax's 67 achievements (the
direct steps each one needs), the floor each one lives on, and the blocks and items that make
it easier. The goal edits use it to grow a goal by a next step, shrink it from its far end,
or swap one achievement for another of the same depth; ``goal_possible`` is the sandbox's own
rule for kill goals (``dicode.domains.craftax.level_checks.impossible_goal``).
"""

from __future__ import annotations

from functools import cache
from itertools import pairwise

from dicode.domains.craftax.catalog import (
    ACHIEVEMENT_IDS,
    ACHIEVEMENT_NAMES,
    ACHIEVEMENT_REWARDS,
    FLOOR_ENTRY_ACHIEVEMENT,
    MOB_KILL_ACHIEVEMENTS,
    MOB_KINDS,
    NUM_FLOORS,
    floor_mob_kind,
)
from dicode.domains.craftax.genome import CraftaxGenome

_IRON_CRAFT = ("collect_iron", "collect_coal", "place_furnace")
# The achievements each one needs first (direct steps only). Kills are handled by mob presence
# (see ``kill_possible``), not here.
PREREQUISITES: dict[str, tuple[str, ...]] = {
    "place_table": ("collect_wood",),
    "make_wood_pickaxe": ("place_table",),
    "make_wood_sword": ("place_table",),
    "place_plant": ("collect_sapling",),
    "eat_plant": ("place_plant",),
    "collect_stone": ("make_wood_pickaxe",),
    "collect_coal": ("make_wood_pickaxe",),
    "place_stone": ("collect_stone",),
    "make_stone_pickaxe": ("collect_stone",),
    "make_stone_sword": ("collect_stone",),
    "place_furnace": ("collect_stone",),
    "make_arrow": ("collect_stone",),
    "make_torch": ("collect_coal",),
    "place_torch": ("make_torch",),
    "collect_iron": ("make_stone_pickaxe",),
    "make_iron_pickaxe": _IRON_CRAFT,
    "make_iron_sword": _IRON_CRAFT,
    "make_iron_armour": _IRON_CRAFT,
    "collect_diamond": ("make_iron_pickaxe",),
    "collect_sapphire": ("make_iron_pickaxe",),
    "collect_ruby": ("make_iron_pickaxe",),
    "make_diamond_pickaxe": ("collect_diamond",),
    "make_diamond_sword": ("collect_diamond",),
    "make_diamond_armour": ("collect_diamond",),
    "open_chest": ("enter_dungeon",),
    "find_bow": ("open_chest",),
    "fire_bow": ("find_bow", "make_arrow"),
    "drink_potion": ("open_chest",),
    "learn_fireball": ("open_chest",),
    "learn_iceball": ("open_chest",),
    "cast_fireball": ("learn_fireball",),
    "cast_iceball": ("learn_iceball",),
    "enchant_sword": ("enter_fire_realm",),
    "enchant_armour": ("enter_fire_realm",),
    **{
        entry: (previous,)
        for previous, entry in pairwise(FLOOR_ENTRY_ACHIEVEMENT)
        if previous is not None and entry is not None
    },
}
# The boss fight is out of the mutation teacher's reach: never added to a goal.
NEVER_ADDED = frozenset({"damage_necromancer", "defeat_necromancer"})
KILL_KIND = {achievement: kind for kind, achievement in MOB_KILL_ACHIEVEMENTS.items()}

# Blocks that make an achievement easier when placed near the player.
HELPFUL_BLOCKS: dict[str, tuple[str, ...]] = {
    "collect_wood": ("tree",),
    "place_table": ("tree",),
    "make_wood_pickaxe": ("tree", "crafting_table"),
    "make_wood_sword": ("tree", "crafting_table"),
    "collect_sapling": ("grass",),
    "place_plant": ("grass",),
    "collect_drink": ("water",),
    "collect_stone": ("stone",),
    "place_stone": ("stone",),
    "make_stone_pickaxe": ("stone", "crafting_table"),
    "make_stone_sword": ("stone", "crafting_table"),
    "place_furnace": ("stone", "crafting_table"),
    "make_arrow": ("stone", "crafting_table"),
    "collect_coal": ("coal",),
    "make_torch": ("coal", "crafting_table"),
    "collect_iron": ("iron",),
    "make_iron_pickaxe": ("iron", "coal", "furnace"),
    "make_iron_sword": ("iron", "coal", "furnace"),
    "make_iron_armour": ("iron", "coal", "furnace"),
    "collect_diamond": ("diamond",),
    "make_diamond_pickaxe": ("diamond",),
    "make_diamond_sword": ("diamond",),
    "make_diamond_armour": ("diamond",),
    "collect_sapphire": ("sapphire",),
    "collect_ruby": ("ruby",),
    "open_chest": ("chest",),
    "find_bow": ("chest",),
    "drink_potion": ("chest",),
    "learn_fireball": ("chest",),
    "learn_iceball": ("chest",),
}
# Items that make an achievement easier when held: (item, amount to give; for a tool, the tier).
HELPFUL_ITEMS: dict[str, tuple[tuple[str, int], ...]] = {
    "place_table": (("wood", 2),),
    "make_wood_pickaxe": (("wood", 3),),
    "make_wood_sword": (("wood", 3),),
    "collect_stone": (("pickaxe", 1),),
    "collect_coal": (("pickaxe", 1),),
    "place_stone": (("stone", 2),),
    "make_stone_pickaxe": (("wood", 2), ("stone", 2)),
    "make_stone_sword": (("wood", 2), ("stone", 2)),
    "place_furnace": (("stone", 3),),
    "make_arrow": (("wood", 2), ("stone", 2)),
    "make_torch": (("wood", 2), ("coal", 2)),
    "collect_iron": (("pickaxe", 2),),
    "make_iron_pickaxe": (("wood", 2), ("stone", 2), ("coal", 2)),
    "make_iron_sword": (("wood", 2), ("stone", 2), ("coal", 2)),
    "collect_diamond": (("pickaxe", 3),),
    "defeat_zombie": (("sword", 1),),
    "defeat_skeleton": (("sword", 1),),
    "eat_cow": (("sword", 1),),
    "place_plant": (("sapling", 1),),
    "wake_up": (("stone", 4),),
    "place_torch": (("torches", 2),),
    "fire_bow": (("arrows", 3),),
}


@cache
def depth(name: str) -> int:
    """Steps from scratch: 0 for achievements that need nothing first."""
    return 1 + max((depth(p) for p in PREREQUISITES.get(name, ())), default=-1)


@cache
def home_floor(name: str) -> int:
    """The deepest floor the achievement (or a step before it) needs the player to reach."""
    if name in FLOOR_ENTRY_ACHIEVEMENT:
        return FLOOR_ENTRY_ACHIEVEMENT.index(name)
    if name in KILL_KIND:
        kind = KILL_KIND[name]
        natural = [f for f in range(NUM_FLOORS) if floor_mob_kind(f, MOB_KINDS[kind][0]) == kind]
        return natural[0] if natural else 0
    return max((home_floor(p) for p in PREREQUISITES.get(name, ())), default=0)


def difficulty(name: str) -> tuple[int, int, int]:
    """A sort key, easiest first: tech-tree depth, Craftax's reward tier, then id."""
    return depth(name), ACHIEVEMENT_REWARDS[ACHIEVEMENT_IDS[name]], ACHIEVEMENT_IDS[name]


def kill_possible(g: CraftaxGenome, kind: str, natural_only: bool = False) -> bool:
    """Will a ``kind`` mob be there to kill? Placed by the genome, or spawning naturally on the
    starting floor; with ``natural_only=False`` any nonzero spawn rule counts (the sandbox's
    own, looser rule)."""
    mob_class = MOB_KINDS[kind][0]
    if any(m.kind == kind for m in g.mobs):
        return True
    spawning = g.rule(f"spawn_{mob_class}") > 0.0
    if not natural_only:
        return spawning
    return spawning and floor_mob_kind(g.floor, mob_class) == kind


def goal_possible(g: CraftaxGenome) -> bool:
    """No kill goal whose mob is absent while its class may not spawn (the sandbox's rule)."""
    return all(kill_possible(g, KILL_KIND[a]) for a in g.goal if a in KILL_KIND)


def can_add(g: CraftaxGenome, name: str, done: frozenset[str]) -> bool:
    """May ``name`` join the goal, given the achievements ``done`` before it starts counting?"""
    if name in NEVER_ADDED or name in g.goal or name in g.implied_achievements():
        return False
    if name in KILL_KIND:
        return kill_possible(g, KILL_KIND[name], natural_only=True)
    return all(p in done for p in PREREQUISITES.get(name, ()))


def next_steps(g: CraftaxGenome) -> list[str]:
    """Achievements that could join the goal: those building on it first, else any whose steps
    are already met (in id order)."""
    done = frozenset(g.goal) | g.implied_achievements()
    candidates = [a for a in ACHIEVEMENT_NAMES if can_add(g, a, done)]
    building = [a for a in candidates if set(PREREQUISITES.get(a, ())) & set(g.goal)]
    return building or candidates
