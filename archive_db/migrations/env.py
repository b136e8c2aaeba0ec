"""Alembic environment of the archive: runs on a connection handed in by `upgrade_to_head`,
or on a URL (``-x url=...`` or ``sqlalchemy.url``) when invoked from the alembic CLI."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from archive_db.engine import create_archive_engine, writer
from archive_db.models import Base

config = context.config
target_metadata = Base.metadata


def run_on(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        compare_type=True,
        # SQLite cannot ALTER most things; batch mode rebuilds the table instead.
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


def main() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        run_on(connection)
        return
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option(
        "sqlalchemy.url"
    )
    if not url:
        raise SystemExit("give the archive URL: alembic -c archive_db/alembic.ini -x url=URL ...")
    engine = create_archive_engine(url)
    try:
        with writer(engine).connect() as conn:
            run_on(conn)
            conn.commit()
    finally:
        engine.dispose()


if context.is_offline_mode():
    raise SystemExit("offline (SQL script) mode is not supported; run against a database")
main()
