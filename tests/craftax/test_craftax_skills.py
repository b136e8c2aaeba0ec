"""The Craftax skill profile and skill edit: the frontier of hand-made profiles, the profile in
a few lines, children that practise exactly the skill from a start granting what it builds on,
accepted by the real sandbox, and the mutation teacher answering the skill instruction."""

from __future__ import annotations

import ast
import asyncio
from collections.abc import Iterator

import numpy as np
import pytest

from dicode import domains
from dicode.domains.craftax import genome_edits
from dicode.domains.craftax.catalog import ACHIEVEMENT_NAMES, FLOOR_NAMES
from dicode.domains.craftax.genome import (
    BlockPatch,
    CraftaxGenome,
    MobGroup,
    check_bounds,
    parse_level,
    read_genome,
    write_level,
)
from dicode.domains.craftax.genome_edits import teach, teachable
from dicode.domains.craftax.goals import goal_possible
from dicode.domains.craftax.seed_levels import seed_level_source
from dicode.domains.craftax.skills import (
    MASTERED,
    describe_skills,
    frontier_skills,
    regressed_skills,
)
from dicode.levels.pipeline import Validator
from dicode.teachers.base import (
    MutationInstruction,
    ParentLevel,
    PerformanceProfile,
    TeacherRequest,
)
from dicode.teachers.genome_base import SkillTarget
from dicode.teachers.mutation import MutationTeacher
from tests.levels.helpers import require_bubblewrap

BASICS = ("collect_wood", "place_table", "make_wood_pickaxe", "collect_sapling")
# Skills the sandbox must accept children for, from two parents (crafting, mining, fighting,
# a dungeon start).
SANDBOX_SKILLS = (
    "collect_stone", "make_stone_pickaxe", "collect_iron", "defeat_zombie", "make_iron_pickaxe",
    "open_chest", "eat_snail",
)  # fmt: skip


def profile(**rates: float) -> dict[str, object]:
    """A target evaluation's payload: every achievement at 0 unless given."""
    skills = dict.fromkeys(ACHIEVEMENT_NAMES, 0.0) | rates
    return {"percent_of_max": 1.0, "mean_return": 2.0, "games": 8, "skills": skills}


def child_of(parent: CraftaxGenome, skill: str, seed: int = 0) -> CraftaxGenome:
    mutation = teach(parent, SkillTarget(skill, {}, {}), np.random.default_rng(seed))
    assert mutation is not None, skill
    assert mutation.instruction is MutationInstruction.SKILL and mutation.edits
    assert all(edit.note for edit in mutation.edits)
    return mutation.child


def test_a_beginner_is_taught_the_first_steps_not_deep_fights() -> None:
    frontier = frontier_skills(profile())
    assert frontier[0] == "collect_wood"
    assert {"eat_cow", "collect_drink", "defeat_zombie", "enter_dungeon"} <= set(frontier)
    # Steps building on something unmastered, and kills below floors never reached, wait.
    assert not {"place_table", "collect_stone", "defeat_gnome_warrior", "eat_snail"} & set(frontier)
    assert "damage_necromancer" not in frontier  # never set up by the teacher


def test_the_frontier_moves_with_what_is_mastered() -> None:
    figures = profile(**dict.fromkeys(BASICS, 0.9), collect_stone=0.1, make_wood_sword=0.3)
    frontier = frontier_skills(figures)
    assert {"collect_stone", "collect_coal", "place_plant"} <= set(frontier)
    assert "make_wood_sword" not in frontier  # 0.3: not rare enough to be the frontier
    assert "make_stone_pickaxe" not in frontier  # collect_stone is not mastered yet
    assert "collect_wood" not in frontier  # mastered
    # Easiest first: depth in the tech tree, then Craftax's reward tier.
    assert frontier.index("eat_cow") < frontier.index("collect_stone")


