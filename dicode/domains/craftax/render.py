"""Renderers for people: a Craftax level as text (goal, rules, player, map crop) or as a PNG of
the player's floor in flat colours.

NumPy and Pillow only — no JAX and no Craftax texture assets — so the API and the CLI can draw
archived levels without loading the engine.
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from dicode.domains.craftax.bundle import CraftaxBundle
from dicode.domains.craftax.catalog import (
    ACHIEVEMENT_NAMES,
    BLOCK_NAMES,
    FLOOR_NAMES,
    ITEM_LADDER_DOWN,
    ITEM_LADDER_DOWN_BLOCKED,
    ITEM_LADDER_UP,
    ITEM_TORCH,
    MAP_SIZE,
    MOB_CLASSES,
    MOB_KINDS,
)
from dicode.domains.craftax.level_checks import pool_to_bundle
from dicode.domains.craftax.rules import RULE_NAMES
from dicode.levels.bundle import LevelBundle

# One character per block type; none is reused by the overlays below.
BLOCK_GLYPHS: dict[str, str] = {
    "invalid": "?", "out_of_bounds": "X", "grass": ".", "water": "~", "stone": "#", "tree": "T",
    "wood": "w", "path": "_", "coal": "c", "iron": "i", "diamond": "D", "crafting_table": "t",
    "furnace": "f", "sand": ":", "lava": "=", "plant": "p", "ripe_plant": "P", "wall": "W",
    "darkness": '"', "wall_moss": "M", "stalagmite": "^", "sapphire": "s", "ruby": "r",
    "chest": "C", "fountain": "F", "fire_grass": ",", "ice_grass": ";", "gravel": "g",
    "fire_tree": "Y", "ice_shrub": "y", "enchantment_table_fire": "E",
    "enchantment_table_ice": "e", "necromancer": "N", "grave": "G", "grave2": "H", "grave3": "J",
    "necromancer_vulnerable": "n",
}  # fmt: skip
# Item-map overlays (ladders and torches lie on a block), drawn over the block's glyph.
ITEM_GLYPHS: dict[int, tuple[str, str]] = {
    ITEM_TORCH: ("*", "torch"),
    ITEM_LADDER_DOWN: (">", "ladder down"),
    ITEM_LADDER_UP: ("<", "ladder up"),
    ITEM_LADDER_DOWN_BLOCKED: ("v", "ladder down (opens once the floor's monsters are cleared)"),
}
MOB_GLYPHS: dict[str, str] = {"passive": "o", "melee": "!", "ranged": "&"}
PLAYER_GLYPH = "@"

BLOCK_COLOURS: dict[str, tuple[int, int, int]] = {
    "invalid": (255, 0, 255), "out_of_bounds": (0, 0, 0), "grass": (92, 160, 70),
    "water": (60, 110, 210), "stone": (125, 125, 125), "tree": (30, 100, 40),
    "wood": (150, 105, 60), "path": (190, 175, 140), "coal": (40, 40, 40),
    "iron": (200, 160, 130), "diamond": (120, 230, 230), "crafting_table": (170, 120, 60),
    "furnace": (90, 80, 80), "sand": (225, 210, 150), "lava": (240, 100, 20),
    "plant": (120, 200, 90), "ripe_plant": (200, 220, 60), "wall": (70, 65, 60),
    "darkness": (15, 15, 20), "wall_moss": (70, 100, 60), "stalagmite": (150, 140, 130),
    "sapphire": (40, 70, 220), "ruby": (210, 30, 60), "chest": (200, 150, 40),
    "fountain": (100, 170, 230), "fire_grass": (170, 80, 40), "ice_grass": (200, 230, 240),
    "gravel": (160, 150, 140), "fire_tree": (200, 60, 20), "ice_shrub": (160, 210, 220),
    "enchantment_table_fire": (230, 80, 60), "enchantment_table_ice": (90, 160, 240),
    "necromancer": (90, 20, 110), "grave": (110, 110, 120), "grave2": (100, 100, 110),
    "grave3": (90, 90, 100), "necromancer_vulnerable": (170, 60, 200),
}  # fmt: skip
ITEM_COLOURS: dict[int, tuple[int, int, int]] = {
    ITEM_TORCH: (255, 220, 60),
    ITEM_LADDER_DOWN: (255, 255, 255),
    ITEM_LADDER_UP: (255, 255, 255),
    ITEM_LADDER_DOWN_BLOCKED: (160, 160, 160),
}
MOB_COLOURS: dict[str, tuple[int, int, int]] = {
    "passive": (250, 240, 230),
    "melee": (220, 30, 30),
    "ranged": (240, 140, 0),
}
PLAYER_COLOUR = (255, 0, 200)

_KIND_OF: dict[tuple[str, int], str] = {place: kind for kind, place in MOB_KINDS.items()}
_INVENTORY = (
    "wood", "stone", "coal", "iron", "diamond", "sapling", "pickaxe", "sword", "bow", "arrows",
    "torches", "ruby", "sapphire", "books",
)  # fmt: skip
_LEGEND_PER_LINE = 6


def level_header(bundle: CraftaxBundle) -> list[str]:
    """What holds for every instance: the goal achievements and the changed rule multipliers."""
    goal = ", ".join(bundle.goal_names) or "none (the target game)"
    changed = [
        f"{name} x{value:g}"
        for name, value in zip(RULE_NAMES, bundle.rules.tolist(), strict=True)
        if value != 1.0
    ]
    rules = ", ".join(changed) if changed else "normal (every multiplier 1)"
    return [f"goal: {goal}", f"rules: {rules}"]


def _mobs_on_floor(
    bundle: CraftaxBundle, instance: int, floor: int
) -> list[tuple[str, str, int, int]]:
    """(class, kind, row, col) of every live mob on ``floor``."""
    pool, found = bundle.pool, []
    for mob_class in MOB_CLASSES:
        mask = pool[f"{mob_class}_mobs.mask"][instance, floor]
        positions = pool[f"{mob_class}_mobs.position"][instance, floor]
        types = pool[f"{mob_class}_mobs.type_id"][instance, floor]
        for slot in np.flatnonzero(mask):
            kind = _KIND_OF.get((mob_class, int(types[slot])), f"{mob_class} #{int(types[slot])}")
            row, col = (int(v) for v in positions[slot])
            found.append((mob_class, kind, row, col))
    return found


def _player_lines(bundle: CraftaxBundle, instance: int) -> list[str]:
    pool = bundle.pool
    floor = int(pool["player_level"][instance])
    row, col = (int(v) for v in pool["player_position"][instance])
    vitals = "  ".join(
        f"{name} {int(pool[f'player_{name}'][instance])}"
        for name in ("food", "drink", "energy", "mana")
    )
    attributes = "  ".join(
        f"{name} {int(pool[f'player_{name}'][instance])}"
        for name in ("xp", "dexterity", "strength", "intelligence")
    )
    held = [
        f"{name} {int(pool[f'inventory.{name}'][instance])}"
        for name in _INVENTORY
        if pool[f"inventory.{name}"][instance]
    ]
    for name in ("armour", "potions"):
        counts = pool[f"inventory.{name}"][instance]
        if counts.any():
            held.append(f"{name} {'/'.join(str(int(v)) for v in counts)}")
    unlocked = [ACHIEVEMENT_NAMES[i] for i in np.flatnonzero(pool["achievements"][instance])]
    return [
        f"floor {floor} ({FLOOR_NAMES[floor]})  player at row {row}, col {col}"
        f"  timestep {int(pool['timestep'][instance])}"
        f"  daylight {float(pool['light_level'][instance]):.2f}",
        f"health {float(pool['player_health'][instance]):g}  {vitals}  |  {attributes}",
        "inventory: " + (", ".join(held) or "empty"),
        "achieved already: " + (", ".join(unlocked) or "nothing"),
    ]


def _window(centre: int, radius: int) -> tuple[int, int]:
    """A span of ``2 * radius + 1`` cells around ``centre``, shifted to stay on the map."""
    size = min(2 * radius + 1, MAP_SIZE)
    start = min(max(centre - radius, 0), MAP_SIZE - size)
    return start, start + size


def _glyph_grid(
    bundle: CraftaxBundle, instance: int, rows: tuple[int, int], cols: tuple[int, int]
) -> tuple[np.ndarray, dict[str, str]]:
    """The crop's characters (row-major) and a legend of exactly the characters in it."""
    pool = bundle.pool
    floor = int(pool["player_level"][instance])
    r0, r1, c0, c1 = *rows, *cols
    blocks = pool["map"][instance, floor, r0:r1, c0:c1]
    items = pool["item_map"][instance, floor, r0:r1, c0:c1]
    grid = np.empty(blocks.shape, dtype="<U1")
    meaning: dict[str, str] = {}
    for index in np.unique(blocks):
        name = BLOCK_NAMES[int(index)] if 0 <= index < len(BLOCK_NAMES) else "invalid"
        grid[blocks == index] = BLOCK_GLYPHS[name]
        meaning[BLOCK_GLYPHS[name]] = name
    for item, (glyph, name) in ITEM_GLYPHS.items():
        if (items == item).any():
            grid[items == item] = glyph
            meaning[glyph] = name
    kinds: dict[str, list[str]] = {}
    for mob_class, kind, row, col in _mobs_on_floor(bundle, instance, floor):
        if r0 <= row < r1 and c0 <= col < c1:
            grid[row - r0, col - c0] = MOB_GLYPHS[mob_class]
            kinds.setdefault(mob_class, []).append(kind)
    for mob_class, names in kinds.items():
        meaning[MOB_GLYPHS[mob_class]] = f"{mob_class} mob ({', '.join(sorted(set(names)))})"
    row, col = (int(v) for v in pool["player_position"][instance])
    grid[row - r0, col - c0] = PLAYER_GLYPH
    meaning[PLAYER_GLYPH] = "player"
    used = set(grid.ravel())
    return grid, {glyph: name for glyph, name in meaning.items() if glyph in used}


