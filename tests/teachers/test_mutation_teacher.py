"""The mutation teacher end to end: seed levels in, children judged by the real sandbox."""

from __future__ import annotations

import ast
import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dicode import domains
from dicode.domains.tetris.genome import read_genome, write_level
from dicode.levels.pipeline import Validator
from dicode.teachers.base import (
    MutationInstruction,
    ParentLevel,
    PerformanceProfile,
    TeacherRequest,
    TeacherResult,
    VerdictLike,
)
from dicode.teachers.mutation import MutationTeacher
from dicode.teachers.registry import TeacherContext, make_teacher
from services.cli import app

SEED_DIR = Path(__file__).resolve().parents[2] / "dicode" / "domains" / "tetris" / "seed_levels"
SEEDS = sorted(p for p in SEED_DIR.glob("*.py") if not p.name.startswith("_"))
TARGET = next((p for p in SEEDS if "target" in p.stem), None)
TETRIS = domains.get("tetris")


@pytest.fixture(scope="module")
def validator() -> Iterator[Validator]:
    # Small pools and no engine rollouts: these tests are about acceptance and records.
    with Validator(TETRIS, pool_size=4, warm=1, rollouts=False) as validator:
        yield validator


def parent_from(path: Path) -> ParentLevel:
    source = path.read_text()
    return ParentLevel(ast.get_docstring(ast.parse(source)) or "", source, level_id=path.stem)


def propose(
    teacher: MutationTeacher, parent: ParentLevel, instruction: str, seed: int = 0
) -> TeacherResult:
    instruction_ = MutationInstruction(instruction)
    request = TeacherRequest(parent, PerformanceProfile(), instruction_, (), seed)
    return asyncio.run(teacher.propose(request))


def test_there_are_seed_levels_to_mutate() -> None:
    assert len(SEEDS) >= 8, f"expected seed levels in {SEED_DIR}"
    assert TARGET is not None, "expected the target game among the seed levels"


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.stem)
def test_every_seed_level_reads_exactly_and_rewrites_to_the_same_pool(
    path: Path, validator: Validator
) -> None:
    source = path.read_text()
    reading = read_genome(source)
    assert reading.exact, reading.unsupported
    original = validator.validate(source, seed=3)
    rewritten = validator.validate(write_level(reading.genome), seed=3)
    assert original.accepted and rewritten.accepted, (original.error, rewritten.error)
    assert original.bundle is not None and rewritten.bundle is not None
    # Same description, goal and pool arrays: the same level, written by the genome.
    assert rewritten.bundle.content_hash == original.bundle.content_hash


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.stem)
def test_children_of_every_seed_level_are_accepted_by_the_sandbox(
    path: Path, validator: Validator
) -> None:
    teacher = MutationTeacher(validator.validate, TETRIS.genome(), seed=11)
    parent = parent_from(path)
    results = [
        propose(teacher, parent, instruction, seed)
        for instruction in ("harder", "vary", "easier")
        for seed in range(2)
    ]
    rejected = [(r.title, r.failing_stage, r.error) for r in results if not r.accepted]
    assert not rejected, rejected
    for result in results:
        assert result.code is not None and result.description is not None
        assert ast.get_docstring(ast.parse(result.code)) == result.description
        assert f"of {path.stem}:" in " ".join(result.description.split())


def test_the_attempt_record_matches_the_llm_teachers(validator: Validator) -> None:
    assert TARGET is not None
    teacher = MutationTeacher(validator.validate, TETRIS.genome(), seed=5)
    result = propose(teacher, parent_from(TARGET), "harder", seed=1)
    assert isinstance(result, TeacherResult)
    assert result.teacher == "mutation" and result.instruction is MutationInstruction.HARDER
    assert result.parent_id == TARGET.stem and result.accepted and result.failing_stage is None
    assert result.title is not None and result.title.startswith("harder: ")
    assert result.reasoning and "→" in result.reasoning
    [round_] = result.rounds
    assert (round_.round, round_.extraction, round_.accepted) == (0, "genome", True)
    assert result.exchanges == []  # no model was asked
    record = json.loads(json.dumps(result.to_record()))
    assert record["verdict"]["accepted"] is True and record["code"] == result.code


