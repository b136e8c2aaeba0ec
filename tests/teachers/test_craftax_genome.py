"""The Craftax level genome: AST-only reading, canonical writing, and bounded typed edits."""

from __future__ import annotations

import textwrap
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicode.domains.craftax.catalog import ACHIEVEMENT_NAMES, MOB_KINDS
from dicode.domains.craftax.genome import (
    ALL_ACHIEVEMENTS,
    ATTRIBUTES,
    ITEMS,
    VITALS,
    BlockPatch,
    CraftaxGenome,
    MobGroup,
    check_bounds,
    default_genome,
    describe,
    parse_level,
    read_genome,
    write_level,
)
from dicode.domains.craftax.genome_edits import (
    EASY_GOAL,
    HARDER_DIRECTION,
    MAX_FLOOR,
    MAX_ITEM,
    MAX_NEAR,
    MAX_PATCH,
    mutate,
    operators_for,
)
from dicode.domains.craftax.goals import goal_possible
from dicode.domains.craftax.rules import RULES
from dicode.domains.craftax.seed_levels import SEED_LEVEL_NAMES, seed_level_source
from dicode.teachers.base import MutationInstruction

HARDER, VARY, EASIER = (
    MutationInstruction.HARDER,
    MutationInstruction.VARY,
    MutationInstruction.EASIER,
)
SEEDS = {name: read_genome(seed_level_source(name)).genome for name in SEED_LEVEL_NAMES}


@st.composite
def genomes(draw: st.DrawFn) -> CraftaxGenome:
    """Genomes inside the teacher's caps whose goals the start does not already grant."""
    floor = draw(st.integers(0, MAX_FLOOR))
    attributes = draw(st.dictionaries(st.sampled_from(ATTRIBUTES), st.integers(1, 5)))
    vitals = draw(st.dictionaries(st.sampled_from(VITALS), st.integers(1, 9)))
    inventory = draw(st.dictionaries(st.sampled_from(ITEMS[:6]), st.integers(0, MAX_ITEM)))
    if draw(st.booleans()):
        inventory["sword"] = draw(st.integers(0, 3))
    block = st.sampled_from(["tree", "stone", "coal", "water", "crafting_table"])
    patch = st.builds(BlockPatch, block, st.integers(1, MAX_PATCH), st.integers(3, 8))
    kind = st.sampled_from([k for k, (c, _) in MOB_KINDS.items() if c != "ranged"])
    mob = st.builds(MobGroup, kind, st.just(1), st.integers(4, 8), st.integers(1, 3))
    patches = draw(st.lists(patch, max_size=3))
    mobs = draw(st.lists(mob, max_size=2))
    rules = draw(st.dictionaries(st.sampled_from(list(RULES)), st.sampled_from([0.5, 1.0, 1.5])))
    day = draw(st.none() | st.sampled_from([0.0, 0.2, 0.6, 0.75]))
    genome = CraftaxGenome(
        description=draw(st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]))),
        goal=("collect_wood",),
        floor=floor,
        attributes=tuple(attributes.items()),
        vitals=tuple(vitals.items()),
        inventory=tuple(inventory.items()),
        day_time=day,
        near_player=tuple(draw(st.permutations([*patches, *mobs]))),
        rules=tuple((n, min(v, RULES[n].high)) for n, v in rules.items()),
    )
    granted = genome.implied_achievements()
    open_goals = [a for a in ACHIEVEMENT_NAMES if a not in granted and "necromancer" not in a]
    goal = draw(st.lists(st.sampled_from(open_goals), min_size=1, max_size=6, unique=True))
    return replace(genome, goal=tuple(goal)).normalized()


@pytest.mark.parametrize("name", SEED_LEVEL_NAMES)
def test_every_seed_level_reads_exactly_and_round_trips(name: str) -> None:
    reading = read_genome(seed_level_source(name))
    assert reading.exact, reading.unsupported
    written = write_level(reading.genome)
    assert read_genome(written).genome == reading.genome
    assert write_level(read_genome(written).genome) == written


def test_seed_levels_read_into_the_fields_they_set() -> None:
    fight = SEEDS["fight_zombies"]
    assert fight.inventory == (("sword", 1),)
    assert fight.mobs == (MobGroup("zombie", 2, 5, 3), MobGroup("cow", 1, 6, 2))
    assert dict(fight.rules) == {"mob_damage": 0.5, "spawn_melee": 0.0}
    assert fight.goal == ("eat_cow", "defeat_zombie")  # Craftax id order
    night = SEEDS["survive_night"]
    assert (night.day_time, night.vitals) == (0.5, (("energy", 3),))
    assert SEEDS["target_game"].goal == ALL_ACHIEVEMENTS
    assert "set_goal(*level.achievements)" in write_level(SEEDS["target_game"])


