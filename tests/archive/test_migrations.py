"""Alembic migrations: from an empty database to head, matching the models exactly."""

from __future__ import annotations

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, inspect

from archive_db import ArchiveRepository, create_archive_engine, upgrade_to_head
from archive_db.migrate import alembic_config
from archive_db.models import Base
from archive_db.records import NewAttempt, NewLevel


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


def test_listing_indexes_come_to_an_archive_with_data(archive_url: str) -> None:
    """0001 → 0002 on a filled archive: the (run, …, id) indexes replace the plain run ones,
    nothing stored changes, and the downgrade puts the old indexes back."""
    config = alembic_config(archive_url)
    command.upgrade(config, "0001")
    repo = ArchiveRepository.open(archive_url, migrate=False)
    run = repo.create_run("old", domain="tetris", seed=0).id
    for tag in "abc":
        level = NewLevel(domain="tetris", content_hash=tag, teacher=tag)
        attempt = NewAttempt(teacher=tag, stage_reached="x", verdict="accepted")
        repo.record_attempt(run, attempt, level)
    before = repo.list_levels(run)
    upgrade_to_head(archive_url)
    listing = {"page", "status", "teacher", "sampled"}
    assert {f"ix_levels_run_{name}" for name in listing} <= _indexes(repo.engine, "levels")
    assert "ix_levels_run_id" not in _indexes(repo.engine, "levels")
    assert "ix_generation_attempts_run_page" in _indexes(repo.engine, "generation_attempts")
    assert repo.list_levels(run) == before
    assert repo.page_levels(run, teacher="b", limit=5).items == (before[1],)
    command.downgrade(config, "0001")
    assert "ix_levels_run_id" in _indexes(repo.engine, "levels")
    assert not {f"ix_levels_run_{name}" for name in listing} & _indexes(repo.engine, "levels")
    assert "ix_generation_attempts_run_id" in _indexes(repo.engine, "generation_attempts")
    repo.close()
