"""The mutation teacher on Craftax: seed levels in, children judged by the real sandbox."""

from __future__ import annotations

import ast
import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from dicode import domains
from dicode.domains.craftax.genome import read_genome, write_level
from dicode.domains.craftax.seed_levels import SEED_LEVEL_NAMES, seed_level_source
from dicode.domains.craftax.skills import TARGET_CHOICES, frontier_skills
from dicode.levels.pipeline import Validator
from dicode.teachers.base import (
    MutationInstruction,
    ParentKind,
    ParentLevel,
    PerformanceProfile,
    TeacherRequest,
    TeacherResult,
)
from dicode.teachers.mutation import MutationTeacher
from dicode.teachers.registry import TeacherContext, make_teacher
from services.cli import app

SEED_DIR = Path(__file__).resolve().parents[2] / "dicode" / "domains" / "craftax" / "seed_levels"
CHILD_SEEDS = range(3)  # per seed level and instruction: 7 x 3 x 3 = 63 sandbox validations


@pytest.fixture(scope="module")
def validator() -> Iterator[Validator]:
    # One warm validator for the module: small pools, no engine rollouts (these tests are
    # about acceptance; the world generator compiles once per process).
    with Validator(domains.get("craftax"), pool_size=4, warm=1, rollouts=False) as validator:
        yield validator


def parent_from(name: str) -> ParentLevel:
    source = seed_level_source(name)
    return ParentLevel(ast.get_docstring(ast.parse(source)) or "", source, level_id=name)


def propose(
    teacher: MutationTeacher, parent: ParentLevel, instruction: str, seed: int = 0
) -> TeacherResult:
    request = TeacherRequest(
        parent, PerformanceProfile(), MutationInstruction(instruction), (), seed
    )
    return asyncio.run(teacher.propose(request))


@pytest.mark.parametrize("name", SEED_LEVEL_NAMES)
def test_seed_levels_read_exactly_and_rewrite_to_the_same_pool(
    name: str, validator: Validator
) -> None:
    source = seed_level_source(name)
    reading = read_genome(source)
    assert reading.exact, reading.unsupported
    original = validator.validate(source, seed=3)
    rewritten = validator.validate(write_level(reading.genome), seed=3)
    assert original.accepted and rewritten.accepted, (original.error, rewritten.error)
    assert original.bundle is not None and rewritten.bundle is not None
    assert rewritten.bundle.content_hash == original.bundle.content_hash


@pytest.mark.parametrize("name", SEED_LEVEL_NAMES)
def test_children_of_every_seed_level_pass_the_real_sandbox(
    name: str, validator: Validator
) -> None:
    teacher = MutationTeacher(validator.validate, domains.get("craftax").genome(), seed=11)
    parent = parent_from(name)
    for instruction in ("harder", "vary", "easier"):
        for seed in CHILD_SEEDS:
            result = propose(teacher, parent, instruction, seed)
            assert result.accepted, (instruction, seed, result.title, result.error)
            assert result.code is not None and result.description is not None
            assert ast.get_docstring(ast.parse(result.code)) == result.description
            assert f"of {name}:" in " ".join(result.description.split())
            assert read_genome(result.code).exact  # children stay inside the genome


def test_the_same_request_gives_the_same_child(validator: Validator) -> None:
    parent = parent_from("fight_zombies")

    def child(teacher_seed: int, request_seed: int) -> str:
        request = TeacherRequest(
            parent, PerformanceProfile(), MutationInstruction.HARDER, (), request_seed
        )
        teacher = MutationTeacher(
            validator.validate, domains.get("craftax").genome(), seed=teacher_seed
        )
        return teacher.write_child(request).code

    assert child(2, 9) == child(2, 9)
    assert len({child(2, seed) for seed in range(6)}) > 1


def test_a_parent_outside_the_grammar_yields_a_full_game_child_and_says_so(
    validator: Validator, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    hostile = (
        '"""Looks innocent."""\nimport os\n\n\ndef build(level, rng):\n'
        f"    open({str(marker)!r}, 'w').write(os.environ.get('HOME', ''))\n"
        '    level.set_goal("collect_wood")\n'
    )
    teacher = MutationTeacher(validator.validate, domains.get("craftax").genome(), seed=0)
    result = propose(teacher, ParentLevel("Looks innocent.", hostile, level_id="bad"), "vary")
    assert not marker.exists()  # the parent's code was read, never run
    assert result.accepted, result.error
    assert result.code is not None and "os" not in result.code.split('"""')[-1]
    assert result.description is not None and "unmodified game" in result.description


def test_the_registry_builds_the_craftax_mutation_teacher(validator: Validator) -> None:
    craftax = domains.get("craftax")
    teacher = make_teacher("mutation", TeacherContext(craftax, validator.validate, seed=4))
    assert isinstance(teacher, MutationTeacher) and teacher.codec == craftax.genome()
    with pytest.raises(ValueError, match=r"unknown world .chess.; known worlds: .*craftax"):
        domains.get("chess")


def test_teach_cli_accepts_the_craftax_domain(tmp_path: Path) -> None:
    out = tmp_path / "children"
    args = [
        "teach", "--domain", "craftax", "--teacher", "mutation",
        "--parent", str(SEED_DIR / "craft_tools.py"), "--n", "2", "--out", str(out),
        "--instruction", "easier", "--pool-size", "2", "--no-rollouts", "--json",
    ]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output.strip().splitlines()[-1]) == {
        "accepted": 2, "rejected": 0, "by_stage": {}
    }  # fmt: skip
    record = json.loads((out / "child_000.json").read_text())
    assert record["teacher"] == "mutation" and "level.set_goal(" in record["code"]
    bad = CliRunner().invoke(app, [*args[:2], "chess", *args[3:]])
    assert bad.exit_code == 2 and "unknown world 'chess'" in bad.output


def test_the_target_parent_aims_the_full_game_at_a_missed_achievement(
    validator: Validator,
) -> None:
    world = domains.get("craftax")
    rates = {"collect_wood": 0.95, "collect_sapling": 0.9, "place_table": 0.05, "wake_up": 0.6}
    profile = PerformanceProfile(skills=rates)
    goals = set()
    for seed in range(6):
        parent = world.target_parent(None, profile, np.random.default_rng(seed))
        assert parent is not None and parent.kind is ParentKind.TARGET
        genome = read_genome(parent.code).genome
        assert len(genome.goal) == 1 and rates.get(genome.goal[0], 0.0) < 0.2
        assert genome.floor == 0 and genome.near_player == () and genome.rules == ()
        goals.add(genome.goal[0])
    # The first of the frontier: rarely unlocked while what each builds on is mastered.
    assert len(goals) > 1 and goals <= set(frontier_skills({"skills": rates})[:TARGET_CHOICES])
    verdict = validator.validate(parent.code, seed=0)
    assert verdict.accepted, verdict.error
    teacher = MutationTeacher(validator.validate, world.genome(), seed=3)
    request = TeacherRequest(parent, profile, MutationInstruction.EASIER, seed=1)
    result = asyncio.run(teacher.propose(request))
    assert result.accepted, (result.title, result.error)
    assert result.parent_kind is ParentKind.TARGET and result.parent_id is None
    assert world.target_parent(None, PerformanceProfile(), np.random.default_rng(0)) is None
