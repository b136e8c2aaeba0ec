"""Several real processes writing to one archive at once, and a writer killed mid-transaction."""

from __future__ import annotations

import itertools
import multiprocessing
import os
import random
import signal
import time

from archive_db import ArchiveRepository
from archive_db.records import AttemptFilter, NewLevel, content_hash
from dicode.archive.graph import LineageView
from tests.archive import workers
from tests.archive.viewcheck import assert_same_view

WORKERS = 4
SPAWN = multiprocessing.get_context("spawn")


def _join_all(processes: list) -> None:  # type: ignore[type-arg]
    for process in processes:
        process.join(timeout=240)
        assert process.exitcode == 0, f"{process.name} exited with {process.exitcode}"


def test_concurrent_writers_lose_and_duplicate_nothing(archive_url: str) -> None:
    repo = ArchiveRepository.open(archive_url)
    run = repo.runs.create("concurrent", domain="tetris", seed=0)
    root = repo.levels.insert(run.id, NewLevel("tetris", content_hash("root"), "seed")).id
    live = LineageView.load(repo, run.id)
    processes = [
        SPAWN.Process(
            target=workers.write_lineage, args=(archive_url, run.id, root, w), name=f"writer-{w}"
        )
        for w in range(WORKERS)
    ]
    for process in processes:
        process.start()
    # Meanwhile a reader keeps an incremental view current, as the generator would.
    while any(p.is_alive() for p in processes):
        live.refresh(repo, run.id)
        time.sleep(0.05)
    _join_all(processes)
    live.refresh(repo, run.id)

    own = WORKERS * workers.LEVELS_PER_WORKER
    stats = repo.statistics.counts(run.id)
    assert stats.levels == 1 + own + workers.SHARED_LEVELS
    assert stats.edges == own + workers.SHARED_LEVELS
    assert stats.accepted == own + WORKERS * workers.SHARED_LEVELS
    assert stats.rejected == own

    by_code = {lvl.code: lvl.id for lvl in repo.list_levels(run.id)}
    expected_edges = {(root, by_code[workers.shared_tag(k)]) for k in range(workers.SHARED_LEVELS)}
    for w in range(WORKERS):
        chain = [root] + [by_code[workers.own_tag(w, k)] for k in range(workers.LEVELS_PER_WORKER)]
        expected_edges |= set(itertools.pairwise(chain))
    snapshot = repo.feed.snapshot(run.id)
    assert {(e.parent, e.child) for e in snapshot.edges} == expected_edges

    errors = {a.error for a in repo.attempts.listing(run.id, AttemptFilter(verdict="rejected"))}
    assert errors == {
        f"error of {workers.own_tag(w, k)}"
        for w in range(WORKERS)
        for k in range(workers.LEVELS_PER_WORKER)
    }
    assert_same_view(live, LineageView.load(repo, run.id))
    repo.close()


def test_concurrent_offers_keep_the_active_set_bounded_and_best(archive_url: str) -> None:
    repo = ArchiveRepository.open(archive_url)
    run = repo.runs.create("active", domain="tetris", seed=0)
    rng = random.Random(1)
    per_worker, capacity = 12, 10
    scores = rng.sample(range(1, 10_000), WORKERS * per_worker)
    ids = []
    for i, score in enumerate(scores):
        lid = repo.levels.insert(run.id, NewLevel("tetris", content_hash(str(i)), "t")).id
        repo.levels.update(lid, score=score / 40_000)
        ids.append(lid)
    processes = [
        SPAWN.Process(
            target=workers.offer_levels,
            args=(
                archive_url,
                run.id,
                ids[w::WORKERS],
                [s / 40_000 for s in scores[w::WORKERS]],
                capacity,
            ),
            name=f"offerer-{w}",
        )
        for w in range(WORKERS)
    ]
    for process in processes:
        process.start()
    _join_all(processes)
    best = sorted(range(len(ids)), key=lambda i: -scores[i])[:capacity]
    assert sorted(repo.active_set(run.id).level_ids) == sorted(ids[i] for i in best)
    repo.close()


def test_a_writer_killed_mid_transaction_leaves_the_archive_consistent(archive_url: str) -> None:
    repo = ArchiveRepository.open(archive_url)
    run = repo.runs.create("crash", domain="tetris", seed=0)
    root = repo.levels.insert(run.id, NewLevel("tetris", content_hash("root"), "seed")).id
    view = LineageView.load(repo, run.id)
    before = repo.statistics.counts(run.id)

    ready = SPAWN.Event()
    victim = SPAWN.Process(
        target=workers.die_inside_a_transaction, args=(archive_url, run.id, root, ready)
    )
    victim.start()
    assert ready.wait(timeout=120), "the writer never reached its open transaction"
    assert victim.pid is not None
    os.kill(victim.pid, signal.SIGKILL)
    victim.join(timeout=30)
    assert victim.exitcode == -signal.SIGKILL

    # Nothing of the killed transaction is visible, and the archive takes new writes,
    # including the very level the dead writer had not committed.
    assert repo.statistics.counts(run.id) == before
    assert repo.levels.find_by_hash(run.id, content_hash("doomed")) is None
    again = repo.levels.insert(
        run.id, NewLevel("tetris", content_hash("doomed"), "retry", parent_ids=(root,))
    )
    assert again.created
    view.refresh(repo, run.id)
    assert set(view.graph.edges) == {(root, again.id)}
    assert_same_view(view, LineageView.load(repo, run.id))
    repo.close()
