"""Typed edits of a Craftax level genome, grouped by the direction they push difficulty.

ACCEL-style, as for Tetris (``genome_edits``): a child differs from its parent by one or two
small edits, chosen by the instruction derived from the parent's status.

- ``harder``: fewer starting items, lower food/drink/energy/health, a harsher rule (more
  damage, tougher or more frequent monsters, faster needs, slower healing), one more monster
  near the player, fewer or farther resources, a night start, one more achievement building on
  the goal, or a start one floor deeper (only for goals that lie deeper still);
- ``easier``: the reverse of each — items that help the goal, fuller vitals, a kinder rule,
  one monster fewer, a cow (or the floor's passive mob) nearby, resources that help the goal
  placed nearby or closer, a day start, the goal's farthest achievement dropped (a very large
  goal shrinks to its three easiest), or a start one floor up;
- ``vary``: lateral moves — one rule harsher and another kinder, need points moved between
  food, drink and energy, the time of day shifted within its phase, monsters moved nearer or
  farther, resources of one kind swapped for another the goal uses, or one goal achievement
  swapped for another at the same depth of the tech tree.

The ``skill`` instruction has its own edit, :func:`teach`: a level whose goal is exactly the
achievement to teach, starting where it lives with what it builds on granted (items, stations
and resources near the player, the mob of a kill) but never the achievement itself.

Every edit keeps the genome inside its bounds (``craftax_genome.check_bounds``) and inside the
teacher's tighter caps below, never makes a possible goal impossible (``goal_possible``), and
returns a ``before → after`` note; an edit that cannot apply returns ``None`` and another is
tried. All randomness comes from the caller's ``numpy.random.Generator``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TypeVar

import numpy as np

from dicode.domains.craftax.catalog import (
    ACHIEVEMENT_IDS,
    FLOOR_ENTRY_ACHIEVEMENT,
    FLOOR_NAMES,
    INVENTORY_ACHIEVEMENTS,
    MOB_CAPS,
    MOB_KINDS,
    floor_mob_kind,
)
from dicode.domains.craftax.genome import (
    ALL_ACHIEVEMENTS,
    ITEM_LIMITS,
    ITEMS,
    BlockPatch,
    CraftaxGenome,
    MobGroup,
    NearPlayer,
    check_bounds,
    is_night,
)
from dicode.domains.craftax.goals import (
    HELPFUL_BLOCKS,
    HELPFUL_ITEMS,
    KILL_KIND,
    NEVER_ADDED,
    PREREQUISITES,
    difficulty,
    goal_possible,
    home_floor,
    next_steps,
)
from dicode.domains.craftax.rules import RULES
from dicode.teachers.base import MutationInstruction
from dicode.teachers.genome_base import Edit as AppliedEdit
from dicode.teachers.genome_base import Mutation, Operator, SkillTarget, mutate_genome
from dicode.teachers.level_source import GenomeError

Edit = Operator[CraftaxGenome]
T = TypeVar("T")
V = TypeVar("V", bound=float)

# The teacher's caps (the genome accepts anything the builder does).
MAX_ITEM = 9  # resources given
MAX_TOOL_TIER = 3  # tools given (iron)
MAX_PATCH = 6  # blocks per placement
MAX_NEAR = 8  # placements and mob groups together
REACH = (2, 8)  # max_distance of placements and mob groups
MAX_FLOOR = 4  # deepest starting floor an edit chooses
MIN_VITAL = 2  # vitals an edit lowers stop here
MAX_GOAL = 8  # achievements a harder edit grows a goal to
EASY_GOAL = 3  # a larger goal than MAX_GOAL shrinks to its easiest EASY_GOAL achievements
NEEDS = ("food", "drink", "energy")
TIERED = ("pickaxe", "sword", "bow")  # items held as a tier, not a count
# Direction of "harder" per rule: +1 raises the multiplier, -1 lowers it. spawn_passive falls
# (fewer cows to eat); mana_recover is left alone (only spell levels feel it).
HARDER_DIRECTION = {
    "mob_damage": 1, "mob_health": 1, "spawn_melee": 1, "spawn_ranged": 1,
    "needs_depletion": 1, "health_loss": 1, "health_recover": -1, "spawn_passive": -1,
}  # fmt: skip
HOSTILE = ("melee", "ranged")


def mutate(
    parent: CraftaxGenome,
    instruction: MutationInstruction,
    rng: np.random.Generator,
    max_edits: int = 2,
) -> Mutation[CraftaxGenome]:
    """Apply 1..``max_edits`` edits of ``instruction`` (one for vary) to ``parent``; when none
    applies, one ``vary`` edit instead (the returned instruction says so)."""
    return mutate_genome(
        parent, instruction, rng, max_edits, operators_for, _keeps_goal_possible, check_bounds
    )


def _keeps_goal_possible(current: CraftaxGenome, child: CraftaxGenome) -> bool:
    # Never trade a possible goal for one the sandbox rejects as impossible.
    return goal_possible(child) or not goal_possible(current)


def _pick(items: Sequence[T], rng: np.random.Generator) -> T:
    return items[int(rng.integers(len(items)))]


def _with_pair(pairs: tuple[tuple[str, V], ...], name: str, value: V) -> tuple[tuple[str, V], ...]:
    """``pairs`` with ``name`` set to ``value`` (the genome puts the order right)."""
    kept: list[tuple[str, V]] = [(n, v) for n, v in pairs if n != name]
    return (*kept, (name, value))


# --- items -----------------------------------------------------------------------------------


def take_items(g: CraftaxGenome, rng: np.random.Generator) -> tuple[CraftaxGenome, str] | None:
    if not g.inventory:
        return None
    name, held = _pick(list(g.inventory), rng)
    left = held - 1 if name in TIERED else held // 2
    child = replace(g, inventory=_with_pair(g.inventory, name, left))
    return child, f"inventory {name} {held} → {left}"


def give_items(g: CraftaxGenome, rng: np.random.Generator) -> tuple[CraftaxGenome, str] | None:
    """Give an item that helps the goal; achievements it grants leave the goal (never all)."""
    offers = [offer for a in g.goal for offer in HELPFUL_ITEMS.get(a, ())]
    offers = offers or [("wood", 2), ("stone", 2)]
    for index in rng.permutation(len(offers)):
        name, amount = offers[int(index)]
        held = g.item(name)
        if name in TIERED:  # the amount is the tier to reach (at least one up)
            new = min(MAX_TOOL_TIER, ITEM_LIMITS[name], max(held + 1, amount))
        else:
            new = min(MAX_ITEM, held + amount)
        if new <= held:
            continue
        child = replace(g, inventory=_with_pair(g.inventory, name, new))
        granted = [a for a in g.goal if a in child.implied_achievements()]
        if len(granted) == len(g.goal):
            continue
        note = f"inventory {name} {held} → {new}"
        if granted:
            child = replace(child, goal=tuple(a for a in g.goal if a not in granted))
            note += f" (now held, so {', '.join(granted)} left the goal)"
        return child, note
    return None


# --- vitals ----------------------------------------------------------------------------------


def lower_vitals(g: CraftaxGenome, rng: np.random.Generator) -> tuple[CraftaxGenome, str] | None:
    floor = {"health": MIN_VITAL + 1}
    names = [n for n in (*NEEDS, "health") if g.vital(n) > floor.get(n, MIN_VITAL)]
    if not names:
        return None
    name = _pick(names, rng)
    now = g.vital(name)
    new = max(floor.get(name, MIN_VITAL), now - int(rng.integers(2, 5)))
    return replace(g, vitals=_with_pair(g.vitals, name, new)), f"{name} {now} → {new}"


def restore_vitals(g: CraftaxGenome, rng: np.random.Generator) -> tuple[CraftaxGenome, str] | None:
    names = [n for n in (*NEEDS, "health") if g.vital(n) < g.max_vital(n)]
    if not names:
        return None
    name = _pick(names, rng)
    now = g.vital(name)
    new = min(g.max_vital(name), now + int(rng.integers(2, 5)))
    return replace(g, vitals=_with_pair(g.vitals, name, new)), f"{name} {now} → {new}"


def shift_needs(g: CraftaxGenome, rng: np.random.Generator) -> tuple[CraftaxGenome, str] | None:
    """Move 1–2 points from one need to another (food, drink, energy)."""
    pairs = [
        (a, b) for a in NEEDS for b in NEEDS
        if a != b and g.vital(a) > MIN_VITAL and g.vital(b) < g.max_vital(b)
    ]  # fmt: skip
    if not pairs:
        return None
    a, b = _pick(pairs, rng)
    moved = min(int(rng.integers(1, 3)), g.vital(a) - MIN_VITAL, g.max_vital(b) - g.vital(b))
    vitals = _with_pair(g.vitals, a, g.vital(a) - moved)
    vitals = _with_pair(vitals, b, g.vital(b) + moved)
    note = f"{moved} point(s) from {a} to {b} ({a} {g.vital(a) - moved}, {b} {g.vital(b) + moved})"
    return replace(g, vitals=vitals), note


# --- rules -----------------------------------------------------------------------------------


def _step_rule(g: CraftaxGenome, name: str, harder: bool, rng: np.random.Generator) -> float:
    rule = RULES[name]
    now = g.rule(name)
    up = (HARDER_DIRECTION[name] > 0) == harder
    if name.startswith("spawn_"):
        new = now + 0.25 if up else now - 0.25
    else:
        factor = float(rng.uniform(1.25, 1.5))
        new = (max(now, 0.25) * factor) if up else now / factor
    return round(min(rule.high, max(rule.low, new)), 2)


def _change_rule(
    g: CraftaxGenome, rng: np.random.Generator, harder: bool
) -> tuple[CraftaxGenome, str] | None:
    names = list(HARDER_DIRECTION)
    for index in rng.permutation(len(names)):
        name = names[int(index)]
        new = _step_rule(g, name, harder, rng)
        if new != g.rule(name):
            child = replace(g, rules=_with_pair(g.rules, name, new))
            return child, f"{name} {g.rule(name):g} → {new:g}"
    return None


def harsher_rule(g: CraftaxGenome, rng: np.random.Generator) -> tuple[CraftaxGenome, str] | None:
    return _change_rule(g, rng, harder=True)


def kinder_rule(g: CraftaxGenome, rng: np.random.Generator) -> tuple[CraftaxGenome, str] | None:
    return _change_rule(g, rng, harder=False)


def trade_rules(g: CraftaxGenome, rng: np.random.Generator) -> tuple[CraftaxGenome, str] | None:
    """One rule a step harsher, another a step kinder."""
    harsher = _change_rule(g, rng, harder=True)
    if harsher is None:
        return None
    child, note = harsher
    changed = next(n for n in HARDER_DIRECTION if child.rule(n) != g.rule(n))
    others = replace(g, rules=child.rules)
    for index in rng.permutation(len(HARDER_DIRECTION)):
        name = list(HARDER_DIRECTION)[int(index)]
        if name == changed:
            continue
        new = _step_rule(others, name, harder=False, rng=rng)
        if new != others.rule(name):
            rules = _with_pair(child.rules, name, new)
            return replace(child, rules=rules), f"{note}; {name} {g.rule(name):g} → {new:g}"
    return None


# --- mobs ------------------------------------------------------------------------------------


def _mobs_room(g: CraftaxGenome, mob_class: str) -> int:
    # Set-up code may place mobs the genome cannot count: add none over it.
    if "add_mob" in g.setup_code or len(g.near_player) >= MAX_NEAR:
        return 0
    return MOB_CAPS[mob_class] - g.mob_count(mob_class)


def _replace_near(g: CraftaxGenome, old: NearPlayer, new: NearPlayer | None) -> CraftaxGenome:
    index = g.near_player.index(old)
    items = list(g.near_player)
    if new is None:
        del items[index]
    else:
        items[index] = new
    return replace(g, near_player=tuple(items))


def more_monsters(g: CraftaxGenome, rng: np.random.Generator) -> tuple[CraftaxGenome, str] | None:
    groups = [m for m in g.mobs if m.mob_class in HOSTILE and _mobs_room(g, m.mob_class) > 0]
    if groups and rng.random() < 0.5:
        group = _pick(groups, rng)
        child = _replace_near(g, group, replace(group, count=group.count + 1))
        return child, f"{group.kind} near the player {group.count} → {group.count + 1}"
    classes = [c for c in HOSTILE if _mobs_room(g, c) > 0]
    if not classes:
        return None
    kind = floor_mob_kind(g.floor, _pick(classes, rng))
    group = MobGroup(kind, 1, max_distance=6, min_distance=3)
    return replace(g, near_player=(*g.near_player, group)), f"a {kind} placed 3-6 from the player"


def fewer_monsters(g: CraftaxGenome, rng: np.random.Generator) -> tuple[CraftaxGenome, str] | None:
    groups = [m for m in g.mobs if m.mob_class in HOSTILE]
    if not groups:
        return None
    group = _pick(groups, rng)
    smaller = replace(group, count=group.count - 1) if group.count > 1 else None
    note = f"{group.kind} near the player {group.count} → {group.count - 1}"
    return _replace_near(g, group, smaller), note


def add_food(g: CraftaxGenome, rng: np.random.Generator) -> tuple[CraftaxGenome, str] | None:
    del rng  # deterministic edit
    if _mobs_room(g, "passive") <= 0:
        return None
    kind = floor_mob_kind(g.floor, "passive")
    group = MobGroup(kind, 1, max_distance=5, min_distance=2)
    return replace(g, near_player=(*g.near_player, group)), f"a {kind} placed 2-5 from the player"


def move_monsters(g: CraftaxGenome, rng: np.random.Generator) -> tuple[CraftaxGenome, str] | None:
    """Shift a mob group's distance band by one or two cells, nearer or farther."""
    if not g.mobs:
        return None
    group = _pick(list(g.mobs), rng)
    shift = int(rng.choice([-2, -1, 1, 2]))
    low = min(max(group.min_distance + shift, 1), REACH[1] - 2)
    high = max(low + 2, min(group.max_distance + shift, REACH[1]))
    if (low, high) == (group.min_distance, group.max_distance):
        return None
    moved = replace(group, min_distance=low, max_distance=high)
    note = f"{group.kind} {group.min_distance}-{group.max_distance} → {low}-{high} from the player"
    return _replace_near(g, group, moved), note


