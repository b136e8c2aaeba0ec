"""The Craftax text and PNG renderers on real levels: the seed levels built in-process on
worlds from Craftax's own generator."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from dicode.domains.craftax.builder import build_level
from dicode.domains.craftax.bundle import CraftaxBundle, bundle_from_built
from dicode.domains.craftax.catalog import BLOCK_NAMES, MAP_SIZE
from dicode.domains.craftax.render import (
    BLOCK_COLOURS,
    BLOCK_GLYPHS,
    ITEM_GLYPHS,
    MOB_GLYPHS,
    PLAYER_COLOUR,
    PLAYER_GLYPH,
    floor_image,
    render_craftax_text,
)
from dicode.domains.craftax.schema import StateArrays
from dicode.domains.craftax.seed_levels import SEED_LEVEL_NAMES, seed_level_source


def seed_bundle(name: str, worlds: list[StateArrays]) -> CraftaxBundle:
    """Run a seed level's ``build`` here (our own trusted file) on each base world."""
    namespace: dict[str, Any] = {}
    exec(compile(seed_level_source(name), f"{name}.py", "exec"), namespace)
    built = [build_level(namespace["build"], w, seed) for seed, w in enumerate(worlds)]
    return bundle_from_built(built)


def map_and_legend(text: str) -> tuple[list[str], dict[str, str]]:
    """The map rows and the legend ({glyph: meaning}) of a rendered instance."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("map rows")) + 1
    end = next(i for i, line in enumerate(lines) if line.startswith("legend: "))
    legend: dict[str, str] = {}
    for line in lines[end:]:
        for entry in line[len("legend: ") :].split("   "):
            legend[entry[0]] = entry[2:]
    return lines[start:end], legend


def test_glyphs_and_colours_cover_every_block_once() -> None:
    assert set(BLOCK_GLYPHS) == set(BLOCK_NAMES) == set(BLOCK_COLOURS)
    overlays = [g for g, _ in ITEM_GLYPHS.values()] + [*MOB_GLYPHS.values(), PLAYER_GLYPH]
    glyphs = [*BLOCK_GLYPHS.values(), *overlays]
    assert len(glyphs) == len(set(glyphs)) and all(len(g) == 1 and g != " " for g in glyphs)


@pytest.mark.parametrize("name", SEED_LEVEL_NAMES)
def test_text_names_the_goal_marks_the_player_and_explains_every_character(
    name: str, worlds: list[StateArrays]
) -> None:
    bundle = seed_bundle(name, worlds)
    for instance in range(bundle.pool_size):
        text = render_craftax_text(bundle, instance, radius=6)
        goal_line = text.splitlines()[0]
        assert goal_line.startswith("goal: ")
        assert all(goal in goal_line for goal in bundle.goal_names) and bundle.goal_names
        rows, legend = map_and_legend(text)
        assert len(rows) == 13 and {len(row) for row in rows} == {13}
        used = set("".join(rows))
        assert used == set(legend), f"legend {sorted(legend)} vs map {sorted(used)}"
        assert "".join(rows).count(PLAYER_GLYPH) == 1 and legend[PLAYER_GLYPH] == "player"


def test_rules_mobs_and_inventory_of_fight_zombies(worlds: list[StateArrays]) -> None:
    text = render_craftax_text(seed_bundle("fight_zombies", worlds))
    assert "rules: spawn_melee x0, mob_damage x0.5" in text
    assert "inventory: sword 1" in text and "floor 0 (overworld)" in text
    _, legend = map_and_legend(text)
    # The level places its zombies a few steps from the player: inside the default crop.
    assert legend[MOB_GLYPHS["melee"]] == "melee mob (zombie)"


def test_target_game_and_descend(worlds: list[StateArrays]) -> None:
    target = render_craftax_text(seed_bundle("target_game", worlds))
    assert "rules: normal (every multiplier 1)" in target
    descend = seed_bundle("descend", worlds)
    for instance in range(descend.pool_size):
        # The player starts within three steps of the open down-ladder.
        _, legend = map_and_legend(render_craftax_text(descend, instance, radius=3))
        assert legend[">"] == "ladder down"


def test_the_crop_stays_on_the_map_at_an_edge(worlds: list[StateArrays]) -> None:
    bundle = seed_bundle("target_game", worlds)
    pool = {k: v.copy() for k, v in bundle.pool.items()}
    pool["player_position"][0] = (0, MAP_SIZE - 1)
    corner = CraftaxBundle(pool=pool, rules=bundle.rules, goal=bundle.goal)
    text = render_craftax_text(corner, 0, radius=4)
    rows, _ = map_and_legend(text)
    assert "map rows 0-8, cols 39-47" in text
    assert rows[0][-1] == PLAYER_GLYPH and len(rows) == 9


def test_floor_image_draws_the_whole_floor_and_the_player(worlds: list[StateArrays]) -> None:
    bundle = seed_bundle("collect_basics", worlds)
    image = floor_image(bundle, 1, cell=6)
    assert image.size == (MAP_SIZE * 6, MAP_SIZE * 6)
    row, col = (int(v) for v in bundle.pool["player_position"][1])
    assert image.getpixel((col * 6 + 3, row * 6 + 3)) == PLAYER_COLOUR
    assert len(np.unique(np.asarray(image).reshape(-1, 3), axis=0)) > 3
