"""The networkx lineage view: built from a snapshot, kept current from the change feed."""

from __future__ import annotations

import random

import numpy as np

from archive_db import ArchiveRepository
from archive_db.records import NewLevel, content_hash
from dicode.archive.graph import LineageView
from tests.archive.viewcheck import assert_same_view


def test_incremental_view_equals_a_fresh_snapshot(sqlite_url: str) -> None:
    repo = ArchiveRepository.open(sqlite_url)
    run = repo.runs.create("r", domain="tetris", seed=0)
    other = repo.runs.create("other", domain="tetris", seed=0)
    rng = random.Random(0)
    live = LineageView.load(repo, run.id)
    ids: list[int] = []
    for step in range(150):
        op = rng.random()
        if op < 0.45 or not ids:
            parents = tuple(rng.sample(ids, k=min(len(ids), rng.choice([0, 1, 1, 2]))))
            tag = str(rng.randrange(120))  # repeats exercise duplicate collapse
            new = NewLevel(
                domain="tetris", content_hash=content_hash(tag), teacher="t", parent_ids=parents
            )
            inserted = repo.levels.insert(run.id, new)
            if inserted.created:
                ids.append(inserted.id)
        elif op < 0.75:
            episodes = rng.randrange(0, 9)
            repo.record_evaluation(
                rng.choice(ids),
                student_iteration=step,
                episodes=episodes,
                successes=rng.randrange(0, episodes + 1),
            )
        elif op < 0.85:
            repo.mark_sampled(rng.sample(ids, k=min(3, len(ids))), step)
        elif op < 0.95:
            repo.active.force(rng.choice(ids), rng.random() < 0.7)
        else:
            a, b = sorted(rng.sample(ids, 2)) if len(ids) > 1 else (ids[0], ids[0])
            if a != b:
                repo.lineage.add_edge(a, b)
        # Noise in another run must never leak into this view.
        repo.levels.insert(other.id, NewLevel(domain="tetris", content_hash=str(step), teacher="t"))
        if step % 7 == 0:
            live.refresh(repo, run.id)
    live.refresh(repo, run.id)
    fresh = LineageView.load(repo, run.id)
    assert_same_view(live, fresh)
    assert len(fresh) == len(ids) == repo.statistics.counts(run.id).levels
    assert fresh.graph.number_of_edges() == repo.statistics.counts(run.id).edges
    # The children counts agree with the graph itself.
    columns = fresh.columns()
    for row, level_id in enumerate(columns.ids):
        kids = list(fresh.graph.successors(int(level_id)))
        assert columns.n_children[row] == len(kids)
        good = sum(fresh.graph.nodes[k]["status"] in "ABC" for k in kids)
        assert columns.n_good_children[row] == good
    assert live.refresh(repo, run.id) == 0
    first = repo.levels.get(ids[0])
    assert live.node(ids[0]).status == first.status
    assert live.node(ids[0]).times_sampled == first.times_sampled
    repo.close()


def test_view_grows_past_its_initial_capacity() -> None:
    from tests.archive.graphs import view_of

    rates = {i: (i % 10) / 10 for i in range(3000)}
    view = view_of(rates, [(i, i + 1) for i in range(2999)])
    columns = view.columns()
    assert len(view) == 3000 and columns.ids.tolist() == list(range(3000))
    np.testing.assert_allclose(columns.success_rate, [(i % 10) / 10 for i in range(3000)])
    assert columns.n_children.sum() == 2999