# --- resources -------------------------------------------------------------------------------


def _resources(g: CraftaxGenome) -> list[BlockPatch]:
    return [p for p in g.patches if p.block != "lava"]


def _helpful_blocks(g: CraftaxGenome) -> list[str]:
    found = {b for a in g.goal for b in HELPFUL_BLOCKS.get(a, ())}
    if g.floor != 0:
        found.discard("grass")  # saplings come from overworld grass
    return sorted(found)


def add_resources(g: CraftaxGenome, rng: np.random.Generator) -> tuple[CraftaxGenome, str] | None:
    """Place a few blocks the goal needs near the player (or more of a placement of them)."""
    blocks = _helpful_blocks(g)
    if not blocks:
        return None
    block = _pick(blocks, rng)
    existing = [p for p in g.patches if p.block == block and p.count < MAX_PATCH]
    if existing:
        patch = existing[0]
        new = min(MAX_PATCH, patch.count + int(rng.integers(1, 3)))
        note = f"{block} near the player {patch.count} → {new}"
        return _replace_near(g, patch, replace(patch, count=new)), note
    if len(g.near_player) >= MAX_NEAR or any(p.block == block for p in g.patches):
        return None
    patch = BlockPatch(block, int(rng.integers(2, 4)), max_distance=4)
    note = f"{patch.count} {block} placed within {patch.max_distance} of the player"
    return replace(g, near_player=(*g.near_player, patch)), note


