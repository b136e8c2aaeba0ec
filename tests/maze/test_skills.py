"""The maze skill profile and skill edit: the frontier of hand-made profiles, the profile in a
few lines, children with exactly the asked maze property (solvable, inside the caps), accepted
by the real sandbox, and the mutation teacher answering the skill instruction."""

from __future__ import annotations

import ast
import asyncio
from collections.abc import Iterator

import numpy as np
import pytest

from dicode import domains
from dicode.domains.maze import genome_edits
from dicode.domains.maze.genome import (
    Genome,
    check_bounds,
    default_genome,
    parse_level,
    read_genome,
    solvable,
    write_level,
)
from dicode.domains.maze.genome_edits import MUTATION_MAX_WALLS, has_skill, teach, teaching_band
from dicode.domains.maze.grid import dead_ends
from dicode.domains.maze.heldout import held_out_mazes
from dicode.domains.maze.seed_levels import seed_level_source
from dicode.domains.maze.skills import (
    FEW_DEAD_ENDS,
    MEDIUM_PATH,
    SKILLS,
    describe_skills,
    frontier_skills,
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

# Parents of every kind: random ends and walls, open rooms, walled corridors, pictures.
PARENTS = ("target_game", "open_room", "corridor", "winding_corridor", "two_rooms", "side_pockets")


def figures(**rates: float) -> dict[str, object]:
    return {"solve_rate": 0.4, "mean_return": 0.3, "skills": rates}


def parent(name: str) -> Genome:
    return parse_level(seed_level_source(name))


def held_out(name: str) -> Genome:
    maze = next(m for m in held_out_mazes() if m.name == name)
    walls = tuple((int(r), int(c)) for r, c in np.argwhere(maze.walls))
    return Genome(name, walls=walls, start=(*maze.start, maze.direction), goal=maze.goal)


def taught(g: Genome, skill: str, seed: int = 0) -> Genome | None:
    mutation = teach(g, SkillTarget(skill, {}, {}), np.random.default_rng(seed))
    if mutation is None:
        return None
    assert mutation.instruction is MutationInstruction.SKILL and mutation.edits
    assert all(edit.note for edit in mutation.edits)
    return mutation.child


def test_the_frontier_is_the_weakest_property_whose_easier_one_is_mastered() -> None:
    profile = figures(
        path_short=0.9, path_medium=0.6, path_long=0.1, few_dead_ends=0.8, many_dead_ends=0.3,
    )  # fmt: skip
    assert frontier_skills(profile) == ["path_long", "many_dead_ends"]
    # A harder property waits for its easier counterpart; a base property stands on its own.
    early = figures(path_short=0.9, path_medium=0.2, path_long=0.0, few_dead_ends=0.3)
    assert frontier_skills(early) == ["path_medium", "few_dead_ends"]


def test_nothing_is_on_the_frontier_when_everything_is_mastered() -> None:
    assert frontier_skills(figures(**dict.fromkeys(SKILLS, 0.5))) == []
    assert frontier_skills({"solve_rate": 0.2}) == []


def test_the_profile_reads_in_a_few_lines_and_names_the_frontier() -> None:
    profile = figures(path_short=1.0, path_medium=0.7, path_long=0.1, many_dead_ends=0.3,
                      few_dead_ends=0.8)  # fmt: skip
    text = describe_skills(profile)
    lines = text.splitlines()
    assert len(lines) == 2 and len(text) < 400
    assert "long 0.10" in text and "many 0.30" in text
    assert "short path (≤ 8 moves) 1.00" in text
    assert "path_long" in lines[-1]
    world = domains.get("maze")
    assert world.describe_skills(profile) == text
    assert world.frontier_skills(profile) == frontier_skills(profile)


@pytest.mark.parametrize("skill", SKILLS)
def test_children_have_the_property_and_stay_solvable_within_the_caps(skill: str) -> None:
    made = 0
    for name in PARENTS:
        for seed in range(3):
            g = parent(name)
            child = taught(g, skill, seed)
            if child is None:
                continue
            made += 1
            assert has_skill(child, skill) and solvable(child) and child != g.normalized()
            check_bounds(child)
            walls = len(child.walls) + child.random_walls
            assert walls <= max(MUTATION_MAX_WALLS, len(g.walls) + g.random_walls)
            assert not {child.start_cell, child.goal} & set(child.walls)
            assert read_genome(write_level(child)).genome == child
    assert made >= 3 * len(PARENTS) - 2, skill  # nearly every parent can be taught


def test_path_children_measure_what_the_evaluation_measures() -> None:
    long = taught(default_genome(), "path_long")
    assert long is not None and long.start is not None and long.goal is not None
    length = long.shortest_path()
    assert length is not None and length > MEDIUM_PATH
    assert long.random_walls == 25  # random walls only lengthen a path: kept
    medium = taught(default_genome(), "path_medium")
    assert medium is not None and medium.random_walls == 0  # fixed: the band has a top
    assert 9 <= (medium.shortest_path() or 0) <= 16 and len(medium.walls) == 25
    assert teaching_band("path_short") == (4, 8) and teaching_band("path_long") == (17, None)
    # A walled corridor gets a tunnel dug on from its far end.
    corridor = taught(parent("corridor"), "path_long")
    assert corridor is not None and (corridor.shortest_path() or 0) > MEDIUM_PATH


def test_dead_end_children_add_or_remove_dead_ends() -> None:
    for name in ("open_room", "two_rooms", "target_game"):
        g = parent(name)
        child = taught(g, "many_dead_ends")
        assert child is not None and child.random_walls == 0
        assert dead_ends(child.wall_array()) > max(dead_ends(g.wall_array()), FEW_DEAD_ENDS)
    labyrinth = held_out("labyrinth")
    opened = taught(labyrinth, "few_dead_ends")
    assert dead_ends(labyrinth.wall_array()) > 0 and opened is not None
    assert dead_ends(opened.wall_array()) == 0 and solvable(opened)


def test_skills_that_cannot_be_made_give_none() -> None:
    assert taught(parent("open_room"), "no_such_skill") is None
    # A one-cell corridor walled on both sides: no room for a side branch.
    assert taught(held_out("long_corridor"), "many_dead_ends") is None


def test_the_domain_wires_the_skill_edit() -> None:
    assert domains.get("maze").genome().teach is genome_edits.teach


@pytest.fixture(scope="module")
def validator() -> Iterator[Validator]:
    require_bubblewrap()
    with Validator(domains.get("maze"), pool_size=4, warm=1, rollouts=False) as validator:
        yield validator


def test_skill_children_pass_the_real_sandbox(validator: Validator) -> None:
    for name in ("target_game", "winding_corridor", "two_rooms"):
        for seed, skill in enumerate(SKILLS):
            child = taught(parent(name), skill, seed)
            assert child is not None, (name, skill)
            verdict = validator.validate(write_level(child), seed=seed)
            assert verdict.accepted, (name, skill, verdict.error)


def test_the_mutation_teacher_answers_the_skill_instruction(validator: Validator) -> None:
    rates = {"path_short": 0.9, "path_medium": 0.6, "path_long": 0.05, "few_dead_ends": 0.7,
             "many_dead_ends": 0.4}  # fmt: skip
    profile = figures(**rates)
    [skill, _] = frontier_skills(profile)
    assert skill == "path_long"
    source = seed_level_source("two_rooms")
    level = ParentLevel(ast.get_docstring(ast.parse(source)) or "", source, level_id="two_rooms")
    target = PerformanceProfile(skills=rates, notes=describe_skills(profile))
    request = TeacherRequest(level, target, MutationInstruction.SKILL, seed=2, skill=skill)
    teacher = MutationTeacher(validator.validate, domains.get("maze").genome(), seed=1)
    result = asyncio.run(teacher.propose(request))
    assert result.accepted, result.error
    assert result.skill == skill and result.instruction is MutationInstruction.SKILL
    assert result.code is not None and has_skill(read_genome(result.code).genome, skill)
    assert result.description is not None and "Shortest path" in result.description