@settings(max_examples=150, deadline=None)
@given(genomes())
def test_written_genomes_read_back_to_the_same_genome(genome: CraftaxGenome) -> None:
    check_bounds(genome)
    source = write_level(genome)
    compile(source, "<level>", "exec")  # valid Python, by the parser itself
    reading = read_genome(source)
    assert reading.exact, reading.unsupported
    assert reading.genome == genome


def test_unmodelled_code_is_kept_verbatim_and_setters_are_lifted() -> None:
    genome = SEEDS["descend"]
    assert genome.setup_code.startswith('row, col = level.ladder_position("down")')
    assert "rng.integers" in genome.setup_code and "set_inventory" not in genome.setup_code
    assert genome.inventory == (("torches", 3), ("sword", 2))
    # Placements before kept code stay in it, in order (they draw from rng and take cells).
    basics = SEEDS["collect_basics"]
    assert basics.setup_code.startswith('level.place_near_player("tree"') and not basics.patches


def _level(body: str, module: str = "") -> str:
    return f'"""x"""\n{module}def build(level, rng):\n' + textwrap.indent(body, "    ")


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        (_level('level.set_goal("collect_wood")\n', module="import os\n"), "'os'"),
        (_level('for a in ("collect_wood",):\n    level.set_goal(a)\n'), "level.set_goal"),
        (_level('level.place_near_player("tree")\nlevel.set_floor(1)\n'), "level.set_floor"),
        (_level('level.set_inventory(wood=2)\nlevel.set_goal("collect_wood")\n'), "granted"),
        (_level("level.set_inventory(wood=1)\n"), "set_goal is never called"),
        (_level('level.set_rules(mob_damage=9)\nlevel.set_goal("eat_cow")\n'), "mob_damage"),
        (_level('helper(level)\nlevel.set_goal("eat_cow")\n'), "passed around"),
        (_level('level = None\nlevel.set_goal("eat_cow")\n'), "rebound"),
        (_level("level.set_goal(*GOALS)\n"), "*GOALS"),
        ("def build(level, rng:\n", "parse"),
    ],
)
def test_code_outside_the_grammar_falls_back_to_the_unmodified_game(
    source: str, reason: str
) -> None:
    reading = read_genome(source)
    assert not reading.exact
    assert reason in " ".join(reading.unsupported)
    fallback = reading.genome
    assert fallback.goal == ALL_ACHIEVEMENTS and fallback == replace(
        default_genome(fallback.description), description=fallback.description
    )
    assert parse_level(source) == fallback


def test_reading_clamps_and_binds_like_the_builder() -> None:
    source = _level(
        "n = 3\n"
        "level.set_player(health=20, food=0)\n"  # clamped to [1, 9] at call time
        "level.set_attributes(strength=7)\n"  # clamped to 5
        "level.set_inventory(wood=500, sword=9, stone=0)\n"
        'level.place_near_player("tree", n, max_distance=n + 1)\n'
        'level.set_goal("collect_stone", "collect_stone", "place_table")\n'
    )
    genome = read_genome(source).genome
    assert genome.vitals == (("food", 1),)  # health 9 is what a fresh world has anyway
    assert genome.attributes == (("strength", 5),)
    assert genome.inventory == (("wood", 99), ("sword", 4))
    assert genome.patches == (BlockPatch("tree", 3, 4),)
    assert genome.goal == ("place_table", "collect_stone")