def fewer_resources(g: CraftaxGenome, rng: np.random.Generator) -> tuple[CraftaxGenome, str] | None:
    patches = _resources(g)
    if not patches:
        return None
    patch = _pick(patches, rng)
    if patch.max_distance < REACH[1] and rng.random() < 0.5:
        farther = min(REACH[1], patch.max_distance + int(rng.integers(1, 3)))
        note = f"{patch.block} within {patch.max_distance} → within {farther} of the player"
        return _replace_near(g, patch, replace(patch, max_distance=farther)), note
    smaller = replace(patch, count=patch.count - 1) if patch.count > 1 else None
    note = f"{patch.block} near the player {patch.count} → {patch.count - 1}"
    return _replace_near(g, patch, smaller), note


def closer_resources(
    g: CraftaxGenome, rng: np.random.Generator
) -> tuple[CraftaxGenome, str] | None:
    # Few cells lie within 2 of the player: only small placements come that close.
    patches = [
        p for p in _resources(g) if p.max_distance > 3 or (p.max_distance > 2 and p.count <= 3)
    ]
    if not patches:
        return None
    patch = _pick(patches, rng)
    low = 3 if patch.count > 3 else REACH[0]
    closer = max(low, patch.max_distance - int(rng.integers(1, 3)))
    note = f"{patch.block} within {patch.max_distance} → within {closer} of the player"
    return _replace_near(g, patch, replace(patch, max_distance=closer)), note