def render_instance_text(bundle: CraftaxBundle, instance: int = 0, radius: int = 8) -> str:
    """One instance: the player's floor, position, vitals, inventory, the floor's mobs and
    ladders, and a character map of the ``2 * radius + 1`` square around the player with a
    legend of every character it uses."""
    if not 0 <= instance < bundle.pool_size:
        raise ValueError(f"instance {instance} outside the pool of {bundle.pool_size}")
    if radius < 1:
        raise ValueError(f"radius must be at least 1, got {radius}")
    pool = bundle.pool
    floor = int(pool["player_level"][instance])
    player = [int(v) for v in pool["player_position"][instance]]
    rows, cols = _window(player[0], radius), _window(player[1], radius)
    grid, legend = _glyph_grid(bundle, instance, rows, cols)
    counts: dict[str, int] = {}
    for _, kind, _, _ in _mobs_on_floor(bundle, instance, floor):
        counts[kind] = counts.get(kind, 0) + 1
    mobs = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items())) or "none"
    down, up = pool["down_ladders"][instance, floor], pool["up_ladders"][instance, floor]
    lines = [
        *_player_lines(bundle, instance),
        f"mobs on this floor: {mobs}",
        f"ladders on this floor: down at {tuple(int(v) for v in down)},"
        f" up at {tuple(int(v) for v in up)}",
        f"map rows {rows[0]}-{rows[1] - 1}, cols {cols[0]}-{cols[1] - 1} (row 0 at the top):",
        *("".join(row) for row in grid),
    ]
    entries = [f"{glyph} {name}" for glyph, name in sorted(legend.items())]
    for start in range(0, len(entries), _LEGEND_PER_LINE):
        prefix = "legend: " if start == 0 else "        "
        lines.append(prefix + "   ".join(entries[start : start + _LEGEND_PER_LINE]))
    return "\n".join(lines)


