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
    MIDGAME_MARKS,
    PRE_TOPOUT,
    board_rows,
    count_holes,
    frontier_skills,
    rows_to_cells,
    skill_figures,
    stack_height,
    survival_gate,
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


def test_the_frontier_ranks_survival_by_the_lines_it_gates_and_clears_only_after() -> None:
    # 25 % of games end in each band; an early end loses more of the game: 250 first.
    figures = _profile()
    assert frontier_skills(figures) == ["survive_250", "survive_500", "survive_1000"]
    skills = figures["skills"]
    assert survival_gate(skills, 250) == pytest.approx(0.25 * (1000 - 125) * 0.4)  # type: ignore[arg-type]
    # Where the student ends its games decides: most games end between 500 and 1,000 pieces.
    late = {"survive_250": 0.95, "survive_500": 0.9, "survive_1000": 0.3, "clear_tetris": 0.0}
    assert frontier_skills({"skills": late}) == ["survive_1000"]  # clears gate no lines at a cap
    skills = {"survive_250": 1.0, "survive_500": 0.95, "survive_1000": 0.9,
              "clear_double": 0.3, "clear_triple": 0.02, "clear_tetris": 0.05}  # fmt: skip
    assert frontier_skills({"skills": skills}) == ["clear_triple", "clear_tetris"]
    skills |= {"clear_triple": 0.2, "clear_tetris": 0.2}
    assert frontier_skills({"skills": skills}) == []
    text = TETRIS.describe_skills(_profile())
    assert "to learn next: survive_250" in text and len(text.splitlines()) <= 4


def test_the_evaluation_keeps_mid_game_boards_of_the_games_that_topped_out_first() -> None:
    games, marks = 3, MIDGAME_MARKS[:6]  # up to 60 pieces
    snapshots = np.zeros((games, len(marks), 20, 10), bool)
    for g in range(games):
        for m in range(len(marks)):
            snapshots[g, m, : m + 1, g] = True  # game g, mark m: a column of m + 1 cells
    snapshots[2, :, 0, 5] = True
    pieces, topped = np.array([80, 50, 31]), np.array([False, True, True])
    clears, history = np.zeros((games, 5), int), np.zeros((games, 100), int)
    figures = skill_figures(pieces, topped, clears, history, history, 100, snapshots)
    boards = figures["start_states"]
    # Topped out first, shorter first: game 2 (31 pieces: mark 15), game 1 (25), game 0 (40).
    assert [len(b) for b in boards] == [2, 3, 4]
    assert boards[0] == ["..#.......", "..#..#...."]
    assert rows_to_cells(boards[0]) == [(1, 2), (0, 2), (0, 5)]
    board = np.zeros((20, 10), np.uint8)
    board[0, :3] = board[2, 9] = 1
    assert board_rows(board) == [".........#", "..........", "###......."]
    assert board_rows(np.zeros((20, 10))) == []


@pytest.fixture(scope="module")
def validator() -> Iterator[Validator]:
    with Validator(domains.get("tetris"), pool_size=4, warm=1, rollouts=False) as validator:
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
    if skill.startswith("survive_"):  # from the student's own mid-game board when it has one
        board = ["...#......", "#.##.###.#", "####.#####"]
        own = SkillTarget(skill, figures["skills"], numbers, (board,))  # type: ignore[arg-type]
        from_board = genome_edits.teach(parent, own, np.random.default_rng(3))
        assert from_board is not None and from_board.child.stack == ()
        assert set(from_board.child.filled) == set(rows_to_cells(board))
        assert from_board.child.goal_pieces == child.goal_pieces
        verdict = validator.validate(genome.write_level(from_board.child))
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
    teacher = MutationTeacher(validator.validate, domains.get("tetris").genome())
    result = asyncio.run(teacher.propose(request))
    assert result.accepted, result.error
    assert result.skill == "survive_500" and result.instruction is MutationInstruction.SKILL
    assert "level.garbage(" in (result.code or "") and "teach_survive_500" in (result.title or "")
    with pytest.raises(ValueError, match="go together"):
        TeacherRequest(parent, profile, MutationInstruction.SKILL, seed=5)
