"""Archive databases for every test: a fresh SQLite file, and a fresh PostgreSQL schema per test.

PostgreSQL is expected at 127.0.0.1:5432 (database ``test``), or at $DICODE_TEST_PG_URL.
Locally the PostgreSQL tests skip when the server is unreachable; in CI (CI=true) they fail.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import psycopg
import pytest
from sqlalchemy.engine import make_url

PG_URL = os.environ.get("DICODE_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def _libpq_dsn(url: str) -> str:
    parsed = make_url(url)
    parts = {
        "host": parsed.host or "127.0.0.1",
        "port": str(parsed.port or 5432),
        "dbname": parsed.database or "test",
        "user": parsed.username or "postgres",
    }
    if parsed.password:
        parts["password"] = parsed.password
    return " ".join(f"{k}={v}" for k, v in parts.items())


def _admin_connection() -> psycopg.Connection:
    try:
        return psycopg.connect(_libpq_dsn(PG_URL), autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as error:
        message = f"PostgreSQL at {PG_URL} is unreachable: {error}"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message + " (CI=true: the PostgreSQL tests must run)")
        pytest.skip(message)


@pytest.fixture
def sqlite_url(tmp_path: object) -> str:
    return f"sqlite:///{tmp_path}/archive.sqlite"


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A URL whose default schema is a brand-new, uniquely named one (dropped afterwards)."""
    schema = f"dicode_test_{uuid.uuid4().hex[:12]}"
    with _admin_connection() as admin:
        admin.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{PG_URL}?options=-csearch_path%3D{schema}"
    finally:
        with _admin_connection() as admin:
            admin.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def archive_url(request: pytest.FixtureRequest) -> str:
    """Each test using this runs once on SQLite and once on PostgreSQL."""
    name = "sqlite_url" if request.param == "sqlite" else "pg_url"
    return str(request.getfixturevalue(name))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Groups for pytest-xdist's ``--dist loadgroup`` (``make test`` runs two workers).

    A test file stays on one worker, so its module fixtures (compiled networks, servers) are
    built once. The chaos cases (marker ``chaos``) share one worker: they kill processes,
    restart a database and fill a disk, and each measures how the services recover.
    """
    for item in items:
        chaos = item.get_closest_marker("chaos") is not None
        item.add_marker(
            pytest.mark.xdist_group("chaos" if chaos else item.nodeid.split("::", 1)[0])
        )
