"""The Craftax level builder: the API level code uses to turn a standard world into a level.

A Craftax level is a Python module whose docstring describes the level and which defines
``build(level, rng)``. ``level`` is a ``CraftaxLevel`` wrapping a copy of a normal,
procedurally generated 9-floor Craftax world; ``rng`` is a ``numpy.random.Generator`` seeded
per pool entry. ``build`` edits the world through the methods below; it returns nothing.
Level code may import only math, itertools, functools, collections and numpy.

Coordinates are ``(row, col)`` on a 48×48 map, rows and columns 0..47. Floors are numbered
0..8: 0 overworld, 1 dungeon, 2 gnomish_mines, 3 sewers, 4 vault, 5 troll_mines,
6 fire_realm, 7 ice_realm, 8 graveyard. Methods that take ``floor=None`` act on the
player's current floor. Bad arguments raise ``BuildError`` naming the method and the value.

Example::

    \"\"\"Craft a stone pickaxe: start next to a crafting table with some wood.\"\"\"

    def build(level, rng):
        level.set_inventory(wood=3)
        level.place_near_player("crafting_table", max_distance=2)
        level.place_near_player("stone", count=4, max_distance=5)
        level.set_goal("make_wood_pickaxe", "collect_stone", "make_stone_pickaxe")

NumPy and the standard library only: this module runs inside the sandbox worker.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from dicode.domains.api_docs import render_builder_api
from dicode.domains.craftax.catalog import (
    ACHIEVEMENT_IDS,
    ACHIEVEMENT_NAMES,
    ACHIEVEMENT_REWARDS,
    BLOCK_IDS,
    BLOCK_NAMES,
    DAY_LENGTH,
    FLOOR_ENTRY_ACHIEVEMENT,
    FLOOR_NAMES,
    INVENTORY_ACHIEVEMENTS,
    ITEM_LADDER_DOWN,
    ITEM_LADDER_UP,
    MAP_SIZE,
    MOB_BLOCKED_TERRAIN,
    MOB_CAPS,
    MOB_CLASSES,
    MOB_HEALTH,
    MOB_KINDS,
    MONSTERS_KILLED_TO_CLEAR_FLOOR,
    NUM_ACHIEVEMENTS,
    NUM_FLOORS,
    PLACEABLE_BLOCKS,
    SOLID_BLOCKS,
    floor_mob_kind,
)
from dicode.domains.craftax.rules import RULE_NAMES, RULES, default_rules
from dicode.domains.craftax.schema import StateArrays, check_state_arrays

BUILDER_VERSION = "craftax-builder/1"
MAX_INVENTORY = 99
# Tool tiers: 0 none, 1 wood, 2 stone, 3 iron, 4 diamond.
MAX_TOOL_TIER = 4
ARMOUR_TIERS = {"none": 0, "iron": 1, "diamond": 2}
ENCHANTMENTS = {"none": 0, "fire": 1, "ice": 2}
POTION_COLOURS = ("red", "green", "blue", "pink", "cyan", "yellow")
MAX_ATTRIBUTE = 5
_MAX_GROWING_PLANTS = 10
_SOLID_IDS = frozenset(BLOCK_IDS[name] for name in SOLID_BLOCKS)
_WATER, _LAVA, _PLANT = BLOCK_IDS["water"], BLOCK_IDS["lava"], BLOCK_IDS["plant"]
INVENTORY_LIMITS = {
    "wood": MAX_INVENTORY, "stone": MAX_INVENTORY, "coal": MAX_INVENTORY,
    "iron": MAX_INVENTORY, "diamond": MAX_INVENTORY, "sapling": MAX_INVENTORY,
    "ruby": MAX_INVENTORY, "sapphire": MAX_INVENTORY, "arrows": MAX_INVENTORY,
    "torches": MAX_INVENTORY, "books": MAX_INVENTORY,
    "pickaxe": MAX_TOOL_TIER, "sword": MAX_TOOL_TIER, "bow": 1,
}  # fmt: skip


ATTRIBUTES = ("dexterity", "strength", "intelligence")
VITALS = ("health", "food", "drink", "energy", "mana")


def max_vital(name: str, attributes: Mapping[str, int]) -> int:
    """A vital's maximum given the player's attributes (absent ones count as 1): health
    8 + strength, food/drink/energy 7 + 2·dexterity, mana 6 + 3·intelligence."""
    if name == "health":
        return 8 + attributes.get("strength", 1)
    if name == "mana":
        return 6 + 3 * attributes.get("intelligence", 1)
    return 7 + 2 * attributes.get("dexterity", 1)


class BuildError(ValueError):
    """Level code asked for something the builder cannot do; the message says what and why."""


@dataclass(frozen=True)
class BuiltLevel:
    """One finished initial condition: the edited world, the rule vector and the goal."""

    state: StateArrays
    rules: np.ndarray  # (NUM_RULES,) float32
    goal: np.ndarray  # (67,) bool multi-hot of the goal achievements


def _as_int(method: str, arg: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer | float | np.floating):
        raise BuildError(f"{method}: {arg} must be an integer, got {value!r}")
    if isinstance(value, float | np.floating) and not float(value).is_integer():
        raise BuildError(f"{method}: {arg} must be a whole number, got {value!r}")
    return int(value)


def _as_float(method: str, arg: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise BuildError(f"{method}: {arg} must be a number, got {value!r}")
    result = float(value)
    if not math.isfinite(result):
        raise BuildError(f"{method}: {arg} must be finite, got {value!r}")
    return result


def _clamp(value: int, low: int, high: int) -> int:
    return max(low, min(high, value))


class CraftaxLevel:
    """A Craftax world being edited by level code (see the module docstring for conventions).

    Read the world with ``floor``, ``player_position``, ``block_at``, ``find_blocks``,
    ``ladder_position`` and ``mob_count``; edit it with the ``set_*``, ``place_*``,
    ``fill_area`` and ``add_mob*`` methods; choose the rule multipliers with ``set_rules``
    and the goal with ``set_goal`` (required). Methods that pick random cells draw from
    ``rng``, the generator ``build`` receives, so a level is reproducible from its seed.
    """

    # Fixed slots: level code cannot replace methods (e.g. ``to_arrays``) or add attributes.
    __slots__ = ("_goal", "_overworld_start", "_rng", "_rules", "_s")

    def __init__(self, base_world: Mapping[str, np.ndarray], rng: np.random.Generator) -> None:
        self._s = {k: np.array(v, copy=True) for k, v in check_state_arrays(base_world).items()}
        self._rng = rng
        self._rules = default_rules()
        self._goal: list[str] = []
        self._overworld_start = (
            int(self._s["player_position"][0]),
            int(self._s["player_position"][1]),
        )

    # ---------------------------------------------------------------- reading the world
    @property
    def floor(self) -> int:
        """The player's current floor (0..8)."""
        return int(self._s["player_level"])

    @property
    def achievements(self) -> tuple[str, ...]:
        """Every Craftax achievement name, in Craftax's id order (e.g. for ``set_goal``)."""
        return ACHIEVEMENT_NAMES

    @property
    def player_position(self) -> tuple[int, int]:
        """The player's ``(row, col)`` on the current floor."""
        pos = self._s["player_position"]
        return int(pos[0]), int(pos[1])

    def block_at(self, row: int, col: int, floor: int | None = None) -> str:
        """Name of the block at ``(row, col)`` (e.g. ``"grass"``, ``"stone"``)."""
        f = self._floor_arg("block_at", floor)
        r, c = self._cell("block_at", row, col)
        return BLOCK_NAMES[int(self._s["map"][f, r, c])]

    def find_blocks(self, block: str, floor: int | None = None) -> list[tuple[int, int]]:
        """All ``(row, col)`` cells holding ``block`` on a floor, nearest to the player first."""
        f = self._floor_arg("find_blocks", floor)
        block_id = self._block_id("find_blocks", block, placeable_only=False)
        rows, cols = np.nonzero(self._s["map"][f] == block_id)
        pr, pc = self.player_position
        order = np.argsort(np.maximum(np.abs(rows - pr), np.abs(cols - pc)), kind="stable")
        return [(int(rows[i]), int(cols[i])) for i in order]

    def mob_count(self, mob_class: str, floor: int | None = None) -> int:
        """How many mobs of ``mob_class`` ("passive", "melee", "ranged") live on a floor."""
        f = self._floor_arg("mob_count", floor)
        if mob_class not in MOB_CLASSES:
            raise BuildError(
                f"mob_count: mob_class must be one of {MOB_CLASSES}, got {mob_class!r}"
            )
        return int(self._s[f"{mob_class}_mobs.mask"][f].sum())

    def ladder_position(self, direction: str = "down", floor: int | None = None) -> tuple[int, int]:
        """``(row, col)`` of a floor's ladder; ``direction`` is "down" or "up" (the overworld has
        no up-ladder, the graveyard no down-ladder)."""
        f = self._floor_arg("ladder_position", floor)
        if direction not in ("down", "up"):
            raise BuildError(
                f"ladder_position: direction must be 'down' or 'up', got {direction!r}"
            )
        if (direction, f) in (("up", 0), ("down", NUM_FLOORS - 1)):
            raise BuildError(f"ladder_position: floor {f} has no {direction}-ladder")
        row, col = self._s[f"{direction}_ladders"][f]
        return int(row), int(col)

    # ---------------------------------------------------------------- the player
    def set_floor(self, floor: int) -> None:
        """Start the player on ``floor`` (0..8), standing on that floor's up-ladder (or, for the
        overworld, at the original start). Arriving there already counts as entered, so the
        floor's ``enter_*`` achievement cannot be a goal. Descending from a floor needs 8 kills
        there first (see ``set_monsters_killed``)."""
        f = self._floor_arg("set_floor", floor)
        self._set("player_level", f)
        target = (
            self._overworld_start if f == 0 else tuple(int(x) for x in self._s["up_ladders"][f])
        )
        self._s["player_position"] = np.array(target, np.int32)

    def set_player_position(self, row: int, col: int) -> None:
        """Move the player to ``(row, col)`` on the current floor: the cell must not be solid,
        water or lava, nor hold a mob."""
        r, c = self._cell("set_player_position", row, col)
        block = int(self._s["map"][self.floor, r, c])
        if block in _SOLID_IDS or block in (_WATER, _LAVA):
            raise BuildError(f"set_player_position: cell ({r}, {c}) is {BLOCK_NAMES[block]}")
        if self._s["mob_map"][self.floor, r, c]:
            raise BuildError(f"set_player_position: a mob stands on ({r}, {c})")
        self._s["player_position"] = np.array([r, c], np.int32)

    def set_player(
        self,
        health: int | None = None,
        food: int | None = None,
        drink: int | None = None,
        energy: int | None = None,
        mana: int | None = None,
    ) -> None:
        """Set the player's vitals. Each is clamped to [1, its maximum]: health up to
        8 + strength, food/drink/energy up to 7 + 2·dexterity, mana up to 6 + 3·intelligence
        (all 9 with the default attributes of 1)."""
        for name, value in (("health", health), ("food", food), ("drink", drink),
                            ("energy", energy), ("mana", mana)):  # fmt: skip
            if value is None:
                continue
            amount = _clamp(_as_int("set_player", name, value), 1, self._max_vital(name))
            self._set(f"player_{name}", amount)

    def set_attributes(
        self,
        dexterity: int | None = None,
        strength: int | None = None,
        intelligence: int | None = None,
    ) -> None:
        """Set the player's attributes, each clamped to 1..5. Dexterity slows needs and raises
        food/drink/energy maxima; strength raises max health and melee damage; intelligence
        raises max mana and mana regeneration."""
        for name, value in (("dexterity", dexterity), ("strength", strength),
                            ("intelligence", intelligence)):  # fmt: skip
            if value is not None:
                amount = _clamp(_as_int("set_attributes", name, value), 1, MAX_ATTRIBUTE)
                self._set(f"player_{name}", amount)

    def set_xp(self, xp: int) -> None:
        """Set unspent experience points (clamped 0..99); each buys one attribute level."""
        self._set("player_xp", _clamp(_as_int("set_xp", "xp", xp), 0, MAX_INVENTORY))

    def set_inventory(self, **items: int) -> None:
        """Set inventory counts, e.g. ``set_inventory(wood=5, stone=2, pickaxe=1)``.

        Items: wood, stone, coal, iron, diamond, sapling, ruby, sapphire, arrows, torches,
        books (each clamped 0..99); pickaxe and sword are tiers (0 none, 1 wood, 2 stone,
        3 iron, 4 diamond); bow is 0 or 1. Holding an item counts as already having its
        achievement (wood → collect_wood, pickaxe 2 → make_wood_pickaxe and
        make_stone_pickaxe, …), so those achievements cannot be goals.
        """
        for name, value in items.items():
            if name not in INVENTORY_LIMITS:
                raise BuildError(
                    f"set_inventory: unknown item {name!r}; items are {sorted(INVENTORY_LIMITS)}"
                )
            amount = _clamp(_as_int("set_inventory", name, value), 0, INVENTORY_LIMITS[name])
            self._set(f"inventory.{name}", amount)

    def set_armour(self, tier: str, pieces: int = 4) -> None:
        """Wear ``pieces`` (0..4) armour pieces of ``tier`` ("none", "iron", "diamond")."""
        if tier not in ARMOUR_TIERS:
            raise BuildError(
                f"set_armour: tier must be one of {sorted(ARMOUR_TIERS)}, got {tier!r}"
            )
        count = _clamp(_as_int("set_armour", "pieces", pieces), 0, 4)
        armour = np.zeros((4,), np.int32)
        armour[:count] = ARMOUR_TIERS[tier]
        self._s["inventory.armour"] = armour

    def set_potions(self, **counts: int) -> None:
        """Set potion counts by colour (red, green, blue, pink, cyan, yellow), clamped 0..99.
        Which colour does what is shuffled per world, as in Craftax."""
        for colour, value in counts.items():
            if colour not in POTION_COLOURS:
                raise BuildError(
                    f"set_potions: colour must be one of {POTION_COLOURS}, got {colour!r}"
                )
            amount = _clamp(_as_int("set_potions", colour, value), 0, MAX_INVENTORY)
            self._s["inventory.potions"][POTION_COLOURS.index(colour)] = amount

    def set_enchantments(
        self, sword: str | None = None, bow: str | None = None, armour: str | None = None
    ) -> None:
        """Enchant the sword, the bow or all armour pieces with "none", "fire" or "ice"."""
        for name, value in (("sword", sword), ("bow", bow), ("armour", armour)):
            if value is None:
                continue
            if value not in ENCHANTMENTS:
                raise BuildError(
                    f"set_enchantments: {name} must be one of {sorted(ENCHANTMENTS)}, got {value!r}"
                )
            if name == "armour":
                self._s["armour_enchantments"] = np.full((4,), ENCHANTMENTS[value], np.int32)
            else:
                self._set(f"{name}_enchantment", ENCHANTMENTS[value])

    def learn_spells(self, fireball: bool = False, iceball: bool = False) -> None:
        """Give the player spells as if their books had been read (casting costs mana)."""
        self._s["learned_spells"] = np.array([bool(fireball), bool(iceball)])

    def set_monsters_killed(self, count: int, floor: int | None = None) -> None:
        """Set the kill counter of a floor (clamped 0..99). Its down-ladder opens at 8 kills."""
        f = self._floor_arg("set_monsters_killed", floor)
        amount = _clamp(_as_int("set_monsters_killed", "count", count), 0, MAX_INVENTORY)
        self._s["monsters_killed"][f] = amount

    def set_day_time(self, fraction: float) -> None:
        """Start at a time of day: ``fraction`` in [0, 1) of the 300-step day. 0.0 early morning,
        0.2 noon, 0.5 dusk, 0.7 midnight (darkest; zombies spawn more), 0.9 dawn."""
        value = _as_float("set_day_time", "fraction", fraction)
        if not 0.0 <= value < 1.0:
            raise BuildError(f"set_day_time: fraction must be in [0, 1), got {fraction!r}")
        step = round(value * DAY_LENGTH) % DAY_LENGTH
        self._set("timestep", step)
        progress = step / DAY_LENGTH + 0.3
        self._set("light_level", 1.0 - abs(math.cos(math.pi * progress)) ** 3)

    # ---------------------------------------------------------------- blocks
    def place_block(self, block: str, row: int, col: int, floor: int | None = None) -> None:
        """Put ``block`` at ``(row, col)``. Blocks: grass, water, stone, tree, wood, path, coal,
        iron, diamond, crafting_table, furnace, sand, lava, plant (a sapling that ripens; the
        overworld only), ripe_plant, wall, wall_moss, stalagmite, sapphire, ruby, chest,
        fountain, fire_grass, ice_grass, gravel, fire_tree, ice_shrub, enchantment_table_fire,
        enchantment_table_ice. Solid blocks, water and lava may not cover the player, a ladder
        or a mob."""
        f = self._floor_arg("place_block", floor)
        block_id = self._block_id("place_block", block)
        r, c = self._cell("place_block", row, col)
        self._put("place_block", f, r, c, block_id)

    def fill_area(
        self, block: str, row0: int, col0: int, row1: int, col1: int, floor: int | None = None
    ) -> None:
        """Fill the rectangle with corners ``(row0, col0)`` and ``(row1, col1)`` (inclusive)
        with ``block``, skipping the player's cell, ladders and mobs when ``block`` is solid,
        water or lava (so walls can be drawn around the player)."""
        f = self._floor_arg("fill_area", floor)
        block_id = self._block_id("fill_area", block)
        r0, c0 = self._cell("fill_area", row0, col0)
        r1, c1 = self._cell("fill_area", row1, col1)
        for r in range(min(r0, r1), max(r0, r1) + 1):
            for c in range(min(c0, c1), max(c0, c1) + 1):
                if self._blocks_movement(block_id) and self._is_protected(f, r, c):
                    continue
                self._put("fill_area", f, r, c, block_id)

    def place_near_player(
        self, block: str, count: int = 1, max_distance: int = 3
    ) -> list[tuple[int, int]]:
        """Place ``count`` blocks on random open cells (not solid, water or lava; no ladder,
        mob or player) within ``max_distance`` (1..20, Chebyshev) of the player on the
        current floor. Returns the cells used; raises if fewer than ``count`` are free."""
        method = "place_near_player"
        block_id = self._block_id(method, block)
        n = _as_int(method, "count", count)
        if not 1 <= n <= 100:
            raise BuildError(f"{method}: count must be in 1..100, got {count!r}")
        cells = self._open_cells_near(method, max_distance, min_distance=1)
        if len(cells) < n:
            raise BuildError(
                f"{method}: only {len(cells)} open cells within {max_distance}, need {n}"
            )
        chosen = [cells[i] for i in self._rng.choice(len(cells), size=n, replace=False)]
        for r, c in chosen:
            self._put(method, self.floor, r, c, block_id)
        return chosen

    # ---------------------------------------------------------------- mobs
    def add_mob(self, kind: str, row: int, col: int, floor: int | None = None) -> None:
        """Add a mob at ``(row, col)``. Kinds — passive: cow, bat, snail; melee: zombie,
        gnome_warrior, orc_soldier, lizard, knight, troll, pigman, frost_troll; ranged:
        skeleton, gnome_archer, orc_mage, kobold, knight_archer, deep_thing, fire_elemental,
        ice_elemental. Each floor holds at most 3 passive, 3 melee and 2 ranged mobs; the cell
        must be free and suit the mob (land mobs avoid water and lava). Mobs act only on the
        player's floor."""
        f = self._floor_arg("add_mob", floor)
        mob_class, type_id = self._mob_kind("add_mob", kind)
        r, c = self._cell("add_mob", row, col)
        problem = self._mob_cell_problem(f, r, c, mob_class)
        if problem:
            raise BuildError(f"add_mob: cannot put a {kind} at ({r}, {c}) on floor {f}: {problem}")
        self._insert_mob(f, r, c, mob_class, type_id, kind)

    def add_mobs_near_player(
        self, kind: str, count: int = 1, max_distance: int = 6, min_distance: int = 2
    ) -> list[tuple[int, int]]:
        """Add ``count`` mobs of ``kind`` on random suitable cells between ``min_distance`` and
        ``max_distance`` (Chebyshev, 1..20) of the player on the current floor, within the
        per-floor caps. Returns the cells used."""
        method = "add_mobs_near_player"
        mob_class, type_id = self._mob_kind(method, kind)
        n = _as_int(method, "count", count)
        free_slots = MOB_CAPS[mob_class] - self.mob_count(mob_class)
        if not 1 <= n <= free_slots:
            raise BuildError(
                f"{method}: count must be in 1..{free_slots} ({mob_class} cap {MOB_CAPS[mob_class]}"
                f" per floor, {self.mob_count(mob_class)} present), got {count!r}"
            )
        low = _as_int(method, "min_distance", min_distance)
        cells = [
            cell for cell in self._cells_near(method, max_distance, low)
            if not self._mob_cell_problem(self.floor, cell[0], cell[1], mob_class)
        ]  # fmt: skip
        if len(cells) < n:
            raise BuildError(f"{method}: only {len(cells)} suitable cells for {kind}, need {n}")
        chosen = [cells[i] for i in self._rng.choice(len(cells), size=n, replace=False)]
        for r, c in chosen:
            self._insert_mob(self.floor, r, c, mob_class, type_id, kind)
        return chosen

    # ---------------------------------------------------------------- rules and goal
    def set_rules(self, **multipliers: float) -> None:
        """Change game mechanics by bounded multipliers (1.0 = normal Craftax):

        - spawn_passive, spawn_melee, spawn_ranged in [0, 1]: chance that each natural spawn of
          that mob class happens (0 = none spawn; use add_mob for more);
        - mob_health in [0.25, 4]: health of all mobs, present and spawned;
        - mob_damage in [0, 3]: damage monsters and projectiles deal to the player;
        - needs_depletion in [0.25, 3]: how fast food, drink and energy run down;
        - health_recover in [0.25, 4]: natural regeneration while needs are met;
        - health_loss in [0.25, 3]: health loss while starving, thirsty or exhausted;
        - mana_recover in [0.25, 4]: mana regeneration.
        Values outside the bounds raise ``BuildError``.
        """
        for name, value in multipliers.items():
            if name not in RULES:
                raise BuildError(f"set_rules: unknown rule {name!r}; rules are {list(RULE_NAMES)}")
            number = _as_float("set_rules", name, value)
            rule = RULES[name]
            if not rule.low <= number <= rule.high:
                raise BuildError(
                    f"set_rules: {name}={value!r} is outside [{rule.low}, {rule.high}]"
                )
            self._rules[RULE_NAMES.index(name)] = number

    def set_goal(self, *achievements: str) -> None:
        """Set the level's goal: achievement names (any of Craftax's 67, e.g. "collect_wood",
        "make_stone_pickaxe", "defeat_zombie", "wake_up", "enter_dungeon"). The level is
        solved when all are unlocked. Achievements the start already implies (held items, the
        starting floor) may not be goals."""
        if not achievements:
            raise BuildError("set_goal: give at least one achievement")
        for name in achievements:
            if name not in ACHIEVEMENT_IDS:
                raise BuildError(f"set_goal: unknown achievement {name!r}")
        self._goal = list(dict.fromkeys(achievements))

    # ---------------------------------------------------------------- finishing
    def finish(self) -> BuiltLevel:
        """Validate and freeze the level: re-clamp vitals to the final attributes, scale mob
        health by ``mob_health``, mark the achievements the start implies as already unlocked
        (they earn no reward), and check the goal. Called by the runner after ``build``."""
        if not self._goal:
            raise BuildError("set_goal was never called: every level needs a goal")
        for name in ("health", "food", "drink", "energy", "mana"):
            key = f"player_{name}"
            self._set(key, _clamp(int(self._s[key]), 1, self._max_vital(name)))
        state = {key: value.copy() for key, value in self._s.items()}  # finish twice = same
        health_scale = self._rules[RULE_NAMES.index("mob_health")]
        for mob_class in MOB_CLASSES:
            mask = state[f"{mob_class}_mobs.mask"]
            health = state[f"{mob_class}_mobs.health"]
            health[mask] = health[mask] * health_scale
        implied = self.implied_achievements()
        clash = [name for name in self._goal if name in implied]
        if clash:
            raise BuildError(
                f"set_goal: {clash} already unlocked at the start"
                f" ({', '.join(implied[n] for n in clash)})"
            )
        achieved = np.zeros((NUM_ACHIEVEMENTS,), bool)
        achieved[[ACHIEVEMENT_IDS[n] for n in implied]] = True
        state["achievements"] = achieved
        goal = np.zeros((NUM_ACHIEVEMENTS,), bool)
        goal[[ACHIEVEMENT_IDS[n] for n in self._goal]] = True
        return BuiltLevel(state=check_state_arrays(state), rules=self._rules.copy(), goal=goal)

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The finished level as one flat dict: the state fields plus ``rules`` and ``goal``
        (the form the sandbox worker stacks into a pool; called by the runner after build)."""
        built = self.finish()
        return {**built.state, "rules": built.rules, "goal": built.goal}

    def implied_achievements(self) -> dict[str, str]:
        """Achievements the current start already grants, each with the reason."""
        implied: dict[str, str] = {}
        for item, thresholds in INVENTORY_ACHIEVEMENTS.items():
            held = int(self._s[f"inventory.{item}"])
            for minimum, name in thresholds:
                if held >= minimum:
                    implied[name] = f"inventory {item}={held}"
        entry = FLOOR_ENTRY_ACHIEVEMENT[self.floor]
        if entry is not None:
            implied[entry] = f"starting floor {self.floor}"
        return implied

    # ---------------------------------------------------------------- internals
    def _set(self, key: str, value: float) -> None:
        """Write a scalar field, keeping the schema dtype."""
        self._s[key] = np.asarray(value, self._s[key].dtype)

    def _max_vital(self, name: str) -> int:
        attributes = {a: int(self._s[f"player_{a}"]) for a in ATTRIBUTES}
        return max_vital(name, attributes)

    def _floor_arg(self, method: str, floor: int | None) -> int:
        if floor is None:
            return self.floor
        f = _as_int(method, "floor", floor)
        if not 0 <= f < NUM_FLOORS:
            raise BuildError(f"{method}: floor must be in 0..{NUM_FLOORS - 1}, got {floor!r}")
        return f

    @staticmethod
    def _cell(method: str, row: object, col: object) -> tuple[int, int]:
        r, c = _as_int(method, "row", row), _as_int(method, "col", col)
        for arg, v in (("row", r), ("col", c)):
            if not 0 <= v < MAP_SIZE:
                raise BuildError(f"{method}: {arg} must be in 0..{MAP_SIZE - 1}, got {v}")
        return r, c

    @staticmethod
    def _block_id(method: str, block: object, placeable_only: bool = True) -> int:
        allowed = PLACEABLE_BLOCKS if placeable_only else frozenset(BLOCK_NAMES)
        if not isinstance(block, str) or block not in allowed:
            raise BuildError(
                f"{method}: unknown or unplaceable block {block!r}; blocks are {sorted(allowed)}"
            )
        return BLOCK_IDS[block]

    @staticmethod
    def _mob_kind(method: str, kind: object) -> tuple[str, int]:
        if not isinstance(kind, str) or kind not in MOB_KINDS:
            raise BuildError(f"{method}: unknown mob kind {kind!r}; kinds are {sorted(MOB_KINDS)}")
        return MOB_KINDS[kind]

    @staticmethod
    def _blocks_movement(block_id: int) -> bool:
        return block_id in _SOLID_IDS or block_id in (_WATER, _LAVA)

    def _is_protected(self, f: int, r: int, c: int) -> bool:
        """Is this cell the player's, a ladder's or a mob's (cells solid blocks must not cover)?"""
        is_player = f == self.floor and (r, c) == self.player_position
        item = int(self._s["item_map"][f, r, c])
        return (
            is_player
            or item in (ITEM_LADDER_DOWN, ITEM_LADDER_UP)
            or bool(self._s["mob_map"][f, r, c])
        )

    def _put(self, method: str, f: int, r: int, c: int, block_id: int) -> None:
        if self._blocks_movement(block_id) and self._is_protected(f, r, c):
            raise BuildError(
                f"{method}: {BLOCK_NAMES[block_id]} may not cover ({r}, {c}) on floor {f}"
                " (player, ladder or mob there)"
            )
        positions, mask = self._s["growing_plants_positions"], self._s["growing_plants_mask"]
        # A growing sapling rewrites its cell when it ripens; drop it if the cell is replaced.
        if f == 0:
            mask &= ~np.all(positions == (r, c), axis=1)
        if block_id == _PLANT:
            if f != 0:
                raise BuildError(
                    f"{method}: plants grow only on the overworld (floor 0), got floor {f}"
                )
            free = np.flatnonzero(~mask)
            if free.size == 0:
                raise BuildError(
                    f"{method}: at most {_MAX_GROWING_PLANTS} growing plants per world"
                )
            slot = int(free[0])
            positions[slot] = (r, c)
            mask[slot] = True
            self._s["growing_plants_age"][slot] = 0
        self._s["map"][f, r, c] = block_id

    def _cells_near(
        self, method: str, max_distance: object, min_distance: int
    ) -> list[tuple[int, int]]:
        reach = _as_int(method, "max_distance", max_distance)
        if not 1 <= reach <= 20 or not 0 <= min_distance <= reach:
            raise BuildError(
                f"{method}: need 0 <= min_distance <= max_distance and 1 <= max_distance <= 20,"
                f" got min_distance={min_distance}, max_distance={max_distance!r}"
            )
        pr, pc = self.player_position
        return [
            (r, c)
            for r in range(max(0, pr - reach), min(MAP_SIZE, pr + reach + 1))
            for c in range(max(0, pc - reach), min(MAP_SIZE, pc + reach + 1))
            if max(abs(r - pr), abs(c - pc)) >= max(min_distance, 1)
        ]

    def _open_cells_near(
        self, method: str, max_distance: object, min_distance: int
    ) -> list[tuple[int, int]]:
        f = self.floor
        return [
            (r, c) for r, c in self._cells_near(method, max_distance, min_distance)
            if not self._blocks_movement(int(self._s["map"][f, r, c]))
            and not self._is_protected(f, r, c)
        ]  # fmt: skip

    def _mob_cell_problem(self, f: int, r: int, c: int, mob_class: str) -> str:
        block = int(self._s["map"][f, r, c])
        if f == self.floor and (r, c) == self.player_position:
            return "the player stands there"
        if self._s["mob_map"][f, r, c]:
            return "another mob stands there"
        if block in _SOLID_IDS:
            return f"the cell is {BLOCK_NAMES[block]}"
        no_ground, no_water, no_lava = MOB_BLOCKED_TERRAIN[f][mob_class]
        if block == _WATER and no_water:
            return "this mob cannot stand in water"
        if block == _LAVA and no_lava:
            return "this mob cannot stand in lava"
        if block not in (_WATER, _LAVA) and no_ground:
            return "this mob lives in water on this floor"
        return ""

    def _insert_mob(self, f: int, r: int, c: int, mob_class: str, type_id: int, kind: str) -> None:
        prefix = f"{mob_class}_mobs"
        free = np.flatnonzero(~self._s[f"{prefix}.mask"][f])
        if free.size == 0:
            raise BuildError(
                f"add_mob: floor {f} already holds {MOB_CAPS[mob_class]} {mob_class} mobs"
                " (the cap);"
                f" cannot add a {kind}"
            )
        slot = int(free[0])
        self._s[f"{prefix}.position"][f, slot] = (r, c)
        self._s[f"{prefix}.health"][f, slot] = MOB_HEALTH[mob_class][type_id]
        self._s[f"{prefix}.mask"][f, slot] = True
        self._s[f"{prefix}.attack_cooldown"][f, slot] = 0
        self._s[f"{prefix}.type_id"][f, slot] = type_id
        self._s["mob_map"][f, r, c] = True


