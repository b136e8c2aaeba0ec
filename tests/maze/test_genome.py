"""The maze genome: read from code with the AST only, written back as readable code (same
pool), edits per instruction that keep children solvable, and the mutation teacher whose
children the real sandbox accepts."""

from __future__ import annotations

import ast
import asyncio

import numpy as np
import pytest

from dicode import domains
from dicode.domains.maze.genome import (
    Genome,
    default_genome,
    describe,
    read_genome,
    solvable,
    write_level,
)
from dicode.domains.maze.genome_edits import MUTATION_MAX_WALLS, mutate
from dicode.domains.maze.grid import SIZE
from dicode.domains.maze.seed_levels import SEED_LEVEL_NAMES
from dicode.levels.pipeline import Validator
from dicode.teachers.base import (
    MutationInstruction,
    ParentLevel,
    PerformanceProfile,
    TeacherRequest,
    TeacherResult,
)
from dicode.teachers.mutation import MutationTeacher


@pytest.mark.parametrize("name", SEED_LEVEL_NAMES)
def test_seed_levels_read_exactly_and_rewrite_to_the_same_pool(
    name: str, validator: Validator, seed_sources: dict[str, str]
) -> None:
    source = seed_sources[name]
    reading = read_genome(source)
    assert reading.exact, reading.unsupported
    assert solvable(reading.genome)
    rewritten = write_level(reading.genome)
    assert read_genome(rewritten).genome == reading.genome
    original = validator.validate(source, seed=3)
    again = validator.validate(rewritten, seed=3)
    assert original.accepted and again.accepted, (original.error, again.error)
    assert original.bundle is not None and again.bundle is not None
    assert again.bundle.content_hash == original.bundle.content_hash


def test_loops_constants_and_conditions_are_read() -> None:
    source = '''"""Bars."""

GAP = 12


def build(level, rng):
    for row in range(2, 11, 4):
        level.line(row, 0, row, GAP - 1)
    for r, c in ((1, 1), (3, 3)):
        level.wall(r, c)
    if GAP > 10:
        level.clear(2, 5)
    level.start(0, 0, direction="south")
    level.goal(level.size - 1, 0)
    level.random_walls(5)
'''
    reading = read_genome(source)
    assert reading.exact, reading.unsupported
    g = reading.genome
    walls = g.wall_array()
    assert walls[[2, 6, 10], 0].all() and not walls[2, 5] and not walls[:, 12].any()
    assert walls[1, 1] and walls[3, 3] and len(g.walls) == 3 * 12 - 1 + 2
    assert g.start == (0, 0, "south") and g.goal == (12, 0) and g.random_walls == 5
    assert g.module_code == "GAP = 12"
    assert "GAP = 12" in write_level(g)
    assert "Shortest path" in describe(g)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("    level.wall(int(rng.integers(13)), 0)\n", "outside the genome grammar"),
        ("    level.random_walls(5)\n    level.wall(1, 1)\n", "after level.random_walls"),
        ("    while True:\n        pass\n", "While is outside"),
        ("    if level.is_wall(0, 0):\n        pass\n", "outside the genome grammar"),
        ("    level.wall(20, 0)\n", "level.wall: row must be in 0..12, got 20"),
    ],
)  # fmt: skip
def test_code_outside_the_grammar_falls_back_to_the_target_game(body: str, reason: str) -> None:
    reading = read_genome(f'"""Odd maze."""\n\n\ndef build(level, rng):\n{body}')
    assert not reading.exact
    assert reason in " ".join(reading.unsupported)
    assert reading.genome == default_genome("Odd maze.")
    assert reading.genome.random_walls == 25


