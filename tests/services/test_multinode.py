"""A multi-node Ray cluster on this machine: the student, the evaluator and the generator placed
on different nodes by custom resources, then the student's and the generator's nodes killed.

The cluster is real (``ray.cluster_utils.Cluster``: one GCS, one raylet per node, each with its
own worker processes); the actors are the production ones, placed the way
``python -m services.student --placement … --generators 1`` places them; the archive is
PostgreSQL (what several nodes share in production). Every assertion reads archive rows.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import ray
from ray.cluster_utils import Cluster

from archive_db import ArchiveRepository
from archive_db.kinds import SEED_TEACHER, SESSION_EVENT, TARGET_EVENT
from services.generator.actor import GeneratorActor
from services.placement import Placement, place
from services.ray_env import actor_runtime_env
from services.student.actors import EvaluatorActor, StudentActor
from tests.services.conftest import TINY, new_run, wait_for

# A Ray cluster of four nodes, two of them killed: minutes on 2 cores (`make test-slow`).
pytestmark = [pytest.mark.postgres, pytest.mark.slow]

# The roles' resources, as deploy/k8s/raycluster.yaml gives them to its worker groups.
PLACEMENT = Placement(
    student={"student": 1}, evaluator={"evaluator": 1}, generator={"generator": 1}
)
NICENESS = "RAY_worker_niceness"  # Ray's own spelling of the setting
SEEDS = 11  # the Tetris seed levels, recorded as attempts before any generated one


@dataclass
class Nodes:
    cluster: Cluster
    head: Any  # carries the evaluator; the driver is attached to it, so it is never removed
    student: Any
    generator: Any


@pytest.fixture(scope="module")
def nodes() -> Iterator[Nodes]:
    # Ray lowers its workers to nice 15 by default: on a 2-core machine shared with jobs at
    # nice 5 they would barely run. Set before the raylets start (they read it at start-up).
    with pytest.MonkeyPatch.context() as env:
        env.setenv(NICENESS, "0")
        cluster = Cluster(
            initialize_head=True,
            head_node_args={
                "num_cpus": 1,
                "resources": PLACEMENT.evaluator,
                "include_dashboard": False,
            },
        )
        student = cluster.add_node(num_cpus=1, resources=PLACEMENT.student)
        generator = cluster.add_node(num_cpus=1, resources=PLACEMENT.generator)
        ray.init(address=cluster.address, runtime_env=actor_runtime_env(), log_to_driver=False)
        try:
            yield Nodes(cluster, cluster.head_node, student, generator)
        finally:
            ray.shutdown()
            cluster.shutdown()


def _status(actor: Any, timeout: float = 120) -> dict[str, Any]:
    answer: dict[str, Any] = ray.get(actor.status.remote(), timeout=timeout)
    return answer


def _is_dead(actor: Any) -> bool:
    try:
        ray.get(actor.status.remote(), timeout=10)
    except ray.exceptions.RayActorError:
        return True
    except ray.exceptions.GetTimeoutError:
        pass
    return False


def _alive_nodes() -> set[str]:
    return {node["NodeID"] for node in ray.nodes() if node["Alive"]}


def _committed(repo: ArchiveRepository, run_id: int) -> dict[str, dict[int, Any]]:
    """Every committed row of the run that a death could lose or tear, keyed by id."""
    return {
        "attempts": {
            a.id: (a.level_id, a.verdict, a.stage_reached, a.code, a.parent_id)
            for a in repo.attempts.listing(run_id)
        },
        "levels": {lvl.id: (lvl.content_hash, lvl.code) for lvl in repo.list_levels(run_id)},
        "checkpoints": {c.id: (c.path, c.iteration) for c in repo.checkpoints.all(run_id)},
        "sessions": {
            e.id: e.payload for e in repo.events.listing(run_id=run_id, kind=SESSION_EVENT)
        },
        "targets": {
            e.id: e.payload for e in repo.events.listing(run_id=run_id, kind=TARGET_EVENT)
        },
    }


def _assert_whole(repo: ArchiveRepository, run_id: int) -> None:
    """No half-written attempt: an accepted attempt has its level, a generated level its
    attempt and its parent edge."""
    levels = {lvl.id: lvl for lvl in repo.list_levels(run_id)}
    attempts = repo.attempts.listing(run_id)
    by_level = {a.level_id for a in attempts if a.level_id is not None}
    for attempt in attempts:
        if attempt.verdict == "accepted":
            assert attempt.level_id in levels, f"attempt {attempt.id} lost its level"
    for level in levels.values():
        assert level.id in by_level, f"level {level.id} has no attempt"
        if level.teacher != SEED_TEACHER:
            assert repo.lineage.parents(level.id), f"generated level {level.id} has no parent"


def test_roles_on_their_nodes_and_node_deaths_survived(
    nodes: Nodes, pg_url: str, tmp_path: Path
) -> None:
    started = time.monotonic()
    repo = ArchiveRepository.open(pg_url)
    run_id = new_run(repo)
    config = TINY.to_dict()
    run_dir = str(tmp_path)  # one file system, as a shared volume is on a real cluster

    student = place(StudentActor, "student", PLACEMENT).remote(pg_url, run_id, run_dir, config)
    evaluator = place(EvaluatorActor, "evaluator", PLACEMENT).remote(pg_url, run_id, config)
    generator = place(GeneratorActor, "generator", PLACEMENT).remote(pg_url, run_id, config, 0)
    # Each actor reports the node it runs on: the node carrying its role's resource.
    assert _status(student)["node_id"] == nodes.student.node_id
    assert _status(evaluator)["node_id"] == nodes.head.node_id
    assert _status(generator)["node_id"] == nodes.generator.node_id
    evaluated = evaluator.run.remote()
    student.run.remote()
    generator.run.remote()

    wait_for(lambda: len(repo.checkpoints.all(run_id)) >= 2, 240, "two checkpoints")
    wait_for(lambda: len(repo.attempts.listing(run_id)) >= SEEDS + 3, 240, "three attempts")
    wait_for(
        lambda: repo.events.listing(run_id=run_id, kind=TARGET_EVENT), 120, "a target evaluation"
    )
    print(f"\nplaced and working after {time.monotonic() - started:.0f} s")

    # Kill both nodes at once, as a machine dying would: SIGKILL to every process on them.
    nodes.cluster.remove_node(nodes.student, allow_graceful=False)
    nodes.cluster.remove_node(nodes.generator, allow_graceful=False)
    died = time.monotonic()
    wait_for(lambda: _is_dead(student) and _is_dead(generator), 120, "the actors to be dead")
    # Until the cluster has marked the nodes dead (missed health checks) it may still schedule
    # on them; a supervisor asks for replacements after that, as this test does.
    gone = {nodes.student.node_id, nodes.generator.node_id}
    wait_for(lambda: not gone & _alive_nodes(), 120, "the cluster to see the nodes dead")
    print(f"nodes seen dead after {time.monotonic() - died:.0f} s")
    before = _committed(repo, run_id)
    checkpoint = repo.checkpoints.latest(run_id)
    assert checkpoint is not None and Path(checkpoint.path).is_file()
    _assert_whole(repo, run_id)
    # The evaluator's node lives: it still answers (no student, so no new checkpoint to measure).
    assert _status(evaluator, 30)["node_id"] == nodes.head.node_id

    # Replacements are asked for before any node can take them: they wait rather than land on
    # the head, which has no student or generator resource.
    student = place(StudentActor, "student", PLACEMENT).remote(pg_url, run_id, run_dir, config)
    generator = place(GeneratorActor, "generator", PLACEMENT).remote(pg_url, run_id, config, 1)
    ready, _ = ray.wait([student.status.remote(), generator.status.remote()], timeout=3)
    assert not ready, "an actor was placed although no node carries its resource"
    student_node = nodes.cluster.add_node(num_cpus=1, resources=PLACEMENT.student)
    generator_node = nodes.cluster.add_node(num_cpus=1, resources=PLACEMENT.generator)
    nodes.student, nodes.generator = student_node, generator_node  # the fixture's teardown
    resumed = _status(student, 240)
    assert resumed["node_id"] == student_node.node_id
    assert resumed["resumed_from"] == checkpoint.iteration  # the newest committed checkpoint
    assert _status(generator)["node_id"] == generator_node.node_id
    per_session = TINY.student.iterations_per_session
    trained = student.run.remote(checkpoint.iteration + 2 * per_session)
    generated = generator.run.remote(3)

    assert ray.get(generated, timeout=240)["started"] == 3
    assert ray.get(trained, timeout=240)["iteration"] == checkpoint.iteration + 2 * per_session
    evaluator.stop.remote()
    ray.get(evaluated, timeout=120)
    print(f"replaced and working again {time.monotonic() - died:.0f} s after the deaths")

    after = _committed(repo, run_id)
    for table, rows in before.items():  # nothing committed before the deaths was lost or changed
        assert {k: after[table][k] for k in rows if k in after[table]} == rows, table
        assert set(rows) <= set(after[table]), f"{table} lost rows"
    _assert_whole(repo, run_id)
    new_attempts = set(after["attempts"]) - set(before["attempts"])
    assert len(new_attempts) == 3, "the replacement generator's attempts are all stored"
    new_sessions = sorted(set(after["sessions"]) - set(before["sessions"]))
    sessions = [after["sessions"][k] for k in new_sessions]
    assert [s["iteration"] for s in sessions] == [
        checkpoint.iteration + per_session,
        checkpoint.iteration + 2 * per_session,
    ], "the student went on from its checkpoint, session by session"
    assert sessions[0]["session"] == checkpoint.meta["session"] + 1
    assert set(after["checkpoints"]) - set(before["checkpoints"]), "no checkpoint after resuming"
    newest = repo.events.listing(run_id=run_id, kind=TARGET_EVENT)[-1].payload
    assert newest["iteration"] > checkpoint.iteration, "the evaluator never saw the new student"
    repo.close()