def swap_resources(g: CraftaxGenome, rng: np.random.Generator) -> tuple[CraftaxGenome, str] | None:
    """Swap the block of one placement for another block the goal uses."""
    patches = _resources(g)
    blocks = _helpful_blocks(g)
    options = [
        (p, b) for p in patches for b in blocks
        if b != p.block and not any(q.block == b for q in g.patches)
    ]  # fmt: skip
    if not options:
        return None
    patch, block = _pick(options, rng)
    note = f"{patch.count} {patch.block} → {patch.count} {block} near the player"
    return _replace_near(g, patch, replace(patch, block=block)), note


# --- time of day -----------------------------------------------------------------------------


def night_start(g: CraftaxGenome, rng: np.random.Generator) -> tuple[CraftaxGenome, str] | None:
    if g.floor != 0 or is_night(g.day_time):
        return None  # only the overworld has a sky
    new = round(float(rng.uniform(0.55, 0.75)), 2)
    return replace(g, day_time=new), f"day time {_time(g.day_time)} → {new:g} (night)"


def day_start(g: CraftaxGenome, rng: np.random.Generator) -> tuple[CraftaxGenome, str] | None:
    if not is_night(g.day_time):
        return None
    new = round(float(rng.uniform(0.05, 0.3)), 2)
    return replace(g, day_time=new), f"day time {_time(g.day_time)} → {new:g} (day)"