@pytest.mark.parametrize("instruction", list(MutationInstruction))
@pytest.mark.parametrize("name", SEED_LEVEL_NAMES)
def test_children_of_every_instruction_stay_solvable(
    name: str, instruction: MutationInstruction, seed_sources: dict[str, str]
) -> None:
    parent = read_genome(seed_sources[name]).genome
    changed = 0
    for seed in range(25):
        mutation = mutate(parent, instruction, np.random.default_rng(seed), 2)
        child = mutation.child
        assert solvable(child), (name, instruction, mutation.edits)
        assert 1 <= len(mutation.edits) <= 2 or mutation.child == parent.normalized()
        ends = {c for c in (child.start_cell, child.goal) if c is not None}
        assert not ends & set(child.walls)
        if child != parent.normalized():
            changed += 1
            grown = len(child.walls) + child.random_walls
            assert grown <= max(MUTATION_MAX_WALLS, len(parent.walls) + parent.random_walls)
        # What is written reads back as the same child.
        assert read_genome(write_level(child)).genome == child
    assert changed >= 20, (name, instruction)


def test_harder_and_easier_move_the_shortest_path_the_right_way() -> None:
    parent = Genome("Room.", start=(6, 2, "east"), goal=(6, 8))
    longer = shorter = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        harder = mutate(parent, MutationInstruction.HARDER, rng, 1).child
        easier = mutate(parent, MutationInstruction.EASIER, rng, 1).child
        base = parent.shortest_path()
        assert base is not None
        h, e = harder.shortest_path(), easier.shortest_path()
        assert h is not None and e is not None
        longer += h > base or len(harder.walls) + harder.random_walls > 0
        shorter += e < base
    assert longer == 40 and shorter >= 30


def test_random_end_levels_get_harder_with_more_random_walls() -> None:
    dr = default_genome()
    counts = [
        mutate(dr, MutationInstruction.HARDER, np.random.default_rng(s), 1).child for s in range(10)
    ]
    assert all(len(c.walls) + c.random_walls > 25 for c in counts)
    easier = [
        mutate(dr, MutationInstruction.EASIER, np.random.default_rng(s), 1).child for s in range(20)
    ]
    # Fewer random walls, or the random start brought a few moves from the goal.
    fewer = [c.random_walls < 25 for c in easier]
    near = [c.near_goal is not None and c.random_walls == 25 for c in easier]
    assert all(a or b for a, b in zip(fewer, near, strict=True)) and any(fewer) and any(near)


def test_an_unsolvable_parent_is_never_made_worse_by_a_veto_gap() -> None:
    walls = tuple((r, 6) for r in range(SIZE))
    parent = Genome("Cut.", walls=walls, start=(0, 0, "east"), goal=(0, 12))
    assert not solvable(parent)
    child = mutate(parent, MutationInstruction.EASIER, np.random.default_rng(0), 2).child
    assert len(child.walls) < len(walls)  # removing walls is always allowed


def _propose(
    teacher: MutationTeacher, name: str, source: str, instruction: str, seed: int
) -> TeacherResult:
    parent = ParentLevel(ast.get_docstring(ast.parse(source)) or "", source, level_id=name)
    request = TeacherRequest(
        parent, PerformanceProfile(), MutationInstruction(instruction), (), seed
    )
    return asyncio.run(teacher.propose(request))


@pytest.mark.parametrize("name", SEED_LEVEL_NAMES)
def test_the_mutation_teacher_writes_accepted_children(
    name: str, validator: Validator, seed_sources: dict[str, str]
) -> None:
    teacher = MutationTeacher(validator.validate, domains.get("maze").genome(), seed=5)
    assert teacher.codec.fallback.startswith("the target game")
    for instruction in ("harder", "vary", "easier"):
        result = _propose(teacher, name, seed_sources[name], instruction, seed=1)
        assert result.accepted, (instruction, result.title, result.error)
        assert result.code is not None and result.description is not None
        assert ast.get_docstring(ast.parse(result.code)) == result.description
        assert f"of {name}:" in " ".join(result.description.split())
        assert read_genome(result.code).exact


def test_the_domain_hands_out_this_genome() -> None:
    codec = domains.get("maze").genome()
    assert codec.read is read_genome and codec.write is write_level