def test_reading_never_executes_the_level(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    source = (
        f'"""Hostile."""\nimport pathlib\npathlib.Path({str(marker)!r}).write_text("x")\n'
        f"def build(level, rng):\n    pathlib.Path({str(marker)!r}).write_text('x')\n"
    )
    reading = read_genome(source)
    assert not reading.exact and not marker.exists()
    assert reading.genome.description == "Hostile."


def test_description_says_what_the_level_is() -> None:
    text = describe(SEEDS["fight_zombies"])
    assert "eat_cow, defeat_zombie" in text and "sword 1" in text
    assert "2 zombie 3-5 away" in text and "mob_damage×0.5" in text
    assert "every achievement" in describe(default_genome())


# --- edits -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", SEED_LEVEL_NAMES)
@pytest.mark.parametrize("instruction", list(MutationInstruction))
def test_children_stay_in_bounds_and_caps_and_keep_goals_possible(
    name: str, instruction: MutationInstruction
) -> None:
    parent = SEEDS[name]
    for seed in range(25):
        mutation = mutate(parent, instruction, np.random.default_rng(seed))
        child = mutation.child
        check_bounds(child)
        assert goal_possible(child)
        assert 1 <= len(mutation.edits) <= (1 if mutation.instruction is VARY else 2)
        assert child != parent, mutation.edits
        assert child.floor <= max(parent.floor, MAX_FLOOR)
        assert len(child.near_player) <= max(len(parent.near_player), MAX_NEAR)
        for patch in child.patches:
            assert patch in parent.patches or patch.count <= MAX_PATCH
        for item, count in child.inventory:
            assert count <= max(parent.item(item), MAX_ITEM)
        assert read_genome(write_level(child)).genome == child


@settings(max_examples=80, deadline=None)
@given(genomes(), st.sampled_from(list(MutationInstruction)), st.integers(0, 2**32 - 1))
def test_edits_of_any_genome_stay_in_bounds(
    parent: CraftaxGenome, instruction: MutationInstruction, seed: int
) -> None:
    mutation = mutate(parent, instruction, np.random.default_rng(seed))
    check_bounds(mutation.child)
    assert goal_possible(mutation.child) or not goal_possible(parent)
    assert read_genome(write_level(mutation.child)).genome == mutation.child


def test_mutation_is_seeded() -> None:
    parent = SEEDS["craft_tools"]

    def child(seed: int) -> CraftaxGenome:
        return mutate(parent, HARDER, np.random.default_rng(seed)).child

    assert child(4) == child(4)
    assert len({write_level(child(seed)) for seed in range(8)}) > 1


def _score(g: CraftaxGenome) -> dict[str, float]:
    """Fields where larger means harder (for the direction test)."""
    return {
        "items": -sum(v for _, v in g.inventory),
        "vitals": -sum(g.vital(v) for v in ("health", "food", "drink", "energy")),
        **{f"rule:{n}": d * g.rule(n) for n, d in HARDER_DIRECTION.items()},
        "monsters": sum(m.count for m in g.mobs if m.mob_class != "passive"),
        "food": -sum(m.count for m in g.mobs if m.mob_class == "passive"),
        "resources": -sum(p.count for p in g.patches) * 10 + sum(p.max_distance for p in g.patches),
        "night": float(g.day_time is not None and 0.5 <= g.day_time < 0.9),
        "goal": len(g.goal) if g.goal != ALL_ACHIEVEMENTS else 99,
        "floor": g.floor,
    }


@pytest.mark.parametrize("name", SEED_LEVEL_NAMES)
def test_harder_and_easier_edits_move_fields_the_right_way(name: str) -> None:
    parent = SEEDS[name]
    rng = np.random.default_rng(0)
    for instruction, sign in ((HARDER, 1), (EASIER, -1)):
        for kind, operator in operators_for(parent, instruction).items():
            result = operator(parent, rng)
            if result is None:
                continue
            before, after = _score(parent), _score(result[0].normalized())
            moved = {k: after[k] - before[k] for k in before if after[k] != before[k]}
            assert moved, (kind, result[1])
            # The goal may shrink when an easier edit hands over what it asked for.
            assert all(sign * delta > 0 for delta in moved.values()), (kind, result[1], moved)


def test_easier_gives_the_full_game_a_short_finish_line() -> None:
    mutation = mutate(SEEDS["target_game"], EASIER, np.random.default_rng(0))
    for seed in range(40):
        mutation = mutate(SEEDS["target_game"], EASIER, np.random.default_rng(seed))
        if any(e.kind == "shrink_goal" for e in mutation.edits):
            break
    assert mutation.child.goal == ("collect_wood", "eat_cow", "collect_sapling")[:EASY_GOAL]


def test_harder_goals_build_on_the_current_goal() -> None:
    grown = [
        mutate(SEEDS["collect_basics"], HARDER, np.random.default_rng(seed)).child.goal
        for seed in range(40)
    ]
    added = {a for goal in grown for a in goal} - set(SEEDS["collect_basics"].goal)
    assert added and added <= {"place_table", "place_plant"}


def test_items_that_grant_goal_achievements_take_them_out_of_the_goal() -> None:
    parent = replace(SEEDS["craft_tools"], goal=("make_wood_pickaxe", "collect_stone"))
    for seed in range(30):
        child = mutate(parent, EASIER, np.random.default_rng(seed), max_edits=1).child
        assert child.goal and not set(child.goal) & child.implied_achievements()


def test_floor_edits_need_a_deeper_goal_and_no_setup_code() -> None:
    deep = replace(default_genome("x"), goal=("enter_gnomish_mines",))
    result = operators_for(deep, HARDER)["descend_start"](deep, np.random.default_rng(0))
    assert result is not None and result[0].floor == 1
    assert operators_for(deep, HARDER)["descend_start"](result[0], np.random.default_rng(0)) is None
    up = operators_for(deep, EASIER)["ascend_start"](result[0], np.random.default_rng(0))
    assert up is not None and up[0].floor == 0
    descend = operators_for(deep, HARDER)["descend_start"]
    assert descend(SEEDS["descend"], np.random.default_rng(0)) is None