def test_a_skill_that_fell_below_its_best_enters_the_frontier_first() -> None:
    now = dict.fromkeys(BASICS, 0.9) | {"wake_up": 0.33, "place_table": 0.6, "eat_cow": 0.55}
    figures = profile(**now)
    assert "wake_up" not in frontier_skills(figures)  # no history: 0.33 is not rare
    best = dict.fromkeys(ACHIEVEMENT_NAMES, 0.0) | {
        "wake_up": 0.98, "place_table": 0.95, "eat_cow": 0.6, "collect_wood": 0.95,
    }  # fmt: skip
    figures["skills_best"] = best
    # Biggest drop first; a drop within the noise (eat_cow 0.05, collect_wood 0.05) is not one.
    assert regressed_skills(figures) == ["wake_up", "place_table"]
    frontier = frontier_skills(figures)
    assert frontier[:2] == ["wake_up", "place_table"]
    assert frontier[2:] == frontier_skills(profile(**now))  # then the usual frontier
    text = describe_skills(figures)
    assert "unlearnt (below their best so far): wake_up 0.33 (best 0.98)" in text


def test_deep_floors_the_teacher_cannot_start_on_stay_off_the_frontier() -> None:
    upper = ("enter_dungeon", "enter_gnomish_mines", "enter_sewers", "enter_vault")
    frontier = frontier_skills(profile(**dict.fromkeys(upper, 1.0)))
    # Kills on floors 1-4 and the entry of floor 5 (started from floor 4) are teachable.
    assert {"defeat_knight", "eat_bat", "open_chest", "enter_troll_mines"} <= set(frontier)
    entries = {name: 1.0 for name in ACHIEVEMENT_NAMES if name.startswith("enter_")}
    deep = frontier_skills(profile(**(entries | {"enter_fire_realm": 0.0})))
    assert "defeat_knight" in deep
    assert not {"defeat_troll", "defeat_pigman", "enter_fire_realm", "enchant_sword"} & set(deep)
    assert all(teachable(name) for name in frontier + deep)


def test_nothing_is_on_the_frontier_when_everything_is_mastered() -> None:
    assert frontier_skills(profile(**dict.fromkeys(ACHIEVEMENT_NAMES, MASTERED))) == []
    assert frontier_skills({"percent_of_max": 3.0}) == []  # no per-skill figures


def test_the_profile_reads_in_a_few_lines_and_names_the_frontier() -> None:
    figures = profile(**dict.fromkeys(BASICS, 0.9), collect_stone=0.1, eat_cow=0.25)
    text = describe_skills(figures)
    lines = text.splitlines()
    assert 3 <= len(lines) <= 6 and len(text) < 700
    assert "collect_wood 0.90" in text and "eat_cow 0.25" in text
    assert "never: 61 of 67" in text and "8 games" in text
    assert frontier_skills(figures)[0] in lines[-1]
    world = domains.get("craftax")
    assert world.describe_skills(figures) == text
    assert world.frontier_skills(figures) == frontier_skills(figures)


def test_the_skill_edit_grants_what_the_skill_builds_on() -> None:
    parent = parse_level(seed_level_source("craft_tools"))
    expected = {
        # skill: (items held, blocks near the player, mob near the player)
        "collect_stone": ({"pickaxe": 1}, {"stone"}, None),
        "make_stone_pickaxe": ({"wood": 2, "stone": 2}, {"crafting_table", "stone"}, None),
        "collect_iron": ({"pickaxe": 2}, {"iron"}, None),
        "defeat_zombie": ({"sword": 1}, set(), "zombie"),
        "make_iron_pickaxe": (
            {"wood": 1, "stone": 1, "iron": 1, "coal": 1},
            {"crafting_table", "furnace", "iron", "coal"},
            None,
        ),
    }
    for skill, (items, blocks, mob) in expected.items():
        child = child_of(parent, skill)
        assert child.goal == (skill,) and skill not in child.implied_achievements()
        assert all(child.item(item) >= amount for item, amount in items.items()), skill
        assert blocks <= {p.block for p in child.patches}, skill
        assert mob is None or any(m.kind == mob for m in child.mobs), skill
        check_bounds(child)
        assert goal_possible(child)
        code = write_level(child)
        assert f'level.set_goal("{skill}")' in code
        assert all(f"{item}=" in code for item in items), (skill, code)
        assert all(f'place_near_player("{block}"' in code for block in blocks), (skill, code)
        assert read_genome(code).exact and read_genome(code).genome == child
    # Stations come first and within reach of one step.
    iron = child_of(parent, "make_iron_pickaxe")
    assert [p.block for p in iron.patches[:2]] == ["crafting_table", "furnace"]
    assert all(p.max_distance <= 2 for p in iron.patches[:2])