def shift_time(g: CraftaxGenome, rng: np.random.Generator) -> tuple[CraftaxGenome, str] | None:
    """Move the start time by 0.05–0.1 of a day without crossing dusk or dawn."""
    if g.floor != 0:
        return None
    now = 0.0 if g.day_time is None else g.day_time
    night = is_night(now)
    for _ in range(4):
        new = round(now + float(rng.choice([-1, 1])) * float(rng.uniform(0.05, 0.1)), 2)
        if 0.0 <= new < 1.0 and is_night(new) == night:
            return replace(g, day_time=new), f"day time {_time(g.day_time)} → {new:g}"
    return None


def _time(fraction: float | None) -> str:
    return "0 (start of day)" if fraction is None else f"{fraction:g}"


# --- goal ------------------------------------------------------------------------------------


def extend_goal(g: CraftaxGenome, rng: np.random.Generator) -> tuple[CraftaxGenome, str] | None:
    if len(g.goal) >= MAX_GOAL:
        return None
    steps = next_steps(g)
    if not steps:
        return None
    added = _pick(steps, rng)
    return replace(g, goal=(*g.goal, added)), f"goal + {added}"


def shrink_goal(g: CraftaxGenome, rng: np.random.Generator) -> tuple[CraftaxGenome, str] | None:
    del rng  # deterministic edit: always the far end of the goal
    if len(g.goal) > MAX_GOAL:
        kept = tuple(sorted(g.goal, key=difficulty)[:EASY_GOAL])
        label = "every achievement" if g.goal == ALL_ACHIEVEMENTS else f"{len(g.goal)} achievements"
        return replace(g, goal=kept), f"goal {label} → {', '.join(kept)}"
    if len(g.goal) > 1:
        dropped = max(g.goal, key=difficulty)
        return replace(g, goal=tuple(a for a in g.goal if a != dropped)), f"goal - {dropped}"
    [only] = g.goal
    steps = [p for p in PREREQUISITES.get(only, ()) if p not in g.implied_achievements()]
    if not steps:
        return None
    easier = min(steps, key=difficulty)
    return replace(g, goal=(easier,)), f"goal {only} → {easier} (a step before it)"


def swap_goal(g: CraftaxGenome, rng: np.random.Generator) -> tuple[CraftaxGenome, str] | None:
    """Swap one goal achievement for another at the same tech-tree depth and reward tier."""
    options = []
    for old in g.goal:
        rest = replace(g, goal=tuple(a for a in g.goal if a != old))
        if any(old in PREREQUISITES.get(a, ()) for a in rest.goal):
            continue  # another goal achievement builds on it
        options += [
            (old, new) for new in next_steps(rest) if new != old
            and difficulty(new)[:2] == difficulty(old)[:2]
        ]  # fmt: skip
    if not options:
        return None
    old, new = _pick(options, rng)
    goal = tuple(new if a == old else a for a in g.goal)
    return replace(g, goal=goal), f"goal {old} → {new}"


# --- floor -----------------------------------------------------------------------------------


def _move_floor(g: CraftaxGenome, floor: int) -> tuple[CraftaxGenome, str] | None:
    if g.setup_code or not 0 <= floor <= MAX_FLOOR or any(p.block == "plant" for p in g.patches):
        return None  # set-up code may rely on the floor; saplings grow only on the overworld
    entry = FLOOR_ENTRY_ACHIEVEMENT[floor]
    goal = tuple(a for a in g.goal if a != entry)
    if not goal:
        return None
    note = f"start on floor {g.floor} ({FLOOR_NAMES[g.floor]}) → {floor} ({FLOOR_NAMES[floor]})"
    if goal != g.goal:
        note += f"; {entry} is granted there, so it left the goal"
    return replace(g, floor=floor, goal=goal), note


