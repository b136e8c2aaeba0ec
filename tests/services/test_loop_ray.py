"""The loop with real Ray actors and a real archive: SQLite and PostgreSQL; student resume.

One local Ray instance serves the whole module (its start-up costs tens of seconds).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import ray

from archive_db import ArchiveRepository
from services.generator.actor import GeneratorActor
from services.ray_env import start_local_ray
from services.student.actors import EvaluatorActor, StudentActor
from services.student.sessions import SESSION_EVENT
from services.student.target import TARGET_EVENT
from tests.services.conftest import TINY, new_run, wait_for

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    start_local_ray(num_cpus=2, dashboard=False)
    yield
    ray.shutdown()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def archive_url(request: pytest.FixtureRequest) -> str:
    return str(request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url"))


def test_generator_and_student_fill_the_archive(
    local_ray: None, archive_url: str, tmp_path: Path
) -> None:
    repo = ArchiveRepository.open(archive_url)
    run_id = new_run(repo)
    config = TINY.to_dict()
    generator = GeneratorActor.remote(archive_url, run_id, config)
    student = StudentActor.remote(archive_url, run_id, str(tmp_path), config, True)
    evaluator = EvaluatorActor.remote(archive_url, run_id, config)
    generated = generator.run.remote(6)
    trained = student.run.remote()
    evaluated = evaluator.run.remote()
    try:
        gen_stats = ray.get(generated, timeout=400)
        assert gen_stats["started"] == 6
        # Every generated level is new: the student must train on and evaluate them.
        children = [lvl.id for lvl in repo.list_levels(run_id) if lvl.teacher == "mutation"]
        wait_for(
            lambda: all(repo.levels.get(i).times_sampled for i in children),
            300,
            "the student to train on the generated levels",
        )
    finally:
        student.stop.remote()
        ray.get(trained, timeout=300)
        evaluator.stop.remote()
        ray.get(evaluated, timeout=300)
    stats = repo.statistics.counts(run_id)
    attempts = repo.attempts.listing(run_id)
    assert len(attempts) == 11 + 6  # the seed levels, then six generation attempts
    assert stats.accepted + stats.rejected == len(attempts)
    assert stats.edges == len(children) >= 1
    for child in children:
        assert repo.lineage.parents(child), f"level {child} has no parent"
    evaluations = [e for lvl in repo.list_levels(run_id) for e in repo.evaluations.history(lvl.id)]
    assert any(e.episodes > 0 for e in evaluations)
    for child in children:
        assert repo.evaluations.history(child), f"generated level {child} was never evaluated"
    assert {lvl.status for lvl in repo.list_levels(run_id)} <= set("ABCD")
    checkpoint = repo.checkpoints.latest(run_id)
    assert checkpoint is not None and Path(checkpoint.path).is_file()
    target = repo.events.listing(run_id=run_id, kind=TARGET_EVENT)
    assert target and target[-1].payload["iteration"] == checkpoint.iteration
    repo.close()


def _process_alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited; only its parent's wait is missing


def _is_dead(actor: object) -> bool:
    try:
        ray.get(actor.status.remote(), timeout=30)  # type: ignore[attr-defined]
    except ray.exceptions.RayActorError:
        return True
    except ray.exceptions.GetTimeoutError:
        pass
    return False


def test_killed_student_resumes_from_its_checkpoint(
    local_ray: None, sqlite_url: str, tmp_path: Path
) -> None:
    repo = ArchiveRepository.open(sqlite_url)
    run_id = new_run(repo)
    config = TINY.to_dict()
    first = StudentActor.remote(sqlite_url, run_id, str(tmp_path), config, True)
    first.run.remote()
    wait_for(lambda: len(repo.checkpoints.all(run_id)) >= 2, 300, "two checkpoints")
    pid = ray.get(first.status.remote(), timeout=60)["pid"]
    ray.kill(first, no_restart=True)  # no clean stop: as if the process died
    # kill() is asynchronous: the actor may still save a checkpoint until its process is gone.
    wait_for(lambda: _is_dead(first), 120, "the killed student to be gone")
    wait_for(lambda: not _process_alive(pid), 120, "the killed student's process to end")
    saved = repo.checkpoints.latest(run_id)
    assert saved is not None
    sessions_before = len(repo.events.listing(run_id=run_id, kind=SESSION_EVENT))

    second = StudentActor.remote(sqlite_url, run_id, str(tmp_path), config, True)
    status = ray.get(second.status.remote(), timeout=300)
    assert status["resumed_from"] == saved.iteration
    per_session = TINY.student.iterations_per_session
    final = ray.get(second.run.remote(saved.iteration + per_session), timeout=300)
    assert final["iteration"] == saved.iteration + per_session
    sessions = repo.events.listing(run_id=run_id, kind=SESSION_EVENT)
    resumed = sessions[sessions_before:]
    assert resumed, "the resumed student ran no session"
    assert resumed[0].payload["iteration"] == saved.iteration + per_session
    assert resumed[0].payload["session"] == saved.meta["session"] + 1
    repo.close()
