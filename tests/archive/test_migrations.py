"""Alembic migrations: from an empty database to head, matching the models exactly."""

from __future__ import annotations

from dataclasses import replace

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, inspect, text

from archive_db import ArchiveRepository, create_archive_engine, upgrade_to_head
from archive_db.migrate import alembic_config
from archive_db.models import Base
from archive_db.records import LevelFilter, NewAttempt, NewLevel
from dicode.archive.transfer import Credit


def test_migrating_an_empty_database_gives_exactly_the_models(archive_url: str) -> None:
    engine = create_archive_engine(archive_url)
    with engine.connect() as conn:
        assert inspect(conn).get_table_names() == []
    upgrade_to_head(archive_url)
    upgrade_to_head(archive_url)  # a second start-up is a no-op
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    with engine.connect() as conn:
        assert MigrationContext.configure(conn).get_current_revision() == head
        assert set(inspect(conn).get_table_names()) == set(Base.metadata.tables) | {
            "alembic_version"
        }
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
    engine.dispose()


def test_downgrade_to_empty_and_back(archive_url: str) -> None:
    upgrade_to_head(archive_url)
    config = alembic_config(archive_url)
    command.downgrade(config, "base")
    engine = create_archive_engine(archive_url)
    with engine.connect() as conn:
        assert set(inspect(conn).get_table_names()) <= {"alembic_version"}
    upgrade_to_head(archive_url)
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
    engine.dispose()


def _indexes(engine: Engine, table: str) -> set[str]:
    with engine.connect() as conn:
        return {str(ix["name"]) for ix in inspect(conn).get_indexes(table)}


def test_a_filled_archive_goes_down_to_0001_and_back_to_head(archive_url: str) -> None:
    """Upgrades keep every stored level: 0002's (run, …, id) listing indexes replace the plain
    run ones, 0003's skill column comes empty; downgrades put the old indexes back."""
    repo = ArchiveRepository.open(archive_url)
    run = repo.runs.create("old", domain="tetris", seed=0).id
    for tag in "abc":
        level = NewLevel(domain="tetris", content_hash=tag, teacher=tag, skill=f"skill_{tag}")
        attempt = NewAttempt(teacher=tag, stage_reached="x", verdict="accepted")
        repo.attempts.record(run, attempt, level)
    assert [level.skill for level in repo.list_levels(run)] == ["skill_a", "skill_b", "skill_c"]
    before = [replace(level, skill=None) for level in repo.list_levels(run)]
    config = alembic_config(archive_url)
    command.downgrade(config, "0001")
    listing = {"page", "status", "teacher", "sampled"}
    assert "ix_levels_run_id" in _indexes(repo.engine, "levels")
    assert not {f"ix_levels_run_{name}" for name in listing | {"skill"}} & _indexes(
        repo.engine, "levels"
    )
    assert "ix_generation_attempts_run_id" in _indexes(repo.engine, "generation_attempts")

    upgrade_to_head(archive_url)
    assert {f"ix_levels_run_{name}" for name in listing | {"skill"}} <= _indexes(
        repo.engine, "levels"
    )
    assert "ix_levels_run_id" not in _indexes(repo.engine, "levels")
    assert "ix_generation_attempts_run_page" in _indexes(repo.engine, "generation_attempts")
    assert repo.list_levels(run) == before
    assert repo.levels.page(run, LevelFilter(teacher="b"), limit=5).items == (before[1],)
    repo.close()


def test_0004_adds_the_credited_target_change_and_keeps_every_evaluation(
    archive_url: str,
) -> None:
    """Down to 0003 the column goes and the evaluations stay; back at head they come with no
    credited change, so a run stored before 0004 has no transfer to rebuild."""
    repo = ArchiveRepository.open(archive_url)
    run = repo.runs.create("old", domain="tetris", seed=0).id
    level = repo.levels.insert(run, NewLevel(domain="tetris", content_hash="a", teacher="t")).id
    for iteration, change in [(1, 2.0), (2, -1.0)]:
        repo.record_evaluation(
            level, student_iteration=iteration, episodes=4, successes=1, target_change=change
        )
    assert repo.transfer_credits(run) == {level: Credit(1.0, 5.0, 2)}
    command.downgrade(alembic_config(archive_url), "0003")
    with repo.engine.connect() as conn:
        columns = {str(c["name"]) for c in inspect(conn).get_columns("evaluations")}
        assert conn.execute(text("SELECT count(*) FROM evaluations")).scalar_one() == 2
    assert "target_change" not in columns and "mean_return" in columns

    upgrade_to_head(archive_url)
    history = repo.evaluations.history(level)
    assert [(e.student_iteration, e.target_change) for e in history] == [(1, None), (2, None)]
    assert repo.transfer_credits(run) == {}
    repo.close()