def render_craftax_text(bundle: CraftaxBundle, instance: int = 0, radius: int = 8) -> str:
    """The level's goal and rules, then instance ``instance`` (see ``render_instance_text``)."""
    return "\n".join([*level_header(bundle), render_instance_text(bundle, instance, radius)])


def floor_image(bundle: CraftaxBundle, instance: int = 0, cell: int = 8) -> Image.Image:
    """The player's whole floor, ``cell`` pixels per block in flat colours; ladders and torches
    as inner squares, mobs as discs coloured by class, the player as a magenta square."""
    pool = bundle.pool
    floor = int(pool["player_level"][instance])
    blocks = pool["map"][instance, floor]
    items = pool["item_map"][instance, floor]
    palette = np.array([BLOCK_COLOURS[name] for name in BLOCK_NAMES], np.uint8)
    pixels = palette[np.clip(blocks, 0, len(BLOCK_NAMES) - 1)]
    image = Image.fromarray(pixels.repeat(cell, axis=0).repeat(cell, axis=1), "RGB")
    draw = ImageDraw.Draw(image)
    inset = max(cell // 4, 1)
    for item, colour in ITEM_COLOURS.items():
        for row, col in np.argwhere(items == item):
            x, y = int(col) * cell, int(row) * cell
            draw.rectangle(
                (x + inset, y + inset, x + cell - 1 - inset, y + cell - 1 - inset), fill=colour
            )
    for mob_class, _, row, col in _mobs_on_floor(bundle, instance, floor):
        x, y = col * cell, row * cell
        draw.ellipse(
            (x + 1, y + 1, x + cell - 2, y + cell - 2),
            fill=MOB_COLOURS[mob_class],
            outline=(0, 0, 0),
        )
    row, col = (int(v) for v in pool["player_position"][instance])
    draw.rectangle(
        (col * cell, row * cell, col * cell + cell - 1, row * cell + cell - 1),
        fill=PLAYER_COLOUR,
        outline=(255, 255, 255),
    )
    return image


def pool_text(bundle: LevelBundle, count: int) -> str:
    """Goal and rules once, then each instance's player block and map crop."""
    # pool_to_bundle re-checks the stored arrays, so the renderer can index them safely.
    level = pool_to_bundle(bundle.pool)
    parts = ["\n".join([*level_header(level), bundle.identity_line()])]
    for index in range(count):
        parts.append(f"#{index}\n" + render_instance_text(level, index))
    return "\n\n".join(parts)


def pool_image(bundle: LevelBundle, index: int, cell: int) -> Image.Image:
    """Instance ``index``'s floor as flat colours."""
    return floor_image(pool_to_bundle(bundle.pool), index, max(cell // 2, 2))