def descend_start(g: CraftaxGenome, rng: np.random.Generator) -> tuple[CraftaxGenome, str] | None:
    """Start one floor deeper (darker, tougher, 8 kills to leave) — only when the goal lies
    deeper still, so the level stays about the same skill."""
    del rng
    # Not for the full game (or other huge goals): it would only lose enter_dungeon.
    if len(g.goal) > MAX_GOAL or max(home_floor(a) for a in g.goal) <= g.floor + 1:
        return None
    return _move_floor(g, g.floor + 1)


def ascend_start(g: CraftaxGenome, rng: np.random.Generator) -> tuple[CraftaxGenome, str] | None:
    del rng
    return _move_floor(g, g.floor - 1) if g.floor > 0 else None


_HARDER: dict[str, Edit] = {
    "take_items": take_items,
    "lower_vitals": lower_vitals,
    "harsher_rule": harsher_rule,
    "more_monsters": more_monsters,
    "fewer_resources": fewer_resources,
    "night_start": night_start,
    "extend_goal": extend_goal,
    "descend_start": descend_start,
}
_EASIER: dict[str, Edit] = {
    "give_items": give_items,
    "restore_vitals": restore_vitals,
    "kinder_rule": kinder_rule,
    "fewer_monsters": fewer_monsters,
    "add_food": add_food,
    "add_resources": add_resources,
    "closer_resources": closer_resources,
    "day_start": day_start,
    "shrink_goal": shrink_goal,
    "ascend_start": ascend_start,
}
_VARY: dict[str, Edit] = {
    "trade_rules": trade_rules,
    "shift_needs": shift_needs,
    "shift_time": shift_time,
    "move_monsters": move_monsters,
    "swap_resources": swap_resources,
    "swap_goal": swap_goal,
}
_BY_INSTRUCTION = {
    MutationInstruction.HARDER: _HARDER,
    MutationInstruction.EASIER: _EASIER,
    MutationInstruction.VARY: _VARY,
}


def operators_for(g: CraftaxGenome, instruction: MutationInstruction) -> dict[str, Edit]:
    """The edits on offer for ``instruction`` (``skill`` has its own edit, :func:`teach`; asked
    here, it gets the lateral ones)."""
    del g  # every edit checks for itself whether it applies
    return dict(_BY_INSTRUCTION.get(instruction, _VARY))


# --- skills ----------------------------------------------------------------------------------

# What Craftax 1.6.1's crafts and placements consume (game_logic.do_crafting, place_block): a
# skill's start holds at least this, so the step itself is what is left to do.
RECIPES: dict[str, tuple[tuple[str, int], ...]] = {
    "place_table": (("wood", 2),),
    "make_wood_pickaxe": (("wood", 1),),
    "make_wood_sword": (("wood", 1),),
    "make_stone_pickaxe": (("wood", 1), ("stone", 1)),
    "make_stone_sword": (("wood", 1), ("stone", 1)),
    "make_iron_pickaxe": (("wood", 1), ("stone", 1), ("iron", 1), ("coal", 1)),
    "make_iron_sword": (("wood", 1), ("stone", 1), ("iron", 1), ("coal", 1)),
    "make_iron_armour": (("iron", 3), ("coal", 3)),
    "make_diamond_pickaxe": (("wood", 1), ("diamond", 3)),
    "make_diamond_sword": (("wood", 1), ("diamond", 2)),
    "make_diamond_armour": (("diamond", 3),),
    "make_arrow": (("wood", 1), ("stone", 1)),
    "make_torch": (("wood", 1), ("coal", 1)),
    "place_furnace": (("stone", 1),),
    "place_stone": (("stone", 1),),
    "place_plant": (("sapling", 1),),
    "place_torch": (("torches", 1),),
}
# Stations Craftax wants in the 8 cells around the player for a craft (is_near_block).
_TABLE = ("crafting_table",)
STATIONS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("make_wood_pickaxe", "make_wood_sword", "make_stone_pickaxe",
                     "make_stone_sword", "make_arrow", "make_torch", "make_diamond_pickaxe",
                     "make_diamond_sword", "make_diamond_armour"), _TABLE),
    **dict.fromkeys(("make_iron_pickaxe", "make_iron_sword", "make_iron_armour"),
                    ("crafting_table", "furnace")),
}  # fmt: skip
# Prerequisites a start grants as a block near the player, not as an item (an opened chest
# cannot be granted: the chest is placed, so opening it is part of the level).
PLACED_STEPS = {
    "place_table": "crafting_table",
    "place_furnace": "furnace",
    "place_plant": "plant",
    "open_chest": "chest",
}
# Steps no start can grant: a learnt spell is not part of the genome.
UNGRANTABLE = frozenset({"learn_fireball", "learn_iceball"})
STATION_REACH = 2  # a station within 2 cells: one step to stand next to it
CHEST_REACH = 3
RESOURCE_REACH = 4
SKILL_RESOURCES = (2, 5)  # blocks per resource placement (low inclusive, high exclusive)
SKILL_MOB_BAND = (2, 5)  # the kill's mob: min and max distance from the player


