"""Code that runs in separate processes in the concurrency tests (importable for `spawn`)."""

from __future__ import annotations

import os
import time
from multiprocessing.synchronize import Event

from archive_db import ArchiveRepository, create_archive_engine
from archive_db.records import NewAttempt, NewLevel, content_hash
from dicode.archive.active_set import offer
from dicode.archive.config import ArchiveConfig

LEVELS_PER_WORKER = 20
SHARED_LEVELS = 8


def own_tag(worker: int, k: int) -> str:
    return f"w{worker}-k{k}"


def shared_tag(k: int) -> str:
    return f"shared-{k}"


def write_lineage(url: str, run_id: int, root_id: int, worker: int) -> None:
    """A chain of own levels (each from the previous one), shared levels every worker also
    writes (all from the root), and one rejected attempt per own level."""
    repo = ArchiveRepository(create_archive_engine(url))
    parent = root_id
    for k in range(LEVELS_PER_WORKER):
        tag = own_tag(worker, k)
        repo.attempts.record(
            run_id,
            NewAttempt(
                teacher=f"worker{worker}",
                stage_reached="sandbox",
                verdict="rejected",
                parent_id=parent,
                code="raise SystemExit",
                failing_stage="sandbox",
                error=f"error of {tag}",
            ),
        )
        result = repo.attempts.record(
            run_id,
            NewAttempt(
                teacher=f"worker{worker}",
                stage_reached="done",
                verdict="accepted",
                parent_id=parent,
            ),
            NewLevel(
                "tetris", content_hash(tag), f"worker{worker}", code=tag, parent_ids=(parent,)
            ),
        )
        assert result.level is not None
        parent = result.level.id
        if k < SHARED_LEVELS:
            repo.attempts.record(
                run_id,
                NewAttempt(
                    teacher=f"worker{worker}",
                    stage_reached="done",
                    verdict="accepted",
                    parent_id=root_id,
                ),
                NewLevel(
                    "tetris",
                    content_hash(shared_tag(k)),
                    "shared",
                    code=shared_tag(k),
                    parent_ids=(root_id,),
                ),
            )
        repo.record_evaluation(parent, student_iteration=k, episodes=4, successes=k % 5)
    repo.close()


def offer_levels(
    url: str, run_id: int, level_ids: list[int], scores: list[float], capacity: int
) -> None:
    repo = ArchiveRepository(create_archive_engine(url))
    config = ArchiveConfig(active_capacity=capacity, admission_retries=500)
    for level_id, score in zip(level_ids, scores, strict=True):
        offer(repo, run_id, level_id, score, config)
    repo.close()


def die_inside_a_transaction(url: str, run_id: int, parent_id: int, ready: Event) -> None:
    """Write a level, its edge and an attempt in one transaction, then hang until killed."""
    repo = ArchiveRepository(create_archive_engine(url))
    with repo.sessions.writing() as session:  # the repository's own transaction, held open
        repo.levels.insert_in(
            session,
            run_id,
            NewLevel("tetris", content_hash("doomed"), "crash", parent_ids=(parent_id,)),
        )
        session.flush()
        ready.set()
        time.sleep(120)
    os._exit(3)  # never reached: the test kills us first
