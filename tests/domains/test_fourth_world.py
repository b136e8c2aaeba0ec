"""A fourth world in one folder (``tests/worlds/corridor``), found through ``DICODE_WORLDS``, runs
end to end on the real parts: lookup by name, level code through the sandbox pipeline into a
bundle, the SQL archive, the one PPO under the student loop and the archive schedule (one
compile across level swaps), the target protocol, the mutation genome and ``dicode train`` /
``eval``. The walk-through in docs/architecture.md follows this world file by file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from archive_db.recording import record_verdict
from archive_db.repository import ArchiveRepository
from dicode import domains
from dicode.domains.base import Domain
from dicode.levels.pipeline import Validator
from dicode.settings import EvaluatorSettings, StudentSettings
from dicode.student.archive_schedule import ArchiveSchedule
from dicode.student.curriculum import TARGET, CurriculumConfig
from dicode.student.loop import StudentLoop
from dicode.teachers.base import MutationInstruction
from tests.levels.helpers import require_bubblewrap
from tests.support.student_cli import check_train_then_eval
from tests.worlds.corridor.config import CorridorConfig

TINY = CorridorConfig(num_slots=2, envs_per_slot=4, pool_size=4, num_steps=16)
PROTOCOL = EvaluatorSettings(games=8, max_steps=32)
WALLED_IN = '''"""The goal lies behind a wall."""


def build(level, rng):
    level.wall(5)
    level.start(2)
    level.goal(9)
'''


@pytest.fixture(scope="module")
def corridor() -> Iterator[Domain]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(domains.WORLDS_VARIABLE, "tests.worlds.corridor")
        yield domains.get("corridor")


@pytest.fixture(scope="module")
def validator(corridor: Domain) -> Iterator[Validator]:
    require_bubblewrap()
    with Validator(corridor, pool_size=TINY.pool_size, warm=1, rollout_steps=32) as validator:
        yield validator


def test_the_world_is_found_by_name_only_where_the_variable_names_it(corridor: Domain) -> None:
    assert "corridor" in domains.names() and corridor.name == "corridor"
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv(domains.WORLDS_VARIABLE)
        with pytest.raises(ValueError, match="unknown world 'corridor'; known worlds: craftax"):
            domains.get("corridor")
        patch.setenv(domains.WORLDS_VARIABLE, "tests.worlds.nowhere")
        with pytest.raises(ValueError, match=r"no module tests\.worlds\.nowhere\.domain"):
            domains.get("nowhere")


def test_level_code_goes_through_the_sandbox_into_the_archive_and_trains_the_one_ppo(
    corridor: Domain, validator: Validator, sqlite_url: str
) -> None:
    repo = ArchiveRepository.open(sqlite_url)
    run = repo.runs.create("corridor", domain=corridor.name, seed=0)
    sources = corridor.seed_sources()
    stored = []
    for name in ("short_walk", "walled_room"):
        verdict = validator.validate(sources[name])
        assert verdict.accepted, verdict.error
        assert verdict.bundle is not None and verdict.bundle.pool_size == TINY.pool_size
        assert verdict.bundle.domain == "corridor" and "random_success" in verdict.difficulty
        recorded = record_verdict(repo, run.id, corridor.name, "seed", sources[name], verdict, 0.0)
        assert recorded.level is not None
        stored.append(recorded.level.id)
    # The pipeline's stages reject what the world's checks and the sandbox reject.
    walled = validator.validate(WALLED_IN)
    assert (walled.stage, walled.accepted) == ("rollouts", False)
    assert "a wall stands between start and goal" in (walled.error or "")
    too_long = validator.validate(WALLED_IN.replace("level.wall(5)", "level.length(40)"))
    assert too_long.stage == "sandbox_build" and "level.length" in (too_long.error or "")

    # New levels take every free slot, so the second session swaps the second level in.
    schedule = ArchiveSchedule(repo, run.id, corridor, mix=CurriculumConfig(new_share=1.0))
    trainer = corridor.make_trainer(StudentSettings(ppo=TINY), PROTOCOL)
    loop = StudentLoop(trainer, schedule)
    first = loop.run_session(2)  # compiles the iteration once; the first level is placed
    assert loop.slot_levels == [TARGET, stored[0]] and first[stored[0]].episodes > 0
    traces = trainer.ppo.trace_count  # type: ignore[attr-defined]
    second = loop.run_session(2)  # the other new level replaces it: arrays, no compile
    assert loop.slot_levels == [TARGET, stored[1]] and second[stored[1]].episodes > 0
    assert trainer.ppo.trace_count == traces  # type: ignore[attr-defined]
    assert loop.iteration == 4 and loop.r_prev > 0  # R̄ follows the target's episodes
    for level_id in stored:
        history = repo.evaluations.history(level_id)
        assert len(history) == 1 and history[0].episodes > 0

    figures = loop.evaluate()
    assert list(figures)[: len(corridor.target_metrics)] == list(corridor.target_metrics)
    assert 0.0 <= figures["solve_rate"] <= 1.0 and figures["games"] == PROTOCOL.games
    assert set(figures["skills"]) <= {"near", "far"} and figures["skills"]
    assert corridor.describe_skills(figures).startswith("Solve rate by the goal's distance")
    repo.close()


def test_the_mutation_teachers_children_validate(corridor: Domain, validator: Validator) -> None:
    codec = corridor.genome()
    reading = codec.read(corridor.seed_sources()["walled_room"])
    assert reading.exact and codec.read(codec.write(reading.genome)).genome == reading.genome
    rng = np.random.default_rng(0)
    for instruction in (MutationInstruction.HARDER, MutationInstruction.EASIER):
        child = codec.mutate(reading.genome, instruction, rng, 2).child
        verdict = validator.validate(codec.write(child))
        assert verdict.accepted, (instruction, codec.write(child), verdict.error)


def test_dicode_train_and_eval_reach_the_world(corridor: Domain, tmp_path: Path) -> None:
    games, max_steps = PROTOCOL.games, PROTOCOL.max_steps
    check_train_then_eval("corridor", TINY, tmp_path, games, max_steps)
