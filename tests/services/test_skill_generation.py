"""The skill instruction through the service: the generator reads the target's newest
evaluation, asks for frontier skills, and the archive and the API show what each level targets."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import httpx

from archive_db import ArchiveRepository
from archive_db.kinds import TARGET_EVENT
from archive_db.records import LevelFilter
from dicode.levels.pipeline import Validator
from dicode.teachers.base import MutationInstruction
from services.api.app import create_app
from services.generator.service import Generator
from tests.services.conftest import TINY, ServerThread, new_run

EVALUATION = {
    "iteration": 8,
    "mean_lines": 12.0,
    "mean_pieces": 180.0,
    "topout_share": 1.0,
    "topout_height": 12.0,
    "topout_holes": 9.0,
    "skills": {
        "survive_250": 0.3,
        "survive_500": 0.0,
        "survive_1000": 0.0,
        "clear_double": 0.05,
        "clear_triple": 0.0,
        "clear_tetris": 0.0,
    },
    "start_states": [["...#......", "#.##.###.#"]],  # the student's own mid-game boards
}


def test_skill_attempts_follow_the_targets_frontier_and_are_recorded(
    tmp_path: Path, validator: Validator
) -> None:
    url = f"sqlite:///{tmp_path}/archive.sqlite"
    repo = ArchiveRepository.open(url)
    run_id = new_run(repo, "skills")
    settings = replace(TINY.generator, skill_share=1.0, skill_choices=2)
    generator = Generator(repo, run_id, settings, TINY.archive, seed=1, validator=validator)
    generator.seed_archive()
    before, _ = generator.next_request(1)
    assert before.instruction is not MutationInstruction.SKILL  # no evaluation yet

    repo.events.add(TARGET_EVENT, EVALUATION, run_id=run_id)
    request, _ = generator.next_request(2)
    assert request.instruction is MutationInstruction.SKILL
    assert request.skill in ("survive_250", "survive_500")  # the first two of the frontier
    assert request.target_profile.skills == EVALUATION["skills"]
    assert request.target_profile.start_states == tuple(EVALUATION["start_states"])  # type: ignore[arg-type]
    assert "to learn next: survive_250, survive_500" in request.target_profile.notes

    generator.generate(4)
    skilled = [lvl for lvl in repo.list_levels(run_id) if lvl.skill is not None]
    assert len(skilled) >= 3 and {lvl.skill for lvl in skilled} <= {"survive_250", "survive_500"}
    first = skilled[0]
    assert repo.levels.listing(run_id, LevelFilter(skill=first.skill))[0].id == first.id

    with ServerThread(create_app(url)) as server, httpx.Client(base_url=server.url) as api:
        page = api.get("/api/runs/skills/levels", params={"skill": first.skill}).json()
        assert page["total"] >= 1 and all(item["skill"] == first.skill for item in page["items"])
        assert api.get(f"/api/levels/{first.id}").json()["skill"] == first.skill
    repo.close()
