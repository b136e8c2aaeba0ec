"""SQLAlchemy 2 typed models of the archive: runs, levels, lineage, attempts, evaluations,
checkpoints, events, and the change log that feeds incremental graph views.

Every schema change goes through an Alembic migration in ``archive_db/migrations``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Stable constraint names so migrations can refer to them on every backend.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# JSON everywhere, stored as JSONB on PostgreSQL.
JsonType = JSON().with_variant(JSONB(), "postgresql")
# Autoincrement keys: BIGINT on PostgreSQL, INTEGER (the rowid alias) on SQLite.
BigId = BigInteger().with_variant(Integer(), "sqlite")

STATUS_LETTERS = ("A", "B", "C", "D")
VERDICTS = ("accepted", "rejected")


def utc_now() -> datetime:
    return datetime.now(UTC)


class UtcDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC timestamp on every backend (SQLite stores no zone: assume UTC)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError("archive timestamps must be timezone-aware")
        return None if value is None else value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Run(Base):
    """One curriculum run: its configuration, seed and lifecycle."""

    __tablename__ = "runs"

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    domain: Mapped[str] = mapped_column(String(64))
    config: Mapped[dict[str, Any]] = mapped_column(JsonType, default=dict)
    seed: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(32), default="created")
    # Bumped by every change of the active set; writers compare-and-swap on it.
    active_version: Mapped[int] = mapped_column(BigInteger, default=0)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utc_now)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utc_now, onupdate=utc_now)


class Level(Base):
    """A level: its source, its data bundle and what the curriculum knows about it."""

    __tablename__ = "levels"
    __table_args__ = (
        UniqueConstraint("run_id", "content_hash", name="uq_levels_run_hash"),
        CheckConstraint("status IN ('A', 'B', 'C', 'D')", name="status_letter"),
        Index("ix_levels_run_active", "run_id", "active"),
        # Listings filter by run (and a status letter, teacher or sampling count) and page by
        # id: these answer the count and the page's ids from the index alone, however deep the
        # offset.
        Index("ix_levels_run_page", "run_id", "id"),
        Index("ix_levels_run_status", "run_id", "status", "id"),
        Index("ix_levels_run_teacher", "run_id", "teacher", "id"),
        Index("ix_levels_run_sampled", "run_id", "times_sampled", "id"),
        Index("ix_levels_run_skill", "run_id", "skill", "id"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"))
    domain: Mapped[str] = mapped_column(String(64))
    name: Mapped[str | None] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text, default="")
    reasoning: Mapped[str | None] = mapped_column(Text)
    code: Mapped[str] = mapped_column(Text, default="")
    bundle: Mapped[bytes | None] = mapped_column(LargeBinary)
    bundle_format: Mapped[str | None] = mapped_column(String(32))
    content_hash: Mapped[str] = mapped_column(String(128))
    teacher: Mapped[str] = mapped_column(String(200))
    skill: Mapped[str | None] = mapped_column(String(200))  # the skill the level targets
    meta: Mapped[dict[str, Any]] = mapped_column(JsonType, default=dict)
    created_iteration: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utc_now)
    status: Mapped[str] = mapped_column(String(1), default="D")
    success_rate: Mapped[float | None] = mapped_column(Float)
    score: Mapped[float] = mapped_column(Float, default=0.0)
    active: Mapped[bool] = mapped_column(Boolean, default=False)
    last_sampled: Mapped[int | None] = mapped_column(BigInteger)
    times_sampled: Mapped[int] = mapped_column(BigInteger, default=0)


class LineageEdge(Base):
    """Parent → child: the child was generated from the parent."""

    __tablename__ = "lineage_edges"

    parent_id: Mapped[int] = mapped_column(
        ForeignKey("levels.id", ondelete="CASCADE"), primary_key=True
    )
    child_id: Mapped[int] = mapped_column(
        ForeignKey("levels.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utc_now)


class GenerationAttempt(Base):
    """Every try of a teacher to write a level, accepted or not, with all it said and why."""

    __tablename__ = "generation_attempts"
    __table_args__ = (
        CheckConstraint("verdict IN ('accepted', 'rejected')", name="verdict_value"),
        Index("ix_generation_attempts_run_verdict", "run_id", "verdict"),
        Index("ix_generation_attempts_run_page", "run_id", "id"),  # as ix_levels_run_page
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"))
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("levels.id", ondelete="SET NULL"))
    level_id: Mapped[int | None] = mapped_column(
        ForeignKey("levels.id", ondelete="SET NULL"), index=True
    )
    teacher: Mapped[str] = mapped_column(String(200))
    stage_reached: Mapped[str] = mapped_column(String(64))
    prompts: Mapped[list[Any]] = mapped_column(JsonType, default=list)
    responses: Mapped[list[Any]] = mapped_column(JsonType, default=list)
    code: Mapped[str | None] = mapped_column(Text)
    verdict: Mapped[str] = mapped_column(String(16))
    failing_stage: Mapped[str | None] = mapped_column(String(64))
    error: Mapped[str | None] = mapped_column(Text)
    latency_s: Mapped[float | None] = mapped_column(Float)
    tokens_in: Mapped[int | None] = mapped_column(BigInteger)
    tokens_out: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utc_now)


class Evaluation(Base):
    """The student's measured performance on a level at one student iteration."""

    __tablename__ = "evaluations"

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), index=True)
    level_id: Mapped[int] = mapped_column(ForeignKey("levels.id", ondelete="CASCADE"), index=True)
    student_iteration: Mapped[int] = mapped_column(BigInteger)
    episodes: Mapped[int] = mapped_column(BigInteger)
    successes: Mapped[int] = mapped_column(BigInteger)
    # None when no episode finished (the level then counts as status D, learnability 0).
    success_rate: Mapped[float | None] = mapped_column(Float)
    mean_return: Mapped[float | None] = mapped_column(Float)
    per_goal: Mapped[dict[str, Any]] = mapped_column(JsonType, default=dict)
    # The change of the target game's mean training return over the session, credited to the
    # level trained in it (`dicode.archive.transfer`); None when it could not be measured.
    target_change: Mapped[float | None] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utc_now)


class Checkpoint(Base):
    """A saved student state on disk."""

    __tablename__ = "checkpoints"

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), index=True)
    path: Mapped[str] = mapped_column(Text)
    iteration: Mapped[int] = mapped_column(BigInteger)
    meta: Mapped[dict[str, Any]] = mapped_column(JsonType, default=dict)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utc_now)


class Event(Base):
    """Something that happened in a service, for inspection (kind + JSON payload)."""

    __tablename__ = "events"

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    run_id: Mapped[int | None] = mapped_column(
        ForeignKey("runs.id", ondelete="CASCADE"), index=True
    )
    kind: Mapped[str] = mapped_column(String(64), index=True)
    payload: Mapped[dict[str, Any]] = mapped_column(JsonType, default=dict)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utc_now)


class Change(Base):
    """Change log for incremental graph views: one row per level or edge written or updated.

    Ids are handed out in commit order (see the repository), so a reader that remembers the
    last id it saw can ask for everything after it and never miss a change.
    """

    __tablename__ = "changes"
    __table_args__ = (
        CheckConstraint("entity IN ('level', 'edge')", name="entity_kind"),
        Index("ix_changes_run_id_id", "run_id", "id"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"))
    entity: Mapped[str] = mapped_column(String(8))
    # Level id for levels; the child id for edges (the parent id goes in `other_id`).
    entity_id: Mapped[int] = mapped_column(BigInteger)
    other_id: Mapped[int | None] = mapped_column(BigInteger)
