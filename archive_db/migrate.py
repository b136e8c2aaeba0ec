"""Run the archive's Alembic migrations from code (every service calls this at start-up)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, func, select
from sqlalchemy.engine import URL

from archive_db.engine import create_archive_engine, writer

PACKAGE_DIR = Path(__file__).resolve().parent
# Key of the PostgreSQL advisory lock that serialises concurrent migrations.
_MIGRATION_LOCK = 0x44_69_43_6F_64_66


def alembic_config(url: str | URL | None = None) -> Config:
    """Alembic configuration pointing at the packaged migrations (and ``url`` if given)."""
    config = Config(str(PACKAGE_DIR / "alembic.ini"))
    config.set_main_option("script_location", str(PACKAGE_DIR / "migrations"))
    if url is not None:
        rendered = url if isinstance(url, str) else url.render_as_string(hide_password=False)
        # ConfigParser interpolation treats % specially.
        config.set_main_option("sqlalchemy.url", rendered.replace("%", "%%"))
    return config


def upgrade_to_head(url: str | URL) -> None:
    """Create or migrate the archive at ``url`` to the latest schema.

    Safe to call from several processes at once: SQLite serialises the migration transaction
    (BEGIN IMMEDIATE), PostgreSQL takes an advisory lock for it.
    """
    engine = create_archive_engine(url)
    try:
        upgrade_engine(engine)
    finally:
        engine.dispose()


def upgrade_engine(engine: Engine) -> None:
    """`upgrade_to_head` on an existing engine (needed for in-memory SQLite)."""
    with writer(engine).begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(select(func.pg_advisory_xact_lock(_MIGRATION_LOCK)))
        _upgrade(connection)


def _upgrade(connection: Connection) -> None:
    config = alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, "head")
