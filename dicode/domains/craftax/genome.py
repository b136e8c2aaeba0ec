"""A small typed genome for Craftax levels: read level code without running it, write it back.

The mutation teacher edits Craftax levels through this genome: the starting floor, the
player's attributes, vitals and inventory, the time of day, blocks and mobs placed near the
player, the rule multipliers and the goal achievements. ``read_genome`` reads a level module
with :mod:`ast` only (level code is untrusted and never runs here). The grammar covers
``build(level, rng)`` bodies made of the builder calls that set those fields
(``set_floor``, ``set_attributes``, ``set_player``, ``set_inventory``, ``set_day_time``,
``place_near_player``, ``add_mobs_near_player``, ``set_rules``, ``set_goal``) with literal
arguments, names bound by simple constant assignments, and ``set_goal(*level.achievements)``.
Arguments are bound with the builder's own signatures and clamped or checked as the builder
does, so the genome reproduces the level.

Statements outside the grammar (reading the world, ``rng``, loops, other builder methods) are
kept verbatim as set-up code when that is safe — the same policy as the Tetris genome
(``dicode.teachers.level_source.read_build_body``): the set-up code may not call the setters
above, and ``set_floor`` must come before it. A level that cannot be read that way falls back
to :func:`default_genome`, the unmodified game, keeping the level's docstring.

``write_level`` writes a genome as a level module: ``set_floor`` first, then the set-up code,
then the setters, the near-player placements in their order, the rules and the goal.
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass, field, replace
from typing import Any

from dicode.domains.craftax.builder import (
    ATTRIBUTES,
    INVENTORY_LIMITS,
    MAX_ATTRIBUTE,
    VITALS,
    CraftaxLevel,
    max_vital,
)
from dicode.domains.craftax.catalog import (
    ACHIEVEMENT_IDS,
    ACHIEVEMENT_NAMES,
    FLOOR_ENTRY_ACHIEVEMENT,
    FLOOR_NAMES,
    INVENTORY_ACHIEVEMENTS,
    MOB_CAPS,
    MOB_CLASSES,
    MOB_KINDS,
    NUM_FLOORS,
    PLACEABLE_BLOCKS,
    START_VITAL,
)
from dicode.domains.craftax.rules import RULE_NAMES, RULES
from dicode.teachers import level_source
from dicode.teachers.genome_base import GenomeReading, read_with_fallback
from dicode.teachers.level_source import (
    GenomeError,
    Value,
    as_integer,
    as_number,
)

# Inventory items in the builder's order (tools are tiers, the bow 0 or 1) and their limits.
ITEM_LIMITS = INVENTORY_LIMITS
ITEMS = tuple(INVENTORY_LIMITS)
# The builder's limits on placing near the player (count, Chebyshev distance).
MAX_PLACED = 100
MAX_REACH = 20
MAX_GROWING_PLANTS = 10

ALL_ACHIEVEMENTS = ACHIEVEMENT_NAMES
# ``set_day_time`` fractions between dusk and dawn (light below ~0.5: night spawns).
NIGHT_START, NIGHT_END = 0.5, 0.9


@dataclass(frozen=True)
class BlockPatch:
    """``level.place_near_player(block, count, max_distance)``: ``count`` blocks on random open
    cells within ``max_distance`` of the player."""

    block: str
    count: int = 1
    max_distance: int = 3


@dataclass(frozen=True)
class MobGroup:
    """``level.add_mobs_near_player(kind, count, max_distance, min_distance)``: ``count`` mobs
    of ``kind`` between ``min_distance`` and ``max_distance`` of the player."""

    kind: str
    count: int = 1
    max_distance: int = 6
    min_distance: int = 2

    @property
    def mob_class(self) -> str:
        return MOB_KINDS[self.kind][0]


NearPlayer = BlockPatch | MobGroup


@dataclass(frozen=True)
class CraftaxGenome:
    """Everything the mutation teacher can edit in a Craftax level.

    Name–value pairs hold only what differs from a fresh world (attributes 1, vitals 9,
    inventory 0, rules 1.0), in the builder's order. ``near_player`` keeps call order: each
    placement draws from the level's ``rng`` and takes cells the next one cannot use. ``goal``
    lists achievements in Craftax's id order. ``module_code`` and ``setup_code`` are the
    parent's unmodelled code, kept verbatim (see the module docstring).
    """

    description: str
    goal: tuple[str, ...]
    module_code: str = ""
    setup_code: str = ""
    floor: int = 0
    attributes: tuple[tuple[str, int], ...] = ()
    vitals: tuple[tuple[str, int], ...] = ()
    inventory: tuple[tuple[str, int], ...] = ()
    day_time: float | None = None
    near_player: tuple[NearPlayer, ...] = ()
    rules: tuple[tuple[str, float], ...] = ()

    def normalized(self) -> CraftaxGenome:
        """The canonical form: same level, one spelling (see ``_canonical``)."""
        return _canonical(self)

    def attribute(self, name: str) -> int:
        return dict(self.attributes).get(name, 1)

    def vital(self, name: str) -> int:
        """The starting value of a vital (a fresh world's 9 unless set), clamped as the builder
        clamps it at the end of ``build``."""
        return max(1, min(self.max_vital(name), dict(self.vitals).get(name, START_VITAL)))

    def max_vital(self, name: str) -> int:
        return max_vital(name, dict(self.attributes))

    def item(self, name: str) -> int:
        return dict(self.inventory).get(name, 0)

    def rule(self, name: str) -> float:
        return dict(self.rules).get(name, 1.0)

    @property
    def mobs(self) -> tuple[MobGroup, ...]:
        return tuple(n for n in self.near_player if isinstance(n, MobGroup))

    @property
    def patches(self) -> tuple[BlockPatch, ...]:
        return tuple(n for n in self.near_player if isinstance(n, BlockPatch))

    def mob_count(self, mob_class: str) -> int:
        """Mobs of ``mob_class`` the genome places (set-up code may place more)."""
        return sum(m.count for m in self.mobs if m.mob_class == mob_class)

    def implied_achievements(self) -> frozenset[str]:
        """Achievements the start grants (held items, the starting floor): never goals."""
        implied = {
            name
            for item, thresholds in INVENTORY_ACHIEVEMENTS.items()
            for minimum, name in thresholds
            if self.item(item) >= minimum
        }
        entry = FLOOR_ENTRY_ACHIEVEMENT[self.floor]
        if entry is not None:
            implied.add(entry)
        return frozenset(implied)


def default_genome(description: str | None = None) -> CraftaxGenome:
    """The unmodified game: a fresh world, normal rules, every achievement as the goal."""
    text = description or (
        "The unmodified Craftax game: a fresh world, normal rules, every achievement as the goal."
    )
    return CraftaxGenome(description=level_source.clean_text(text), goal=ALL_ACHIEVEMENTS)


def read_genome(source: str) -> GenomeReading[CraftaxGenome]:
    """Read a level's genome and report whether the grammar covered all of it."""
    return read_with_fallback(source, _read_module, default_genome)


def parse_level(source: str) -> CraftaxGenome:
    """Read a level's genome; code outside the grammar gives :func:`default_genome`."""
    return read_genome(source).genome


def write_level(genome: CraftaxGenome) -> str:
    """Write a genome as a level module following the Craftax level contract."""
    g = genome.normalized()
    body: list[str] = []
    if g.floor:
        body.append(f"level.set_floor({g.floor})")
    if g.setup_code:
        body.extend(g.setup_code.splitlines())
    for method, pairs in (
        ("set_attributes", g.attributes),
        ("set_player", g.vitals),
        ("set_inventory", g.inventory),
    ):
        if pairs:
            body.append(_call(method, [f"{name}={value!r}" for name, value in pairs]))
    if g.day_time is not None:
        body.append(_call("set_day_time", [repr(g.day_time)]))
    for near in g.near_player:
        if isinstance(near, BlockPatch):
            args = [f'"{near.block}"', f"count={near.count}", f"max_distance={near.max_distance}"]
            body.append(_call("place_near_player", args))
        else:
            args = [f'"{near.kind}"', f"count={near.count}", f"max_distance={near.max_distance}",
                    f"min_distance={near.min_distance}"]  # fmt: skip
            body.append(_call("add_mobs_near_player", args))
    if g.rules:
        body.append(_call("set_rules", [f"{name}={value!r}" for name, value in g.rules]))
    if g.goal == ALL_ACHIEVEMENTS:
        body.append("level.set_goal(*level.achievements)")
    else:
        body.append(_call("set_goal", [f'"{name}"' for name in g.goal]))
    return level_source.write_module(g.description, g.module_code, body)


def _call(method: str, args: list[str]) -> str:
    one_line = f"level.{method}({', '.join(args)})"
    if len(one_line) <= 88:
        return one_line
    return "\n".join([f"level.{method}(", *(f"    {arg}," for arg in args), ")"])


def check_bounds(genome: CraftaxGenome) -> None:
    """Raise :class:`GenomeError` naming the first field the builder or the level rules reject."""
    g = genome
    if not 0 <= g.floor < NUM_FLOORS:
        raise GenomeError(f"floor {g.floor} outside 0..{NUM_FLOORS - 1}")
    for name, value in g.attributes:
        if name not in ATTRIBUTES or not 1 <= value <= MAX_ATTRIBUTE:
            raise GenomeError(f"attribute {name}={value} is not one of {ATTRIBUTES} in 1..5")
    for name, value in g.vitals:
        if name not in VITALS or value < 1:
            raise GenomeError(f"vital {name}={value} is not one of {VITALS} >= 1")
    for name, value in g.inventory:
        if name not in ITEM_LIMITS or not 0 <= value <= ITEM_LIMITS[name]:
            raise GenomeError(f"inventory {name}={value} outside 0..{ITEM_LIMITS.get(name)}")
    if g.day_time is not None and not 0.0 <= g.day_time < 1.0:
        raise GenomeError(f"day time {g.day_time} outside [0, 1)")
    plants = 0
    for near in g.near_player:
        if not 1 <= near.max_distance <= MAX_REACH:
            raise GenomeError(f"{near}: max_distance outside 1..{MAX_REACH}")
        if isinstance(near, BlockPatch):
            if near.block not in PLACEABLE_BLOCKS or not 1 <= near.count <= MAX_PLACED:
                raise GenomeError(f"{near}: unplaceable block or count outside 1..{MAX_PLACED}")
            plants += near.count if near.block == "plant" else 0
        elif near.kind not in MOB_KINDS or near.count < 1:
            raise GenomeError(f"{near}: unknown mob kind or count < 1")
        elif not 0 <= near.min_distance <= near.max_distance:
            raise GenomeError(f"{near}: needs 0 <= min_distance <= max_distance")
    if plants and (g.floor != 0 or plants > MAX_GROWING_PLANTS):
        raise GenomeError(f"{plants} plants: at most {MAX_GROWING_PLANTS}, on the overworld only")
    for mob_class in MOB_CLASSES:
        if g.mob_count(mob_class) > MOB_CAPS[mob_class]:
            raise GenomeError(f"{mob_class} mobs exceed the per-floor cap {MOB_CAPS[mob_class]}")
    for name, multiplier in g.rules:
        rule = RULES.get(name)
        if rule is None or not rule.low <= multiplier <= rule.high:
            raise GenomeError(f"rule {name}={multiplier} unknown or outside its bounds")
    if not g.goal:
        raise GenomeError("the goal is empty")
    unknown = [name for name in g.goal if name not in ACHIEVEMENT_IDS]
    if unknown:
        raise GenomeError(f"unknown achievements in the goal: {unknown}")
    implied = sorted(set(g.goal) & g.implied_achievements())
    if implied:
        raise GenomeError(f"goal achievements already granted by the start: {implied}")


def describe(genome: CraftaxGenome) -> str:
    """One plain-English paragraph saying what the level is (goal, start, surroundings, rules)."""
    g = genome.normalized()
    if g.goal == ALL_ACHIEVEMENTS:
        goal = "Goal: every achievement (the full game)."
    else:
        goal = f"Goal: unlock {', '.join(g.goal)}."
    start = [f"floor {g.floor} ({FLOOR_NAMES[g.floor]})"]
    if g.setup_code:
        start.append("the parent's own set-up code")
    if g.attributes:
        start.append("attributes " + _pairs(g.attributes))
    if g.vitals:
        start.append("vitals " + _pairs(g.vitals))
    start.append("holding " + _pairs(g.inventory) if g.inventory else "empty-handed")
    if g.day_time is not None:
        start.append(f"day time {g.day_time:g} ({day_phase(g.day_time)})")
    parts = [goal, "Start: " + ", ".join(start) + "."]
    if g.near_player:
        near = [
            f"{n.count} {n.block} within {n.max_distance}"
            if isinstance(n, BlockPatch)
            else f"{n.count} {n.kind} {n.min_distance}-{n.max_distance} away"
            for n in g.near_player
        ]
        parts.append("Near the player: " + ", ".join(near) + ".")
    parts.append("Rules: " + (_pairs(g.rules, "×") if g.rules else "normal") + ".")
    return " ".join(parts)


def day_phase(fraction: float) -> str:
    """ "day" or "night" for a ``set_day_time`` fraction."""
    return "night" if is_night(fraction) else "day"


def is_night(fraction: float | None) -> bool:
    """Dark enough for night spawns: from dusk (0.5) to dawn (0.9) of the builder's clock."""
    return fraction is not None and NIGHT_START <= fraction < NIGHT_END


def _pairs(pairs: tuple[tuple[str, float], ...], sep: str = " ") -> str:
    return ", ".join(f"{name}{sep}{value:g}" for name, value in pairs)


# --- canonical form --------------------------------------------------------------------------


def _canonical(g: CraftaxGenome) -> CraftaxGenome:
    """One spelling per level: fields in the builder's order, values equal to a fresh world's
    dropped, vitals clamped to the final attributes, the goal deduplicated in id order."""
    attributes = tuple((n, v) for n in ATTRIBUTES if (v := dict(g.attributes).get(n, 1)) != 1)
    with_attributes = replace(g, attributes=attributes)
    vitals = tuple((n, with_attributes.vital(n)) for n in VITALS if n in dict(g.vitals))
    return replace(
        with_attributes,
        description=level_source.clean_text(g.description),
        goal=tuple(sorted(set(g.goal), key=_achievement_order)),
        vitals=tuple((n, v) for n, v in vitals if v != START_VITAL),
        inventory=tuple((n, v) for n in ITEMS if (v := dict(g.inventory).get(n, 0)) != 0),
        rules=tuple((n, float(m)) for n in RULE_NAMES if (m := dict(g.rules).get(n, 1.0)) != 1.0),
        day_time=None if g.day_time is None else float(g.day_time),
    )


def _achievement_order(name: str) -> int:
    return ACHIEVEMENT_IDS.get(name, len(ACHIEVEMENT_IDS))


# --- the reader ------------------------------------------------------------------------------

# Order-free setters: lifted out of set-up code, which may not call them. set_floor is one too
# but must come before any set-up code or placement (it moves the player).
_SETTERS = frozenset({"set_floor", "set_attributes", "set_player", "set_inventory",
                      "set_day_time", "set_rules", "set_goal"})  # fmt: skip
_PLACEMENTS = frozenset({"place_near_player", "add_mobs_near_player"})
# What kept code may use on the builder: reads and the world edits the genome does not model.
_KEPT_BUILDER_ATTRIBUTES = frozenset({
    "floor", "achievements", "player_position", "block_at", "find_blocks", "mob_count",
    "ladder_position", "set_player_position", "set_xp", "set_armour", "set_potions",
    "set_enchantments", "learn_spells", "set_monsters_killed", "place_block", "fill_area",
    "place_near_player", "add_mob", "add_mobs_near_player",
})  # fmt: skip
_SIGNATURES = {
    name: inspect.signature(getattr(CraftaxLevel, name)) for name in _SETTERS | _PLACEMENTS
}


@dataclass
class _Trace:
    """What the modelled builder calls did so far."""

    floor: int = 0
    attributes: dict[str, int] = field(default_factory=dict)
    vitals: dict[str, int] = field(default_factory=dict)
    inventory: dict[str, int] = field(default_factory=dict)
    day_time: float | None = None
    near: list[NearPlayer] = field(default_factory=list)
    rules: dict[str, float] = field(default_factory=dict)
    goal: tuple[str, ...] = ()
    moved: bool = False  # a placement or kept code came first: set_floor may not follow

    def copy(self) -> _Trace:
        return replace(
            self,
            attributes=dict(self.attributes),
            vitals=dict(self.vitals),
            inventory=dict(self.inventory),
            near=list(self.near),
            rules=dict(self.rules),
        )

    def charge(self, trial: _Trace) -> None:
        del trial  # straight-line grammar: one statement is at most one call, no budget to carry

    def drop_ordered_edits(self) -> None:
        # The placements modelled so far now live in the set-up code.
        self.near = []
        self.moved = True

    def genome(self, docstring: str, module_code: str, setup_code: str) -> CraftaxGenome:
        return CraftaxGenome(
            description=docstring,
            goal=self.goal,
            module_code=module_code,
            setup_code=setup_code,
            floor=self.floor,
            attributes=tuple(self.attributes.items()),
            vitals=tuple(self.vitals.items()),
            inventory=tuple(self.inventory.items()),
            day_time=self.day_time,
            near_player=tuple(self.near),
            rules=tuple(self.rules.items()),
        )


def _read_module(tree: ast.Module, source: level_source.SourceLines) -> CraftaxGenome:
    module = level_source.read_module(tree, source)

    def model(node: ast.stmt, env: dict[str, Value], trace: _Trace) -> None:
        where = f"line {node.lineno}"
        if isinstance(node, ast.Pass) or level_source.is_docstring(node):
            return
        if isinstance(node, ast.Assign):
            level_source.assign(node, env, where)
            return
        call = level_source.builder_call(node, module.level)
        if call is None:
            raise GenomeError(f"{where}: {type(node).__name__} is outside the genome grammar")
        _apply(*call, env, module.level, trace, where)

    def lifted(node: ast.stmt) -> bool:
        call = level_source.builder_call(node, module.level)
        return call is not None and call[0] in _SETTERS

    trace, setup = level_source.read_build_body(
        module, source, _Trace(), model, lifted, _KEPT_BUILDER_ATTRIBUTES
    )
    if not trace.goal:
        raise GenomeError("set_goal is never called outside set-up code")
    if setup and (module.level, module.rng) != ("level", "rng"):
        raise GenomeError(
            f"build({module.level}, {module.rng}): kept set-up code needs (level, rng)"
        )
    genome = trace.genome(module.docstring, "\n\n".join(module.kept), "\n".join(setup))
    check_bounds(genome)
    return genome.normalized()


def _apply(
    method: str, call: ast.Call, env: dict[str, Value], level: str, trace: _Trace, where: str
) -> None:
    if method not in _SIGNATURES:
        raise GenomeError(f"{where}: level.{method} is outside the genome grammar")
    args = _bind(method, call, env, level, where)
    if method == "set_floor":
        if trace.moved:
            raise GenomeError(f"{where}: set_floor after placements or set-up code")
        floor = as_integer(args["floor"], "floor", where)
        if not 0 <= floor < NUM_FLOORS:
            raise GenomeError(f"{where}: floor {floor} outside 0..{NUM_FLOORS - 1}")
        trace.floor = floor
    elif method == "set_attributes":
        for name in ATTRIBUTES:
            if args[name] is not None:
                value = as_integer(args[name], name, where)
                trace.attributes[name] = max(1, min(MAX_ATTRIBUTE, value))
    elif method == "set_player":
        for name in VITALS:
            if args[name] is not None:
                # Clamped against the attributes at call time, as the builder does.
                vital = as_integer(args[name], name, where)
                trace.vitals[name] = max(1, min(max_vital(name, trace.attributes), vital))
    elif method == "set_inventory":
        for name, held in _keywords(args["items"], where).items():
            if name not in ITEM_LIMITS:
                raise GenomeError(f"{where}: unknown item {name!r}")
            count = as_integer(held, name, where)
            trace.inventory[name] = max(0, min(ITEM_LIMITS[name], count))
    elif method == "set_day_time":
        fraction = float(as_number(args["fraction"], where))
        if not 0.0 <= fraction < 1.0:
            raise GenomeError(f"{where}: day time {fraction} outside [0, 1)")
        trace.day_time = fraction
    elif method == "set_rules":
        for name, multiplier in _keywords(args["multipliers"], where).items():
            if name not in RULES:
                raise GenomeError(f"{where}: unknown rule {name!r}")
            trace.rules[name] = float(as_number(multiplier, where))
    elif method == "set_goal":
        names = args["achievements"]
        if not names or any(not isinstance(n, str) for n in names):
            raise GenomeError(f"{where}: set_goal needs achievement names")
        trace.goal = tuple(dict.fromkeys(names))
    else:
        _place(method, args, trace, where)


def _place(method: str, args: dict[str, Any], trace: _Trace, where: str) -> None:
    def integer(name: str) -> int:
        return as_integer(args[name], name, where)

    first = args["block" if method == "place_near_player" else "kind"]
    if not isinstance(first, str):
        raise GenomeError(f"{where}: level.{method} needs a name, got {first!r}")
    near: NearPlayer
    if method == "place_near_player":
        near = BlockPatch(first, integer("count"), integer("max_distance"))
    else:
        near = MobGroup(first, integer("count"), integer("max_distance"), integer("min_distance"))
    trace.near.append(near)
    trace.moved = True


def _bind(
    method: str, call: ast.Call, env: dict[str, Value], level: str, where: str
) -> dict[str, Any]:
    """Evaluate a call's arguments and bind them with the builder method's signature."""
    positional: list[Value] = []
    for arg in call.args:
        if isinstance(arg, ast.Starred):
            if method == "set_goal" and _is_level_attribute(arg.value, level, "achievements"):
                positional.extend(ALL_ACHIEVEMENTS)
                continue
            raise GenomeError(f"{where}: *{ast.unparse(arg.value)} is outside the genome grammar")
        positional.append(level_source.evaluate(arg, env, where, level))
    keywords: dict[str, Value] = {}
    for keyword in call.keywords:
        if keyword.arg is None:
            raise GenomeError(f"{where}: ** arguments are outside the genome grammar")
        keywords[keyword.arg] = level_source.evaluate(keyword.value, env, where, level)
    signature = _SIGNATURES[method]
    try:
        bound = signature.bind(None, *positional, **keywords)
    except TypeError as exc:
        raise GenomeError(f"{where}: level.{method}: {exc}") from None
    bound.apply_defaults()
    return dict(list(bound.arguments.items())[1:])


def _keywords(value: object, where: str) -> dict[str, Value]:
    if not isinstance(value, dict):
        raise GenomeError(f"{where}: expected keyword arguments")
    return dict(value)


def _is_level_attribute(node: ast.expr, level: str, name: str) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == level
        and node.attr == name
    )
