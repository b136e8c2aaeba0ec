"""The archive database: SQLAlchemy models, the repository (one database and its aggregates,
the only code that talks SQL) and Alembic migrations. SQLite by default, PostgreSQL via a
``postgresql+psycopg://`` URL.

Typical use in a service::

    repo = ArchiveRepository.open(url)   # migrates to the latest schema first
    run = repo.runs.open("demo", domain="tetris", seed=0)
"""

from archive_db.engine import create_archive_engine, default_url
from archive_db.errors import ArchiveError, InvalidRecordError, NotFoundError
from archive_db.migrate import upgrade_to_head
from archive_db.repository import ArchiveRepository

__all__ = [
    "ArchiveError",
    "ArchiveRepository",
    "InvalidRecordError",
    "NotFoundError",
    "create_archive_engine",
    "default_url",
    "upgrade_to_head",
]
