"""The generator aimed at the target (``GeneratorSettings.target_aim``): target-derived parents
written by the world from the run's own student configuration, easier children stored without
a parent id and said to be target-derived, the target line's newest measured rung stepped on the
ladder, the ladder for archive parents, back-pressure between sessions, and the counters by
parent origin and instruction — against a real SQLite archive, the real sandbox and the API."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from archive_db import ArchiveRepository
from archive_db.kinds import TARGET_EVENT
from archive_db.records import AttemptFilter
from dicode import domains
from dicode.domains.maze.student.config import MazePPOConfig
from dicode.levels.pipeline import Validator
from dicode.settings import GeneratorSettings, RunSettings, StudentSettings
from dicode.teachers.base import TARGET_PARENT_LABEL, MutationInstruction, ParentKind
from services.api.app import create_app
from services.generator.service import Generator
from tests.levels.helpers import require_bubblewrap
from tests.services.conftest import TINY, ServerThread, new_run

AIMED = GeneratorSettings(target_aim=1.0, in_flight=1, pool_size=8, rollout_steps=40)


@pytest.fixture(scope="module")
def maze_validator() -> Iterator[Validator]:
    require_bubblewrap()
    with Validator(domains.get("maze"), pool_size=8, warm=1, rollout_steps=40) as validator:
        yield validator


def maze_run(repo: ArchiveRepository, family: str) -> int:
    settings = RunSettings(
        domain="maze",
        generator=AIMED,
        student=StudentSettings(ppo=MazePPOConfig(target=family)),
    )
    return repo.runs.create("aimed", domain="maze", seed=0, config=settings.to_dict()).id


def test_target_parents_give_easier_children_stored_as_target_derived(
    tmp_path: Path, maze_validator: Validator
) -> None:
    url = f"sqlite:///{tmp_path}/archive.sqlite"
    repo = ArchiveRepository.open(url)
    run_id = maze_run(repo, "long_paths")
    generator = Generator(
        repo, run_id, AIMED, TINY.archive, domain="maze", seed=1, validator=maze_validator
    )
    generator.seed_archive()
    request, parent_id = generator.next_request(1)
    assert parent_id is None and request.parent.kind is ParentKind.TARGET
    assert request.instruction is MutationInstruction.EASIER
    # The run's target family (its stored student config): long paths, not DR.
    assert "level.perfect_maze()" in request.parent.code
    assert "level.random_start(min_distance=60)" in request.parent.code

    generator.generate(3)
    stats = generator.stats.as_dict()
    assert stats["parents"] == {"archive": 0, "target": 3, "target_line": 0}
    assert stats["instructions"] == {"easier": 3} and stats["accepted"] == 3
    attempts = repo.attempts.listing(run_id, AttemptFilter(teacher="mutation"))
    assert len(attempts) == 3 and all(a.parent_id is None for a in attempts)
    assert all("target-derived parent" in " ".join((a.code or "").split()) for a in attempts)
    children = [level for level in repo.list_levels(run_id) if level.teacher == "mutation"]
    assert len(children) == 3
    for child in children:
        assert child.reasoning is not None and child.reasoning.startswith(TARGET_PARENT_LABEL)
        assert "perfect_maze" in child.code and "start_near_goal" in child.code

    with ServerThread(create_app(url)) as server, httpx.Client(base_url=server.url) as api:
        page = api.get("/api/runs/aimed/attempts", params={"teacher": "mutation"})
        assert page.status_code == 200 and page.json()["total"] == 3
        assert all(item["parent_id"] is None for item in page.json()["items"])
        detail = api.get(f"/api/attempts/{attempts[0].id}")
        assert detail.status_code == 200 and "start_near_goal" in detail.json()["code"]
        level = api.get(f"/api/levels/{children[0].id}")
        assert level.status_code == 200
    repo.close()


def test_a_dr_run_aims_at_its_own_mazes(tmp_path: Path, maze_validator: Validator) -> None:
    repo = ArchiveRepository.open(f"sqlite:///{tmp_path}/archive.sqlite")
    run_id = maze_run(repo, "dr")
    generator = Generator(
        repo, run_id, AIMED, TINY.archive, domain="maze", seed=2, validator=maze_validator
    )
    generator.seed_archive()
    request, _ = generator.next_request(1)
    assert "level.random_walls(25)" in request.parent.code
    assert "perfect_maze" not in request.parent.code
    repo.close()


EVALUATION = {
    "iteration": 4,
    "mean_lines": 6.0,
    "skills": {
        "survive_250": 0.2,
        "survive_500": 0.0,
        "survive_1000": 0.0,
        "clear_double": 0.1,
        "clear_triple": 0.0,
        "clear_tetris": 0.0,
    },
    "start_states": [["...#......", "#.##.###.#"], ["..##..#...", "####.####."]],
}


def test_tetris_aims_at_its_own_boards_and_the_archive_climbs_the_ladder(
    tmp_path: Path, validator: Validator
) -> None:
    repo = ArchiveRepository.open(f"sqlite:///{tmp_path}/archive.sqlite")
    run_id = new_run(repo, "ladder")
    half = replace(TINY.generator, target_aim=0.5, skill_share=0.0)
    generator = Generator(repo, run_id, half, TINY.archive, seed=3, validator=validator)
    generator.seed_archive()
    # No target evaluation yet: no boards to aim from, so every parent is an archive level,
    # and none is measured: the ladder varies it (the status letter D would say easier).
    drawn = [generator.next_request(n) for n in range(1, 9)]
    assert all(parent_id is not None for _, parent_id in drawn)
    assert {r.instruction for r, _ in drawn} == {MutationInstruction.VARY}

    for level in repo.list_levels(run_id):
        repo.evaluations.record(level.id, student_iteration=1, episodes=10, successes=9)
    repo.events.add(TARGET_EVENT, EVALUATION, run_id=run_id)
    drawn = [generator.next_request(n) for n in range(9, 41)]
    archive = [r for r, parent_id in drawn if parent_id is not None]
    aimed = [r for r, parent_id in drawn if parent_id is None]
    assert archive and {r.instruction for r in archive} == {MutationInstruction.HARDER}
    assert aimed and {r.instruction for r in aimed} == {MutationInstruction.EASIER}
    for request in aimed[:2]:
        assert request.parent.description.startswith(TARGET_PARENT_LABEL)
        verdict = validator.validate(request.parent.code, seed=0)  # the world's own writing
        assert verdict.accepted, verdict.error
    repo.close()


def _measure(repo: ArchiveRepository, level_id: int, successes: int) -> None:
    repo.evaluations.record(level_id, student_iteration=1, episodes=10, successes=successes)


def test_aimed_attempts_walk_the_target_line_from_its_newest_measured_rung(
    tmp_path: Path, maze_validator: Validator
) -> None:
    repo = ArchiveRepository.open(f"sqlite:///{tmp_path}/archive.sqlite")
    run_id = maze_run(repo, "long_paths")
    generator = Generator(
        repo, run_id, AIMED, TINY.archive, domain="maze", seed=4, validator=maze_validator
    )
    generator.seed_archive()
    for seed_level in repo.list_levels(run_id):  # measured, but no seed level is on a line
        _measure(repo, seed_level.id, 5)
    generator.generate(2)  # two roots: children of target-derived parents, not yet measured
    roots = [level.id for level in repo.list_levels(run_id) if level.teacher == "mutation"]
    request, parent_id = generator.next_request(3)
    assert parent_id is None and request.instruction is MutationInstruction.EASIER

    # The older root mastered: it is the line's only measured rung, and it is stepped harder.
    _measure(repo, roots[0], 9)
    request, parent_id = generator.next_request(4)
    assert parent_id == roots[0] and request.instruction is MutationInstruction.HARDER
    assert request.parent.level_id == str(roots[0])
    generator.generate(1)
    rung = max(level.id for level in repo.list_levels(run_id))
    assert repo.lineage.parents(rung) == [roots[0]]
    assert generator.stats.as_dict()["parents"]["target_line"] == 1

    # The harder child failed: the newest measured rung now, stepped easier.
    _measure(repo, rung, 1)
    request, parent_id = generator.next_request(6)
    assert parent_id == rung and request.instruction is MutationInstruction.EASIER
    # An older rung measured later does not take its place; at p = 0.5 it would be varied.
    _measure(repo, roots[1], 5)
    request, parent_id = generator.next_request(7)
    assert parent_id == rung
    repo.close()


def test_back_pressure_stops_the_attempts_while_a_level_awaits_training(
    tmp_path: Path, maze_validator: Validator
) -> None:
    repo = ArchiveRepository.open(f"sqlite:///{tmp_path}/archive.sqlite")
    run_id = maze_run(repo, "long_paths")
    settings = replace(AIMED, max_untrained=1)
    generator = Generator(
        repo, run_id, settings, TINY.archive, domain="maze", seed=5, validator=maze_validator
    )
    generator.seed_archive()
    generator.generate(3, hold_back=True)
    assert generator.stats.started == 0  # the seed levels await training
    repo.mark_sampled([level.id for level in repo.list_levels(run_id)], step=1)
    generator.generate(3, hold_back=True)
    assert generator.stats.started == 1 and len(repo.list_levels(run_id, sampled=False)) == 1
    generator.generate(3)  # without it every attempt runs
    assert generator.stats.started == 4
    repo.close()
