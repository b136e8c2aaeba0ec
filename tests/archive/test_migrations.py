"""Alembic migrations: from an empty database to head, matching the models exactly."""

from __future__ import annotations

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect

from archive_db import create_archive_engine, upgrade_to_head
from archive_db.migrate import alembic_config
from archive_db.models import Base


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
