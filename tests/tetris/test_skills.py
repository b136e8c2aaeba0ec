"""The Tetris skill profile: measured from the protocol's games, read by people and teachers,
and taught by the mutation teacher's skill edit (its levels pass the real sandbox)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import jax.numpy as jnp
import numpy as np
import pytest

from dicode import domains
from dicode.domains.tetris import genome, genome_edits
from dicode.domains.tetris.skills import (
    PRE_TOPOUT,
    count_holes,
    frontier_skills,
    skill_figures,
    stack_height,
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

TETRIS = domains.get("tetris")


def test_height_and_holes_of_a_board() -> None:
    board = np.zeros((20, 10), np.uint8)
    board[0, :9] = 1  # a row with one gap in column 9
    board[1, 3] = 1  # on top of a filled cell: no hole
    board[3, 9] = 1  # over column 9's empty rows 0..2: three holes
    assert int(stack_height(jnp.asarray(board))) == 4
    assert int(count_holes(jnp.asarray(board))) == 3


def _profile() -> dict[str, object]:
    games, cap = 4, 1000
    pieces = np.array([1000, 620, 300, 200])
    topped = pieces < cap
    clears = np.zeros((games, 5), int)
    clears[:, 1], clears[:, 2], clears[:, 4] = 90, 10, 0
    heights = np.tile(np.arange(cap) % 15, (games, 1))
    holes = np.full((games, cap), 6)
    return skill_figures(pieces, topped, clears, heights, holes, cap)


def test_skill_figures_count_survival_and_clears() -> None:
    figures = _profile()
    skills = figures["skills"]
    assert skills == pytest.approx(
        {
            "survive_250": 0.75,
            "survive_500": 0.5,
            "survive_1000": 0.25,
            "clear_double": 0.1,
            "clear_triple": 0.0,
            "clear_tetris": 0.0,
        }
    )
    assert figures["topout_share"] == 0.75
    # PRE_TOPOUT pieces before the end of the topped-out games (620, 300, 200).
    expected = np.mean([(p - PRE_TOPOUT) % 15 for p in (620, 300, 200)])
    assert figures["topout_height"] == pytest.approx(expected)
    assert figures["topout_holes"] == 6


def test_the_frontier_is_the_first_survival_mark_then_rare_clears() -> None:
    assert frontier_skills(_profile()) == ["survive_250", "clear_tetris", "clear_triple"]
    skills = {"survive_250": 1.0, "survive_500": 0.95, "survive_1000": 0.9,
              "clear_double": 0.3, "clear_triple": 0.2, "clear_tetris": 0.2}  # fmt: skip
    mastered = {"skills": skills}
    assert frontier_skills(mastered) == []
    text = TETRIS.describe_skills(_profile())
    assert "to learn next: survive_250" in text and len(text.splitlines()) <= 4


@pytest.fixture(scope="module")
def validator() -> Iterator[Validator]:
    with Validator("tetris", pool_size=4, warm=1, rollouts=False) as validator:
        yield validator


@pytest.mark.parametrize("skill", ["survive_250", "survive_1000", "clear_tetris", "clear_triple"])
def test_skill_levels_teach_the_skill_and_pass_the_sandbox(
    skill: str, validator: Validator
) -> None:
    figures = _profile()
    parent = genome.read_genome(TETRIS.seed_sources()["11_target_game"]).genome
    numbers = {k: float(v) for k, v in figures.items() if isinstance(v, float)}
    target = SkillTarget(skill, figures["skills"], numbers)  # type: ignore[arg-type]
    mutation = genome_edits.teach(parent, target, np.random.default_rng(3))
    assert mutation is not None and mutation.instruction is MutationInstruction.SKILL
    child = mutation.child
    if skill.startswith("survive_"):
        assert child.goal_pieces and child.goal_lines is None and child.stack_rows >= 4
    else:
        assert child.goal_lines in (3, 4) and child.sequence == "I"
    verdict = validator.validate(genome.write_level(child))
    assert verdict.accepted, verdict.error
    unknown = SkillTarget("juggling", {}, {})
    assert genome_edits.teach(parent, unknown, np.random.default_rng(0)) is None


def test_the_mutation_teacher_answers_a_skill_request(validator: Validator) -> None:
    source = TETRIS.seed_sources()["06_garbage_dig"]
    parent = ParentLevel("a dig level", source, level_id="6")
    figures = _profile()
    profile = PerformanceProfile(
        skills=dict(figures["skills"]),  # type: ignore[arg-type]
        figures={k: float(v) for k, v in figures.items() if isinstance(v, float)},
    )
    request = TeacherRequest(
        parent, profile, MutationInstruction.SKILL, seed=5, skill="survive_500"
    )
    teacher = MutationTeacher(validator.validate, domain="tetris")
    result = asyncio.run(teacher.propose(request))
    assert result.accepted, result.error
    assert result.skill == "survive_500" and result.instruction is MutationInstruction.SKILL
    assert "level.garbage(" in (result.code or "") and "teach_survive_500" in (result.title or "")
    with pytest.raises(ValueError, match="go together"):
        TeacherRequest(parent, profile, MutationInstruction.SKILL, seed=5)