def skill_start_floor(name: str) -> int:
    """Where a level teaching ``name`` starts: the floor it lives on, or the floor above for
    entering a floor (starting there would grant it)."""
    floor = home_floor(name)
    return floor - 1 if floor > 0 and FLOOR_ENTRY_ACHIEVEMENT[floor] == name else floor


def teachable(name: str) -> bool:
    """Can :func:`teach` set up a start for ``name``? Not the boss fight, nothing starting
    deeper than ``MAX_FLOOR``, nothing that builds on a learnt spell."""
    return (
        name in ACHIEVEMENT_IDS
        and name not in NEVER_ADDED
        and skill_start_floor(name) <= MAX_FLOOR
        and not set(PREREQUISITES.get(name, ())) & UNGRANTABLE
    )


def _implying_item(name: str) -> tuple[str, int] | None:
    """The item (and least count or tier) whose holding grants ``name``, if one does."""
    for item, thresholds in INVENTORY_ACHIEVEMENTS.items():
        for minimum, achievement in thresholds:
            if achievement == name:
                return item, minimum
    return None


def skill_items(name: str) -> dict[str, int]:
    """What the start of a level teaching ``name`` holds: the items that help it, what its
    craft consumes, the items that grant its prerequisites, and a sword for a fight."""
    offers = [*HELPFUL_ITEMS.get(name, ()), *RECIPES.get(name, ())]
    offers += [i for p in PREREQUISITES.get(name, ()) if (i := _implying_item(p)) is not None]
    if name in KILL_KIND and MOB_KINDS[KILL_KIND[name]][0] != "passive":
        offers.append(("sword", 1))
    wanted: dict[str, int] = {}
    for item, amount in offers:
        cap = min(MAX_TOOL_TIER, ITEM_LIMITS[item]) if item in TIERED else MAX_ITEM
        wanted[item] = min(cap, max(wanted.get(item, 0), amount))
    return wanted


def skill_blocks(name: str, floor: int) -> tuple[str, ...]:
    """The blocks a level teaching ``name`` places near the player: stations first (they need
    the nearest cells), then what its prerequisites placed, then what helps it."""
    placed = [PLACED_STEPS[p] for p in PREREQUISITES.get(name, ()) if p in PLACED_STEPS]
    blocks = [*STATIONS.get(name, ()), *placed, *HELPFUL_BLOCKS.get(name, ())]
    if floor != 0:  # grass gives saplings and plants grow only on the overworld
        blocks = [b for b in blocks if b not in ("grass", "plant")]
    stations = [b for b in blocks if b in ("crafting_table", "furnace")]
    return tuple(dict.fromkeys([*stations, *blocks]))


def _patch_for(block: str, rng: np.random.Generator) -> BlockPatch:
    if block in ("crafting_table", "furnace"):
        return BlockPatch(block, 1, STATION_REACH)
    if block == "chest":
        return BlockPatch(block, 1, CHEST_REACH)
    return BlockPatch(block, int(rng.integers(*SKILL_RESOURCES)), RESOURCE_REACH)


def teach(
    parent: CraftaxGenome, target: SkillTarget, rng: np.random.Generator
) -> Mutation[CraftaxGenome] | None:
    """A level whose goal is exactly ``target.skill`` and whose start grants what it builds
    on: the floor it lives on, the items of its prerequisites, craft and helpers, stations
    and resources near the player, the mob of a kill. The parent's rules, attributes,
    vitals, time of day and other placements stay (its set-up code only where the floor and
    the mob count stay readable); the start never grants the skill itself. None when the
    skill is unknown or no start can set it up (:func:`teachable`)."""
    name = target.skill
    if not teachable(name):
        return None
    g = parent.normalized()
    edits = [AppliedEdit("skill_goal", f"goal {_goal_label(g.goal)} → {name}")]
    child = replace(g, goal=(name,))
    steps = (("skill_floor", _skill_floor), ("skill_inventory", _skill_inventory),
             ("skill_near_player", _skill_near_player))  # fmt: skip
    for kind, step in steps:
        child, notes = step(child, name, rng)
        edits += [AppliedEdit(kind, note) for note in notes]
    child = child.normalized()
    try:
        check_bounds(child)
    except GenomeError:
        return None
    if not goal_possible(child) or name in child.implied_achievements():
        return None
    return Mutation(child, MutationInstruction.SKILL, tuple(edits))


