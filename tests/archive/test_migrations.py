"""Alembic migrations: from an empty database to head, matching the models exactly."""

from __future__ import annotations

from dataclasses import replace

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, inspect

from archive_db import ArchiveRepository, create_archive_engine, upgrade_to_head
from archive_db.migrate import alembic_config
from archive_db.models import Base
from archive_db.records import LevelFilter, NewAttempt, NewLevel


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