def test_the_skill_edit_never_grants_the_skill_itself() -> None:
    rich = CraftaxGenome(
        "Rich.", goal=("collect_diamond",), inventory=(("wood", 5), ("stone", 4), ("pickaxe", 3))
    )
    stone_pickaxe = child_of(rich, "make_stone_pickaxe")
    assert stone_pickaxe.item("pickaxe") == 1  # a stone pickaxe held would grant it
    assert child_of(rich, "collect_wood").item("wood") == 0
    assert child_of(rich, "collect_stone").item("stone") == 0


def test_floors_follow_the_skill_and_the_parents_mobs_stay_behind() -> None:
    parent = parse_level(seed_level_source("fight_zombies"))
    assert parent.mobs and parent.floor == 0
    chest = child_of(parent, "open_chest")
    assert chest.floor == 1 and not chest.mobs and "chest" in {p.block for p in chest.patches}
    assert child_of(parent, "enter_gnomish_mines").floor == 1  # the floor above its entry
    snail = child_of(parent, "eat_snail")
    assert snail.floor == 1 and [m.kind for m in snail.mobs] == ["snail"]
    plants = CraftaxGenome("Farm.", goal=("eat_plant",), near_player=(BlockPatch("plant", 4),))
    assert not any(p.block == "plant" for p in child_of(plants, "open_chest").patches)


def test_the_mob_caps_and_placement_caps_hold() -> None:
    crowded = CraftaxGenome(
        "Crowded.",
        goal=("defeat_zombie",),
        near_player=(MobGroup("zombie", 3), *(BlockPatch(b, 2) for b in ("tree", "sand", "water",
                     "stone", "coal", "iron", "diamond"))),
    )  # fmt: skip
    child = child_of(crowded, "defeat_zombie")
    assert child.mob_count("melee") <= 3 and len(child.near_player) <= genome_edits.MAX_NEAR
    check_bounds(child)


@pytest.mark.parametrize(
    "skill", ["no_such_skill", "defeat_necromancer", "cast_fireball", "defeat_troll"]
)
def test_skills_that_cannot_be_set_up_give_none(skill: str) -> None:
    parent = parse_level(seed_level_source("collect_basics"))
    assert teach(parent, SkillTarget(skill, {}, {}), np.random.default_rng(0)) is None


def test_the_domain_wires_the_skill_edit() -> None:
    assert domains.get("craftax").genome().teach is genome_edits.teach


@pytest.fixture(scope="module")
def validator() -> Iterator[Validator]:
    require_bubblewrap()
    with Validator(domains.get("craftax"), pool_size=2, warm=1, rollouts=False) as validator:
        yield validator


def test_skill_children_pass_the_real_sandbox(validator: Validator) -> None:
    for parent_name in ("craft_tools", "fight_zombies"):
        parent = parse_level(seed_level_source(parent_name))
        for seed, skill in enumerate(SANDBOX_SKILLS):
            verdict = validator.validate(write_level(child_of(parent, skill, seed)), seed=seed)
            assert verdict.accepted, (parent_name, skill, verdict.error)
            assert verdict.bundle is not None


def test_the_mutation_teacher_answers_the_skill_instruction(validator: Validator) -> None:
    rates = dict.fromkeys(BASICS, 0.9) | {"collect_stone": 0.8, "make_stone_pickaxe": 0.6}
    figures = profile(**rates)
    skill = "collect_iron"
    assert skill in frontier_skills(figures)
    source = seed_level_source("collect_basics")
    parent = ParentLevel(ast.get_docstring(ast.parse(source)) or "", source, level_id="basics")
    target = PerformanceProfile(skills=rates, notes=describe_skills(figures))
    request = TeacherRequest(parent, target, MutationInstruction.SKILL, seed=3, skill=skill)
    teacher = MutationTeacher(validator.validate, domains.get("craftax").genome(), seed=1)
    result = asyncio.run(teacher.propose(request))
    assert result.accepted, result.error
    assert result.skill == skill and result.instruction is MutationInstruction.SKILL
    assert result.code is not None and read_genome(result.code).genome.goal == (skill,)
    assert result.description is not None and "goal" in result.description
    assert FLOOR_NAMES[0] in result.description