def _goal_label(goal: tuple[str, ...]) -> str:
    if goal == ALL_ACHIEVEMENTS:
        return "every achievement"
    return ", ".join(goal) if len(goal) <= 3 else f"{len(goal)} achievements"


def _skill_floor(
    g: CraftaxGenome, name: str, rng: np.random.Generator
) -> tuple[CraftaxGenome, list[str]]:
    """Start where the skill lives; the parent's mobs and set-up code belong to its floor."""
    del rng
    floor = skill_start_floor(name)
    notes: list[str] = []
    child = g
    if floor != g.floor:
        plants = [p for p in g.patches if p.block == "plant" and floor != 0]
        kept = tuple(n for n in g.near_player if isinstance(n, BlockPatch) and n not in plants)
        child = replace(g, floor=floor, near_player=kept)
        notes.append(
            f"start on floor {g.floor} ({FLOOR_NAMES[g.floor]}) → {floor} ({FLOOR_NAMES[floor]})"
            + ("; the parent's mobs stay on its floor" if g.mobs else "")
        )
    moved = floor != g.floor
    counts_mobs = name in KILL_KIND and "add_mob" in g.setup_code
    if g.setup_code and (moved or counts_mobs):
        child = replace(child, setup_code="")
        why = "the floor changed" if moved else "it places mobs the edit cannot count"
        notes.append(f"the parent's set-up code left out ({why})")
    return child, notes


def _skill_inventory(
    g: CraftaxGenome, name: str, rng: np.random.Generator
) -> tuple[CraftaxGenome, list[str]]:
    """Hold what the skill needs, and less than what would grant it."""
    del rng
    inventory = dict(g.inventory)
    for item, amount in skill_items(name).items():
        inventory[item] = max(inventory.get(item, 0), amount)
    granting = _implying_item(name)
    if granting is not None:  # e.g. collect_iron: no iron; make_stone_pickaxe: a wood pickaxe
        item, minimum = granting
        inventory[item] = min(inventory.get(item, 0), minimum - 1)
    changed = [
        f"{item} {g.item(item)} → {inventory.get(item, 0)}"
        for item in ITEMS
        if inventory.get(item, 0) != g.item(item)
    ]
    child = replace(g, inventory=tuple(inventory.items()))
    return child, ["inventory " + ", ".join(changed)] if changed else []


def _over_mob_cap(g: CraftaxGenome, near: NearPlayer) -> bool:
    return isinstance(near, MobGroup) and g.mob_count(near.mob_class) > MOB_CAPS[near.mob_class]


def _skill_near_player(
    g: CraftaxGenome, name: str, rng: np.random.Generator
) -> tuple[CraftaxGenome, list[str]]:
    """The skill's blocks and mob first (nearest cells, within the caps), then the parent's
    other placements while there is room."""
    patches = [_patch_for(b, rng) for b in skill_blocks(name, g.floor)]
    notes = [f"{p.count} {p.block} placed within {p.max_distance} of the player" for p in patches]
    ours: list[NearPlayer] = list(patches)
    if name in KILL_KIND:
        kind = KILL_KIND[name]
        ours.append(MobGroup(kind, 1, SKILL_MOB_BAND[1], SKILL_MOB_BAND[0]))
        notes.append(f"a {kind} placed {SKILL_MOB_BAND[0]}-{SKILL_MOB_BAND[1]} from the player")
    # The parent's placements of the skill's blocks give way to the skill's own.
    blocks = {p.block for p in patches}
    others = [n for n in g.near_player if not (isinstance(n, BlockPatch) and n.block in blocks)]
    near = list(ours)
    for old in others:
        grown = replace(g, near_player=(*near, old))
        if len(near) < MAX_NEAR and not _over_mob_cap(grown, old):
            near.append(old)
    dropped = len(others) - (len(near) - len(ours))
    if dropped:
        notes.append(f"{dropped} of the parent's placements left out (room for the skill's)")
    return replace(g, near_player=tuple(near)), notes