def make_builder(rng: np.random.Generator, base_world: Mapping[str, np.ndarray]) -> CraftaxLevel:
    """A fresh ``CraftaxLevel`` over a copy of ``base_world`` (the sandbox worker's factory)."""
    return CraftaxLevel(base_world, rng)


def build_level(
    build: Callable[[CraftaxLevel, np.random.Generator], object],
    base_world: Mapping[str, np.ndarray],
    seed: int,
) -> BuiltLevel:
    """Run a level's ``build(level, rng)`` on a copy of ``base_world`` seeded with ``seed``,
    then finish it."""
    rng = np.random.default_rng(seed)
    level = CraftaxLevel(base_world, rng)
    build(level, rng)
    return level.finish()


# Run by the sandbox runner after ``build``, not by level code.
_RUNNER_METHODS = ("finish", "to_arrays")


def builder_api_docs() -> str:
    """The builder API documentation for prompts, rendered from this module's docstrings and
    constants (bounds, names and achievements are generated, never restated by hand)."""
    # The module docstring's last paragraph is for maintainers.
    contract = "\n\n".join(inspect.cleandoc(__doc__ or "").split("\n\n")[:-1])
    return render_builder_api(contract, CraftaxLevel, _bounds(), skip=_RUNNER_METHODS)


def prompt_facts() -> dict[str, str]:
    """Game facts the Craftax prompt templates name (``$num_achievements`` and so on)."""
    return {
        "num_achievements": str(NUM_ACHIEVEMENTS),
        "num_floors": str(NUM_FLOORS),
        "map_size": str(MAP_SIZE),
        "floor_names": ", ".join(f"{i} {name}" for i, name in enumerate(FLOOR_NAMES)),
        "monsters_to_clear_floor": str(MONSTERS_KILLED_TO_CLEAR_FLOOR),
    }


