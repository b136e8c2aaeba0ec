"""The repository on SQLite and PostgreSQL: what services write comes back intact."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import event

from archive_db import ArchiveRepository, InvalidRecordError, NotFoundError
from archive_db.records import AttemptFilter, NewAttempt, NewLevel, content_hash
from dicode.archive.transfer import Credit


@pytest.fixture
def repo(archive_url: str) -> Iterator[ArchiveRepository]:
    repository = ArchiveRepository.open(archive_url)
    yield repository
    repository.close()


def level(tag: str, *parents: int, teacher: str = "mutation") -> NewLevel:
    return NewLevel(
        domain="tetris",
        content_hash=content_hash(tag),
        teacher=teacher,
        code=f"# level {tag}",
        description=f"level {tag}",
        bundle=tag.encode() * 3,
        bundle_format="npz",
        parent_ids=parents,
    )


def test_runs_are_created_once_and_found_by_name_or_id(repo: ArchiveRepository) -> None:
    run = repo.runs.create("alpha", domain="tetris", seed=7, config={"lr": 0.001})
    assert repo.runs.get("alpha") == repo.runs.get(run.id) == run
    assert run.config == {"lr": 0.001} and run.seed == 7 and run.created_at.tzinfo is not None
    with pytest.raises(InvalidRecordError, match="already exists"):
        repo.runs.create("alpha", domain="tetris", seed=1)
    assert repo.runs.open("alpha", domain="tetris", seed=99).id == run.id
    repo.runs.set_status(run.id, "running")
    assert repo.runs.get("alpha").status == "running"
    assert [r.name for r in repo.runs.all()] == ["alpha"]
    with pytest.raises(NotFoundError):
        repo.runs.get("nope")


def test_levels_are_idempotent_by_content_hash(repo: ArchiveRepository) -> None:
    run = repo.runs.create("r", domain="tetris", seed=0)
    root = repo.levels.insert(run.id, level("root"))
    child = repo.levels.insert(run.id, level("child", root.id))
    again = repo.levels.insert(run.id, level("child", root.id))
    assert root.created and child.created
    assert again.id == child.id and not again.created
    assert repo.lineage.children(root.id) == [child.id]
    assert repo.lineage.parents(child.id) == [root.id]
    stored = repo.levels.get(child.id)
    assert (stored.code, stored.description, stored.bundle_format) == (
        "# level child",
        "level child",
        "npz",
    )
    assert repo.get_bundle(child.id) == b"childchildchild"
    assert (stored.status, stored.score, stored.active) == ("D", 0.0, False)
    # The same content in another run is another level.
    other = repo.runs.create("r2", domain="tetris", seed=0)
    assert repo.levels.insert(other.id, level("root")).created


def test_bad_levels_and_edges_are_refused_with_a_reason(repo: ArchiveRepository) -> None:
    run = repo.runs.create("r", domain="tetris", seed=0)
    a = repo.levels.insert(run.id, level("a")).id
    with pytest.raises(InvalidRecordError, match="not in run"):
        repo.levels.insert(run.id, level("b", 12345))
    with pytest.raises(InvalidRecordError, match="own parent"):
        repo.lineage.add_edge(a, a)
    with pytest.raises(NotFoundError):
        repo.levels.insert(999, level("c"))
    with pytest.raises(InvalidRecordError, match="content_hash"):
        repo.levels.insert(run.id, NewLevel(domain="tetris", content_hash="", teacher="t"))
    # Nothing half-written.
    assert repo.statistics.counts(run.id).levels == 1


def test_every_attempt_is_retrievable_with_its_error(repo: ArchiveRepository) -> None:
    run = repo.runs.create("r", domain="tetris", seed=0)
    parent = repo.levels.insert(run.id, level("p")).id
    rejected = repo.attempts.record(
        run.id,
        NewAttempt(
            teacher="qwen",
            stage_reached="sandbox",
            verdict="rejected",
            parent_id=parent,
            prompts=[{"role": "user", "content": "make it harder"}],
            responses=["<code>def build(: pass</code>"],
            code="def build(: pass",
            failing_stage="sandbox",
            error="SyntaxError: invalid syntax (line 1)",
            latency_s=1.5,
            tokens_in=120,
            tokens_out=30,
        ),
    )
    accepted = repo.attempts.record(
        run.id,
        NewAttempt(teacher="qwen", stage_reached="done", verdict="accepted", parent_id=parent),
        level("new", parent),
    )
    assert rejected.level is None and accepted.level is not None and accepted.level.created
    failures = repo.attempts.listing(run.id, AttemptFilter(verdict="rejected"))
    assert [a.id for a in failures] == [rejected.attempt_id]
    failure = failures[0]
    assert failure.error == "SyntaxError: invalid syntax (line 1)"
    assert failure.failing_stage == "sandbox" and failure.code == "def build(: pass"
    assert failure.prompts == [{"role": "user", "content": "make it harder"}]
    assert failure.responses == ["<code>def build(: pass</code>"]
    assert (failure.latency_s, failure.tokens_in, failure.tokens_out) == (1.5, 120, 30)
    ok = repo.attempts.get(accepted.attempt_id)
    assert ok.level_id == accepted.level.id and repo.lineage.parents(ok.level_id) == [parent]
    assert len(repo.attempts.listing(run.id, AttemptFilter(parent_id=parent))) == 2
    assert repo.attempts.listing(run.id, AttemptFilter(failing_stage="description")) == []
    stats = repo.statistics.counts(run.id)
    assert (stats.accepted, stats.rejected, stats.levels, stats.edges) == (1, 1, 2, 1)


def test_inconsistent_attempts_are_refused(repo: ArchiveRepository) -> None:
    run = repo.runs.create("r", domain="tetris", seed=0)
    with pytest.raises(InvalidRecordError, match="must come with its level"):
        repo.attempts.record(
            run.id, NewAttempt(teacher="t", stage_reached="done", verdict="accepted")
        )
    with pytest.raises(InvalidRecordError, match="failing_stage and error"):
        repo.attempts.record(
            run.id, NewAttempt(teacher="t", stage_reached="code", verdict="rejected")
        )
    with pytest.raises(InvalidRecordError, match="verdict"):
        repo.attempts.record(run.id, NewAttempt(teacher="t", stage_reached="x", verdict="maybe"))
    assert repo.attempts.listing(run.id) == []


def test_evaluations_update_status_score_and_history(repo: ArchiveRepository) -> None:
    run = repo.runs.create("r", domain="tetris", seed=0)
    lid = repo.levels.insert(run.id, level("x")).id
    repo.record_evaluation(
        lid, student_iteration=2, episodes=10, successes=8, mean_return=3.5, per_goal={"lines": 0.8}
    )
    stored = repo.levels.get(lid)
    assert (stored.status, stored.success_rate) == ("A", 0.8)
    assert stored.score == pytest.approx(0.8 * 0.2)
    repo.record_evaluation(lid, student_iteration=1, episodes=4, successes=1)
    repo.record_evaluation(lid, student_iteration=3, episodes=0, successes=0)
    stored = repo.levels.get(lid)
    assert (stored.status, stored.success_rate, stored.score) == ("D", None, 0.0)
    history = repo.evaluations.history(lid)
    assert [h.student_iteration for h in history] == [1, 2, 3]
    assert [h.success_rate for h in history] == [0.25, 0.8, None]
    assert history[1].per_goal == {"lines": 0.8} and history[1].mean_return == 3.5
    with pytest.raises(InvalidRecordError, match="successes"):
        repo.record_evaluation(lid, student_iteration=4, episodes=3, successes=5)


def test_a_status_says_mastered_only_after_min_sessions(repo: ArchiveRepository) -> None:
    run = repo.runs.create("r", domain="tetris", seed=0)
    lid = repo.levels.insert(run.id, level("x")).id
    record = {"episodes": 10, "successes": 10, "min_sessions": 2}
    repo.record_evaluation(lid, student_iteration=1, **record)
    assert repo.levels.get(lid).status == "B"  # one session: not judged yet
    repo.record_evaluation(lid, student_iteration=2, episodes=0, successes=0, min_sessions=2)
    assert repo.levels.get(lid).status == "D"  # no data (and it measures nothing)
    repo.record_evaluation(lid, student_iteration=3, **record)
    assert repo.levels.get(lid).status == "A"  # the second session with finished episodes


def test_an_evaluation_sets_the_score_it_is_given(repo: ArchiveRepository) -> None:
    """The student's priority (transfer) replaces learnability as the level's score, which the
    active set ranks by; without one the score stays p(1−p)."""
    run = repo.runs.create("r", domain="tetris", seed=0)
    lid = repo.levels.insert(run.id, level("x")).id
    repo.active.force(lid, True)
    repo.record_evaluation(lid, student_iteration=1, episodes=4, successes=2, score=0.7)
    assert repo.levels.get(lid).score == 0.7
    assert repo.active_set(run.id).scores == (0.7,)
    repo.record_evaluation(lid, student_iteration=2, episodes=4, successes=2)
    assert repo.active_set(run.id).scores == (0.25,)
    for bad in ({"score": float("nan")}, {"target_change": float("inf")}):
        with pytest.raises(InvalidRecordError, match="must be a finite number"):
            repo.record_evaluation(lid, student_iteration=3, episodes=4, successes=2, **bad)
    assert len(repo.evaluations.history(lid)) == 2  # a refused evaluation stores nothing


def test_credited_target_changes_are_summed_per_level_in_one_query(
    repo: ArchiveRepository,
) -> None:
    run = repo.runs.create("r", domain="tetris", seed=0)
    other = repo.runs.create("other", domain="tetris", seed=0)
    a, b, c = (repo.levels.insert(run.id, level(t)).id for t in "abc")
    elsewhere = repo.levels.insert(other.id, level("d")).id
    measured = {"episodes": 4, "successes": 1}
    for lid, iteration, change in [
        (a, 1, 4.0), (b, 1, 4.0), (a, 2, -2.5), (b, 2, None), (c, 3, None), (elsewhere, 1, 7.0)
    ]:  # fmt: skip
        repo.record_evaluation(lid, student_iteration=iteration, target_change=change, **measured)
    assert [e.target_change for e in repo.evaluations.history(b)] == [4.0, None]

    selects: list[str] = []

    def count(_conn: object, _cursor: object, statement: str, *_: object) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            selects.append(statement)

    event.listen(repo.engine, "before_cursor_execute", count)
    try:
        credits = repo.transfer_credits(run.id)
    finally:
        event.remove(repo.engine, "before_cursor_execute", count)
    assert credits == {a: Credit(1.5, 16.0 + 6.25, 2), b: Credit(4.0, 16.0, 1)}
    assert len(selects) == 1
    assert repo.transfer_credits(other.id) == {elsewhere: Credit(7.0, 49.0, 1)}


def test_sampling_marks_scores_checkpoints_and_events(repo: ArchiveRepository) -> None:
    run = repo.runs.create("r", domain="tetris", seed=0)
    a = repo.levels.insert(run.id, level("a")).id
    b = repo.levels.insert(run.id, level("b")).id
    repo.mark_sampled([a, b], step=4)
    repo.mark_sampled([a], step=5)
    assert (repo.levels.get(a).last_sampled, repo.levels.get(a).times_sampled) == (5, 2)
    assert (repo.levels.get(b).last_sampled, repo.levels.get(b).times_sampled) == (4, 1)
    fresh = repo.levels.insert(run.id, level("fresh")).id
    assert [lv.id for lv in repo.list_levels(run.id, sampled=False)] == [fresh]
    assert [lv.id for lv in repo.list_levels(run.id, sampled=True)] == [a, b]
    repo.levels.update(b, score=0.2, status="B", success_rate=0.6)
    assert (repo.levels.get(b).status, repo.levels.get(b).score) == ("B", 0.2)
    with pytest.raises(InvalidRecordError):
        repo.levels.update(b, status="E")
    repo.checkpoints.add(run.id, "/ckpt/10", 10, {"loss": 1.0})
    repo.checkpoints.add(run.id, "/ckpt/20", 20)
    latest = repo.checkpoints.latest(run.id)
    assert latest is not None and (latest.path, latest.iteration) == ("/ckpt/20", 20)
    assert [c.iteration for c in repo.checkpoints.all(run.id)] == [10, 20]
    first = repo.events.add("student.started", {"pid": 1}, run_id=run.id)
    repo.events.add("generator.round", {"n": 10}, run_id=run.id)
    assert [e.kind for e in repo.events.listing(run_id=run.id, after_id=first.id)] == [
        "generator.round"
    ]
    assert repo.events.listing(kind="student.started")[0].payload == {"pid": 1}


def test_active_set_compare_and_swap(repo: ArchiveRepository) -> None:
    run = repo.runs.create("r", domain="tetris", seed=0)
    a, b, c = (repo.levels.insert(run.id, level(t)).id for t in "abc")
    snapshot = repo.active_set(run.id)
    assert snapshot.level_ids == ()
    assert repo.compare_and_swap_active(run.id, snapshot.version, admit=a, evict=None)
    # A writer holding the old version loses and changes nothing.
    assert not repo.compare_and_swap_active(run.id, snapshot.version, admit=b, evict=None)
    current = repo.active_set(run.id)
    assert current.level_ids == (a,) and current.version == snapshot.version + 1
    # Evicting a level that is not active fails as a whole (c stays out).
    assert not repo.compare_and_swap_active(run.id, current.version, admit=c, evict=b)
    assert repo.active_set(run.id).level_ids == (a,)
    assert repo.compare_and_swap_active(run.id, current.version, admit=c, evict=a)
    assert repo.active_set(run.id).level_ids == (c,)
    repo.active.force(b, True)
    assert repo.active_set(run.id).level_ids == (b, c)
    assert repo.statistics.counts(run.id).active == 2


def test_change_feed_delivers_only_what_changed(repo: ArchiveRepository) -> None:
    run = repo.runs.create("r", domain="tetris", seed=0)
    a = repo.levels.insert(run.id, level("a")).id
    snapshot = repo.feed.snapshot(run.id)
    assert [n.id for n in snapshot.levels] == [a] and snapshot.edges == ()
    b = repo.levels.insert(run.id, level("b", a)).id
    repo.record_evaluation(a, student_iteration=1, episodes=2, successes=1)
    changes = repo.changes_since(run.id, snapshot.cursor)
    assert {n.id for n in changes.levels} == {a, b}
    assert [(e.parent, e.child) for e in changes.edges] == [(a, b)]
    assert next(n for n in changes.levels if n.id == a).status == "B"
    quiet = repo.changes_since(run.id, changes.cursor)
    assert quiet.levels == () and quiet.edges == () and quiet.cursor == changes.cursor


def test_an_in_memory_archive_works_for_quick_experiments() -> None:
    repo = ArchiveRepository.open("sqlite://")
    run = repo.runs.create("scratch", domain="tetris", seed=0)
    repo.levels.insert(run.id, level("a"))
    assert repo.statistics.counts().levels == 1
    repo.close()