def test_the_same_request_gives_the_same_child(validator: Validator) -> None:
    parent = parent_from(SEEDS[0])

    def child(teacher_seed: int, request_seed: int) -> str:
        request = TeacherRequest(
            parent, PerformanceProfile(), MutationInstruction.HARDER, (), request_seed
        )
        teacher = MutationTeacher(validator.validate, TETRIS.genome(), seed=teacher_seed)
        return teacher.write_child(request).code

    assert child(2, 9) == child(2, 9)
    assert len({child(2, seed) for seed in range(6)}) > 1


def test_a_parent_outside_the_grammar_yields_a_standard_game_child_and_says_so(
    validator: Validator, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    hostile = (
        '"""Looks innocent."""\nimport os\n\n\ndef build(level, rng):\n'
        f"    open({str(marker)!r}, 'w').write(os.environ.get('HOME', ''))\n"
    )
    teacher = MutationTeacher(validator.validate, TETRIS.genome(), seed=0)
    result = propose(teacher, ParentLevel("Looks innocent.", hostile, level_id="bad"), "easier")
    assert not marker.exists()  # the parent's code was read, never run
    assert result.accepted, result.error
    assert result.code is not None and "os" not in result.code.split('"""')[-1]
    assert result.description is not None and "standard game" in result.description
    assert "'os'" in result.description


def test_a_broken_validator_is_recorded_not_raised() -> None:
    def broken(source: str) -> VerdictLike:
        raise RuntimeError("sandbox pool is gone")

    assert TARGET is not None
    teacher = MutationTeacher(broken, TETRIS.genome())
    result = propose(teacher, parent_from(TARGET), "vary")
    assert not result.accepted
    assert result.failing_stage == "sandbox"
    assert result.error is not None and "sandbox pool is gone" in result.error
    assert result.code is not None  # what would have been validated is kept


def test_the_registry_builds_the_mutation_teacher(validator: Validator) -> None:
    teacher = make_teacher("mutation", TeacherContext(TETRIS, validator.validate, seed=4))
    assert isinstance(teacher, MutationTeacher) and teacher.seed == 4
    # The world is looked up by name once, at the edge: an unknown one fails there.
    with pytest.raises(ValueError, match=r"unknown world 'chess'; known worlds: .*tetris"):
        domains.get("chess")


def test_teach_cli_writes_children_and_verdicts(tmp_path: Path) -> None:
    out = tmp_path / "children"
    args = [
        "teach", "--domain", "tetris", "--teacher", "mutation", "--parent", str(SEEDS[0]),
        "--n", "3", "--out", str(out), "--instruction", "harder", "--pool-size", "4",
        "--no-rollouts", "--json",
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output.strip().splitlines()[-1])
    assert summary == {"accepted": 3, "rejected": 0, "by_stage": {}}
    for index in range(3):
        record = json.loads((out / f"child_{index:03d}.json").read_text())
        assert record["teacher"] == "mutation" and record["verdict"]["accepted"] is True
        assert (out / f"child_{index:03d}.py").read_text() == record["code"]


# Seed levels where one generation can move the success-rate estimates (elsewhere the heuristic
# is pinned at 1 and the random policy at 0): the random policy sometimes clears 02; S and Z
# pieces among 03's squares trip the heuristic; the goal-less target game sits at 0 until an
# easier child gives it a finish line.
SENSITIVE = ("02_first_line", "03_squares_only", "11_target_game")


@pytest.mark.slow
def test_harder_and_easier_children_move_the_difficulty_estimates_apart() -> None:
    def score(difficulty: dict[str, float]) -> float:
        return (difficulty["heuristic_success"] + difficulty["random_success"]) / 2

    shifts: dict[str, list[float]] = {"harder": [], "easier": []}
    with Validator(TETRIS, pool_size=8, warm=1, rollout_steps=100) as validator:
        teacher = MutationTeacher(validator.validate, TETRIS.genome(), seed=0)
        for stem in SENSITIVE:
            path = SEED_DIR / f"{stem}.py"
            parent_score = score(validator.validate(path.read_text()).difficulty)
            for instruction, found in shifts.items():
                for seed in range(4):
                    result = propose(teacher, parent_from(path), instruction, seed)
                    assert result.accepted, result.error
                    found.append(score(result.verdict.difficulty) - parent_score)  # type: ignore[union-attr]
    harder, easier = (sum(v) / len(v) for v in (shifts["harder"], shifts["easier"]))
    # Success rates fall for harder children and rise for easier ones, on average.
    assert harder < 0 < easier, shifts
