"""A Craftax run end to end with real Ray actors, a real SQLite archive and the real sandbox:
the generator seeds and mutates levels, the Craftax student trains on them (generated ones
included) and checkpoints, the evaluator measures each checkpoint on the real game; then the
terminal view, the run summary and the API read the run without any Tetris figure.

One test (the Craftax compiles take minutes on 2 cores), bounded by generation attempts.
"""

from __future__ import annotations

import io
import time
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
import ray
from rich.console import Console

from archive_db import ArchiveRepository
from archive_db.kinds import SEED_TEACHER, SESSION_EVENT, TARGET_EVENT
from dicode.archive.config import ArchiveConfig
from dicode.settings import EvaluatorSettings, GeneratorSettings, RunSettings, StudentSettings
from dicode.student.curriculum import CurriculumConfig
from services.api.app import create_app
from services.embedded import _status, _summary, _table
from services.generator.actor import GeneratorActor
from services.ray_env import start_local_ray
from services.student.actors import EvaluatorActor, StudentActor
from tests.craftax.conftest import TINY
from tests.services.conftest import ServerThread, wait_for

# Compiles (trainer, evaluator, sandbox rollouts) take ≈ 2 min alone and far longer on a loaded
# machine; the waits below are bounded on their own, so the test's overall limit is wider.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

# The tiny Craftax student of tests/craftax with 4 slots (the target and three levels, so the seven
# seed levels are trained within three sessions and the generated ones right after).
CRAFTAX = RunSettings(
    profile="test",
    domain="craftax",
    generator=GeneratorSettings(in_flight=1, max_untrained=100, pool_size=2, rollout_steps=20),
    student=StudentSettings(
        ppo=replace(TINY, num_slots=4, envs_per_slot=2),
        curriculum=CurriculumConfig(target_fraction=0.25),
        iterations_per_session=1,
        checkpoint_every=1,
        keep_checkpoints=2,
    ),
    evaluator=EvaluatorSettings(games=2, max_steps=40, every_s=1.0),
    archive=ArchiveConfig(active_capacity=20),
)
ATTEMPTS = 3


def test_craftax_run_trains_generated_levels_and_evaluates_checkpoints(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/archive.sqlite"
    repo = ArchiveRepository.open(url)
    run_id = repo.runs.create("craftax", domain="craftax", seed=0, config=CRAFTAX.to_dict()).id
    config = CRAFTAX.to_dict()
    start_local_ray(num_cpus=2, dashboard=False)
    try:
        generator = GeneratorActor.remote(url, run_id, config)
        student = StudentActor.remote(url, run_id, str(tmp_path), config, True)
        evaluator = EvaluatorActor.remote(url, run_id, config)
        generated = generator.run.remote(ATTEMPTS)
        trained = student.run.remote()
        evaluated = evaluator.run.remote()
        try:
            assert ray.get(generated, timeout=900)["started"] == ATTEMPTS
            children = [lvl.id for lvl in repo.list_levels(run_id) if lvl.teacher != SEED_TEACHER]
            assert children, "no generated level was accepted"
            wait_for(
                lambda: all(repo.levels.get(i).times_sampled for i in children),
                600,
                "the student to train on the generated levels",
            )
            view = _status(repo, run_id, "craftax", student, generator, time.time() - 60)
        finally:
            student.stop.remote()
            ray.get(trained, timeout=600)
            evaluator.stop.remote()
            ray.get(evaluated, timeout=900)
    finally:
        ray.shutdown()

    for child in children:
        assert repo.evaluations.history(child), f"generated level {child} was never evaluated"
    sessions = repo.events.listing(run_id=run_id, kind=SESSION_EVENT)
    assert len(sessions) >= 4
    assert {"target_episodes", "target_mean_length"} <= set(sessions[-1].payload)
    checkpoint = repo.checkpoints.latest(run_id)
    assert checkpoint is not None and Path(checkpoint.path).is_file()
    assert len(list((tmp_path / "checkpoints").glob("student-*.msgpack"))) == 2  # kept
    target = repo.events.listing(run_id=run_id, kind=TARGET_EVENT)
    assert target and target[-1].payload["iteration"] == checkpoint.iteration
    last = target[-1].payload
    assert last["percent_of_max"] <= 100.0 and last["games"] == 2
    assert last["max_steps"] == 40 and 0 < last["mean_length"] <= 40

    summary = _summary(repo, run_id, "craftax")
    assert summary["levels_trained"] >= len(children) + 7
    assert summary["generated_trained"] == len(children)
    assert summary["env_steps"] == checkpoint.iteration * CRAFTAX.student.ppo.batch_size
    assert summary["target_percent_of_max"][-1][0] == checkpoint.iteration
    console = Console(file=io.StringIO(), width=120)
    console.print(_table(view))
    assert "target % of max" in console.file.getvalue()  # type: ignore[attr-defined]

    with ServerThread(create_app(url)) as server:
        api = httpx.Client(base_url=server.url, timeout=30)
        assert api.get("/api/runs/craftax").json()["domain"] == "craftax"
        metrics = api.get("/api/runs/craftax/metrics").json()
        assert metrics["target"][-1]["percent_of_max"] == last["percent_of_max"]
        detail = api.get(f"/api/levels/{children[0]}")
        assert detail.status_code == 200 and detail.json()["bundle"]["pool_size"] == 2
        assert api.get("/").status_code == 200
    repo.close()
