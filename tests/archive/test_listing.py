"""Listings filtered and paged in SQL, the lineage neighbourhood walk, and the one row →
record mechanism, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import fields

import networkx as nx
import pytest
from sqlalchemy import inspect

from archive_db import ArchiveRepository, NotFoundError
from archive_db.convert import field_names, record_from
from archive_db.models import (
    Checkpoint,
    Evaluation,
    Event,
    GenerationAttempt,
    Level,
    Run,
)
from archive_db.records import (
    AttemptFilter,
    AttemptInfo,
    CheckpointInfo,
    EvaluationInfo,
    EventInfo,
    LevelFilter,
    LevelInfo,
    NewAttempt,
    NewLevel,
    RunInfo,
    content_hash,
)
from dicode.archive.records import LevelNode

TEACHERS = ("seed", "mutation", "llm")


@pytest.fixture
def repo(archive_url: str) -> Iterator[ArchiveRepository]:
    repository = ArchiveRepository.open(archive_url)
    yield repository
    repository.close()


def fill(repo: ArchiveRepository, n: int = 40) -> tuple[int, list[int]]:
    """A run of ``n`` levels (teachers, letters and sampling marks in a known pattern), each
    with its accepted attempt, plus a rejected attempt per fifth level; and noise in another
    run that no listing of the first may show."""
    run = repo.runs.create("listed", domain="tetris", seed=0).id
    other = repo.runs.create("other", domain="tetris", seed=0).id
    ids = []
    for i in range(n):
        teacher = TEACHERS[i % 3]
        level = NewLevel(
            domain="tetris", content_hash=content_hash("l", str(i)), teacher=teacher, code=str(i)
        )
        recorded = repo.attempts.record(
            run, NewAttempt(teacher=teacher, stage_reached="done", verdict="accepted"), level
        )
        assert recorded.level is not None
        ids.append(recorded.level.id)
        if i % 5 == 0:
            repo.attempts.record(
                run,
                NewAttempt(
                    teacher=teacher,
                    stage_reached="sandbox",
                    verdict="rejected",
                    parent_id=ids[0],
                    failing_stage="sandbox" if i % 10 else "syntax",
                    error=f"error {i}",
                ),
            )
        repo.levels.insert(other, NewLevel(domain="tetris", content_hash=str(i), teacher=teacher))
    for i, level_id in enumerate(ids):
        repo.levels.update(level_id, status="ABCD"[i % 4])
    repo.mark_sampled(ids[::2], step=1)
    return run, ids


def test_level_pages_are_the_listing_cut_in_order(repo: ArchiveRepository) -> None:
    run, ids = fill(repo)
    pages = [repo.levels.page(run, limit=7, offset=k) for k in range(0, 45, 7)]
    assert {p.total for p in pages} == {len(ids)}
    assert [lvl.id for p in pages for lvl in p.items] == ids
    assert repo.levels.page(run, limit=5, offset=10**6).items == ()
    assert [lvl.id for lvl in repo.levels.listing(run, limit=3, offset=4)] == ids[4:7]


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        ({"status": "B"}, lambda i: i % 4 == 1),
        ({"teacher": "llm"}, lambda i: i % 3 == 2),
        ({"sampled": True}, lambda i: i % 2 == 0),
        ({"sampled": False}, lambda i: i % 2 == 1),
        ({"status": "A", "teacher": "seed"}, lambda i: i % 4 == 0 and i % 3 == 0),
        ({"teacher": "nobody"}, lambda i: False),
    ],
)
def test_level_filters_run_in_the_query(
    repo: ArchiveRepository, where: dict, expected: object
) -> None:
    run, ids = fill(repo)
    wanted = [level_id for i, level_id in enumerate(ids) if expected(i)]  # type: ignore[operator]
    page = repo.levels.page(run, LevelFilter(**where), limit=5, offset=2)
    assert page.total == len(wanted)
    assert [lvl.id for lvl in page.items] == wanted[2:7]
    assert [lvl.id for lvl in repo.levels.listing(run, LevelFilter(**where))] == wanted


def test_attempt_pages_and_filters(repo: ArchiveRepository) -> None:
    run, ids = fill(repo)
    everything = repo.attempts.listing(run)
    assert len(everything) == len(ids) + len(ids) // 5
    page = repo.attempts.page(run, limit=10, offset=30)
    assert page.total == len(everything)
    assert [a.id for a in page.items] == [a.id for a in everything[30:40]]
    rejected = repo.attempts.page(run, AttemptFilter(verdict="rejected"), limit=3)
    assert rejected.total == 8 and all(a.verdict == "rejected" for a in rejected.items)
    syntax = repo.attempts.page(run, AttemptFilter(failing_stage="syntax"), limit=50)
    assert [a.error for a in syntax.items] == ["error 0", "error 10", "error 20", "error 30"]
    from_root = repo.attempts.page(
        run, AttemptFilter(parent_id=ids[0], teacher="mutation"), limit=50
    )
    assert from_root.total == 2 and {a.error for a in from_root.items} == {"error 10", "error 25"}


def test_the_neighbourhood_is_walked_in_sql(repo: ArchiveRepository) -> None:
    run = repo.runs.create("tree", domain="tetris", seed=0).id
    graph = nx.DiGraph()

    def add(tag: str, *parents: int) -> int:
        level_id = repo.levels.insert(
            run, NewLevel(domain="tetris", content_hash=tag, teacher="t", parent_ids=parents)
        ).id
        graph.add_node(level_id)
        graph.add_edges_from((p, level_id) for p in parents)
        return level_id

    root = add("root")
    a, b = add("a", root), add("b", root)
    c = add("c", a)
    d = add("d", c, b)  # two parents: a diamond below the root
    e = add("e", d)
    add("f", e)
    for level, depth in ((c, 1), (c, 2), (d, 1), (root, 3), (e, 50)):
        around = repo.lineage.neighbourhood(level, depth)
        near = {level}
        for step in (graph.predecessors, graph.successors):
            frontier = {level}
            for _ in range(depth):
                frontier = {m for n in frontier for m in step(n)} - near
                near |= frontier
        assert [n.id for n in around.levels] == sorted(near)
        assert {(x.parent, x.child) for x in around.edges} == set(graph.subgraph(near).edges)
    assert all(isinstance(n, LevelNode) for n in around.levels)
    with pytest.raises(NotFoundError):
        repo.lineage.neighbourhood(10**6, 2)


@pytest.mark.parametrize(
    ("record", "model"),
    [
        (RunInfo, Run),
        (LevelInfo, Level),
        (LevelNode, Level),
        (AttemptInfo, GenerationAttempt),
        (EvaluationInfo, Evaluation),
        (CheckpointInfo, Checkpoint),
        (EventInfo, Event),
    ],
)
def test_every_record_is_filled_from_same_named_columns(record: type, model: type) -> None:
    columns = set(inspect(model).columns.keys())
    assert set(field_names(record)) <= columns
    # LevelInfo leaves the bundle out on purpose: listings never read it.
    if record is LevelInfo:
        assert columns - set(field_names(record)) == {"bundle"}


def test_records_get_their_own_json_containers(repo: ArchiveRepository) -> None:
    run = repo.runs.create("json", domain="tetris", seed=0, config={"a": [1]})
    assert repo.runs.get(run.id) == run
    with repo.sessions.reading() as session:
        row = session.get(Run, run.id)
        copied = record_from(RunInfo, row)
        assert copied.config == row.config and copied.config is not row.config
    assert [f.name for f in fields(RunInfo)] == list(field_names(RunInfo))


def test_cached_counts_follow_every_write_of_another_process(archive_url: str) -> None:
    """Page totals and run counts are cached by the run's change-log cursor: each kind of
    write, made through another repository (as the student and generator do beside the API),
    shows in the reader's next page and counts."""
    reader, writer = ArchiveRepository.open(archive_url), ArchiveRepository.open(archive_url)
    run, ids = fill(writer, n=12)

    def seen() -> tuple[int, ...]:
        stats = reader.statistics.counts(run)
        return (
            reader.levels.page(run, limit=1).total,
            reader.levels.page(run, LevelFilter(status="A"), limit=1).total,
            reader.levels.page(run, LevelFilter(sampled=True), limit=1).total,
            reader.levels.page(run, LevelFilter(active=True), limit=1).total,
            stats.levels,
            stats.by_status["A"],
            stats.active,
            stats.edges,
        )

    def truth() -> tuple[int, ...]:
        levels = writer.list_levels(run)
        return (
            len(levels),
            sum(level.status == "A" for level in levels),
            sum(level.times_sampled > 0 for level in levels),
            sum(level.active for level in levels),
            len(levels),
            sum(level.status == "A" for level in levels),
            sum(level.active for level in levels),
            len(writer.feed.snapshot(run).edges),
        )

    writes = [
        lambda: writer.attempts.record(
            run,
            NewAttempt(teacher="mutation", stage_reached="done", verdict="accepted"),
            NewLevel(
                domain="tetris",
                content_hash=content_hash("new"),
                teacher="mutation",
                parent_ids=(ids[0],),
            ),
        ),
        lambda: writer.levels.update(ids[1], status="A"),  # B (fill) → A
        lambda: writer.mark_sampled([ids[2], ids[3]], step=7),  # ids[3] never sampled
        lambda: writer.active.force(ids[4], True),
        lambda: writer.record_evaluation(
            ids[5], student_iteration=1, episodes=4, successes=4  # B (fill) → A
        ),
    ]
    assert seen() == truth()
    for write in writes:
        before = seen()
        write()
        assert seen() == truth() != before
    reader.close()
    writer.close()
