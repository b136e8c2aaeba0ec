"""Engines and sessions for the archive database, from a SQLAlchemy URL.

SQLite (the embedded default) is configured for several processes at once: WAL journal, foreign
keys on, a busy timeout, and ``BEGIN IMMEDIATE`` for write transactions so two writers queue on
the database lock instead of failing when a read transaction tries to upgrade to a write.
PostgreSQL is used as is (``postgresql+psycopg://user@host:port/db``) at READ COMMITTED.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool

# Seconds a SQLite connection waits for the database lock before giving up.
SQLITE_BUSY_TIMEOUT_S = 30.0
# Execution option that marks a connection as one that will write (see `_begin_sqlite`).
WRITE_OPTION = "archive_write"


def default_url(run_name: str, runs_dir: str | Path = "runs") -> str:
    """The conventional archive URL of a run: ``sqlite:///runs/<name>/archive.sqlite``."""
    return f"sqlite:///{Path(runs_dir) / run_name / 'archive.sqlite'}"


def create_archive_engine(url: str | URL, *, echo: bool = False) -> Engine:
    """Create an engine for the archive at ``url`` with the settings described above."""
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return _sqlite_engine(parsed, echo=echo)
    if backend == "postgresql":
        return create_engine(parsed, echo=echo, pool_pre_ping=True)
    raise ValueError(
        f"unsupported archive database {backend!r}: use a sqlite:// or postgresql+psycopg:// URL"
    )


def _sqlite_engine(url: URL, *, echo: bool) -> Engine:
    database = url.database or ""
    in_memory = database in ("", ":memory:") or database.startswith("file::memory:")
    kwargs: dict[str, Any] = {"connect_args": {"timeout": SQLITE_BUSY_TIMEOUT_S}}
    if in_memory:
        # One shared connection, otherwise every connection would see its own empty database.
        kwargs.update(poolclass=StaticPool)
        kwargs["connect_args"]["check_same_thread"] = False
    else:
        Path(database).expanduser().resolve().parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, echo=echo, **kwargs)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" event issue BEGIN instead of pysqlite's implicit one.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        if not in_memory:
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={int(SQLITE_BUSY_TIMEOUT_S * 1000)}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin_sqlite(conn: Connection) -> None:
        writes = conn.get_execution_options().get(WRITE_OPTION, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if writes else "BEGIN")

    return engine


def writer(engine: Engine) -> Engine:
    """The same engine (same pool) marked so its transactions are write transactions."""
    return engine.execution_options(**{WRITE_OPTION: True})


def session_factories(engine: Engine) -> tuple[sessionmaker[Session], sessionmaker[Session]]:
    """(read sessions, write sessions) over one engine."""
    read = sessionmaker(engine, expire_on_commit=False)
    write = sessionmaker(writer(engine), expire_on_commit=False)
    return read, write