def _bounds() -> str:
    items = [n for n, limit in INVENTORY_LIMITS.items() if limit == MAX_INVENTORY]
    kinds = {c: [k for k, (kc, _) in MOB_KINDS.items() if kc == c] for c in MOB_CLASSES}
    natural = "; ".join(
        f"{f} {name}: " + ", ".join(floor_mob_kind(f, c) for c in MOB_CLASSES)
        for f, name in enumerate(FLOOR_NAMES)
    )
    by_reward: dict[int, list[str]] = {}
    for name, reward in zip(ACHIEVEMENT_NAMES, ACHIEVEMENT_REWARDS, strict=True):
        by_reward.setdefault(reward, []).append(name)
    lines = [
        "Bounds and names (generated from the builder's constants):",
        f"- map: {MAP_SIZE}x{MAP_SIZE} cells per floor, (row, col) in 0..{MAP_SIZE - 1};"
        f" floors 0..{NUM_FLOORS - 1}: "
        + ", ".join(f"{i} {name}" for i, name in enumerate(FLOOR_NAMES)),
        f"- inventory: {', '.join(items)} in 0..{MAX_INVENTORY}; pickaxe and sword tiers"
        f" 0..{MAX_TOOL_TIER}; bow 0..1; attributes 1..{MAX_ATTRIBUTE}",
        "- mobs per floor at most: "
        + ", ".join(f"{MOB_CAPS[c]} {c}" for c in MOB_CLASSES)
        + "; kinds: "
        + "; ".join(f"{c}: {', '.join(kinds[c])}" for c in MOB_CLASSES),
        f"- the mobs Craftax spawns on each floor (passive, melee, ranged): {natural}",
        "- rules (set_rules; 1.0 = normal Craftax):",
        *(f"    {n} in [{r.low:g}, {r.high:g}]: {r.meaning}" for n, r in RULES.items()),
        f"- placeable blocks: {', '.join(sorted(PLACEABLE_BLOCKS))}",
        f"- the {NUM_ACHIEVEMENTS} achievements (set_goal), by reward (harder ones pay more):",
        *(f"    {reward}: {', '.join(names)}" for reward, names in sorted(by_reward.items())),
        "Allowed imports: math, itertools, functools, collections, numpy.",
    ]
    return "\n".join(lines)
