"""`ArchiveRepository`: the only code that talks SQL to the archive.

Each public method is one transaction. Writes are idempotent where the domain allows it
(levels by (run, content hash), edges by (parent, child)), so a service that retries after a
crash or a lost connection never duplicates anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, cast

from sqlalchemy import Engine, Table, and_, func, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, defer

from archive_db.engine import create_archive_engine, session_factories
from archive_db.migrate import upgrade_engine
from archive_db.models import (
    STATUS_LETTERS,
    VERDICTS,
    Change,
    Checkpoint,
    Evaluation,
    Event,
    GenerationAttempt,
    Level,
    LineageEdge,
    Run,
)
from archive_db.records import (
    ActiveSet,
    ArchiveStats,
    AttemptInfo,
    CheckpointInfo,
    EvaluationInfo,
    EventInfo,
    InsertedLevel,
    LevelInfo,
    NewAttempt,
    NewLevel,
    RecordedAttempt,
    RunInfo,
)
from dicode.archive.records import Edge, GraphChanges, LevelNode
from dicode.archive.status import learnability, status_letter
from dicode.levels.verdict import bounded_text

# Key of the PostgreSQL advisory lock that makes change-log ids follow commit order.
_CHANGE_LOG_LOCK = 0x44_69_43_6F_64_65  # "DiCode"


class ArchiveError(Exception):
    """Base class of the archive's own errors."""


class NotFoundError(ArchiveError, LookupError):
    """A run, level or other record that was asked for does not exist."""


class InvalidRecordError(ArchiveError, ValueError):
    """A record handed to the archive is inconsistent (the message says how)."""


class _CasFailed(Exception):
    """Internal: abort a compare-and-swap transaction."""


class ArchiveRepository:
    """Typed access to one archive database (SQLite or PostgreSQL)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._postgres = engine.dialect.name == "postgresql"
        self._read, self._write = session_factories(engine)
        # Snapshot reads (graph views) need one consistent view of several tables.
        self._snapshot = (
            session_factories(engine.execution_options(isolation_level="REPEATABLE READ"))[0]
            if self._postgres
            else self._read
        )

    @classmethod
    def open(cls, url: str, *, migrate: bool = True) -> ArchiveRepository:
        """Connect to the archive at ``url``, migrating it to the latest schema first."""
        engine = create_archive_engine(url)
        if migrate:
            upgrade_engine(engine)
        return cls(engine)

    def close(self) -> None:
        self.engine.dispose()

    # ------------------------------------------------------------------ transactions
    @contextmanager
    def _writing(self) -> Iterator[Session]:
        with self._write.begin() as session:
            yield session

    @contextmanager
    def _reading(self) -> Iterator[Session]:
        with self._read.begin() as session:
            yield session

    def _insert(self, model: type[Any]) -> Any:
        """INSERT … ON CONFLICT for this backend, on the bare table (no ORM bookkeeping)."""
        table = model.__table__
        return pg_insert(table) if self._postgres else sqlite_insert(table)

    def _log_changes(
        self, session: Session, run_id: int, entries: Iterable[tuple[str, int, int | None]]
    ) -> None:
        """Append change-log rows to the current transaction (see `Change` for the ordering)."""
        rows = [
            {"run_id": run_id, "entity": entity, "entity_id": entity_id, "other_id": other}
            for entity, entity_id, other in entries
        ]
        if not rows:
            return
        if self._postgres:
            # Taken before the ids are drawn and held to commit, so ids become visible in order.
            session.execute(select(func.pg_advisory_xact_lock(_CHANGE_LOG_LOCK)))
        session.execute(insert(_CHANGES), rows)

    # ------------------------------------------------------------------ runs
    def create_run(
        self, name: str, *, domain: str, seed: int, config: dict[str, Any] | None = None
    ) -> RunInfo:
        """Create a run; raises `InvalidRecordError` if the name is taken."""
        try:
            with self._writing() as session:
                run = Run(name=name, domain=domain, seed=seed, config=config or {})
                session.add(run)
                session.flush()
                return _run_info(run)
        except IntegrityError as error:
            raise InvalidRecordError(f"a run named {name!r} already exists") from error

    def open_run(
        self, name: str, *, domain: str, seed: int, config: dict[str, Any] | None = None
    ) -> RunInfo:
        """The run called ``name``, created if missing (what a restarting service calls)."""
        existing = self.find_run(name)
        if existing is not None:
            return existing
        try:
            return self.create_run(name, domain=domain, seed=seed, config=config)
        except InvalidRecordError:  # another process created it meanwhile
            return self.get_run(name)

    def find_run(self, name_or_id: str | int) -> RunInfo | None:
        with self._reading() as session:
            column = Run.id if isinstance(name_or_id, int) else Run.name
            run = session.scalars(select(Run).where(column == name_or_id)).one_or_none()
            return None if run is None else _run_info(run)

    def get_run(self, name_or_id: str | int) -> RunInfo:
        run = self.find_run(name_or_id)
        if run is None:
            raise NotFoundError(f"no run {name_or_id!r} in the archive")
        return run

    def list_runs(self) -> list[RunInfo]:
        with self._reading() as session:
            return [_run_info(r) for r in session.scalars(select(Run).order_by(Run.id))]

    def set_run_status(self, run_id: int, status: str) -> None:
        with self._writing() as session:
            _require(session, Run, run_id).status = status

    # ------------------------------------------------------------------ levels
    def insert_level(self, run_id: int, level: NewLevel) -> InsertedLevel:
        """Insert a level (and its lineage edges) unless the run already holds its content hash.

        Returns the id of the new level, or of the existing one with ``created=False``; edges
        are written only for a new level, so the lineage stays acyclic (parents are older).
        """
        with self._writing() as session:
            return self._insert_level(session, run_id, level)

    def _insert_level(self, session: Session, run_id: int, level: NewLevel) -> InsertedLevel:
        run = session.get(Run, run_id)
        if run is None:
            raise NotFoundError(f"no run {run_id} in the archive")
        if not level.content_hash:
            raise InvalidRecordError("a level needs a non-empty content_hash")
        parents = tuple(dict.fromkeys(level.parent_ids))
        if parents:
            found = set(
                session.scalars(
                    select(Level.id).where(Level.id.in_(parents), Level.run_id == run_id)
                )
            )
            missing = [p for p in parents if p not in found]
            if missing:
                raise InvalidRecordError(f"parent levels {missing} are not in run {run_id}")
        stmt = (
            self._insert(Level)
            .values(
                run_id=run_id,
                domain=level.domain,
                name=level.name,
                description=level.description,
                reasoning=level.reasoning,
                code=level.code,
                bundle=level.bundle,
                bundle_format=level.bundle_format,
                content_hash=level.content_hash,
                teacher=level.teacher,
                meta=level.meta,
                created_iteration=level.created_iteration,
            )
            .on_conflict_do_nothing(index_elements=["run_id", "content_hash"])
            .returning(Level.id)
        )
        new_id = session.execute(stmt).scalar_one_or_none()
        if new_id is None:
            existing = session.scalars(
                select(Level.id).where(
                    Level.run_id == run_id, Level.content_hash == level.content_hash
                )
            ).one()
            return InsertedLevel(id=existing, created=False)
        if parents:
            session.execute(
                insert(_EDGES),
                [{"parent_id": p, "child_id": new_id, "run_id": run_id} for p in parents],
            )
        self._log_changes(
            session,
            run_id,
            [("level", new_id, None)] + [("edge", new_id, p) for p in parents],
        )
        return InsertedLevel(id=new_id, created=True)

    def find_level_by_hash(self, run_id: int, digest: str) -> int | None:
        with self._reading() as session:
            return session.scalars(
                select(Level.id).where(Level.run_id == run_id, Level.content_hash == digest)
            ).one_or_none()

    def get_level(self, level_id: int) -> LevelInfo:
        with self._reading() as session:
            return _level_info(_require(session, Level, level_id))

    def get_bundle(self, level_id: int) -> bytes | None:
        with self._reading() as session:
            if session.get(Level, level_id) is None:
                raise NotFoundError(f"no level {level_id} in the archive")
            return session.scalars(select(Level.bundle).where(Level.id == level_id)).one()

    def list_levels(
        self,
        run_id: int,
        *,
        status: str | None = None,
        active: bool | None = None,
        sampled: bool | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[LevelInfo]:
        """Levels of a run by id; ``sampled=False`` lists those never drawn for training yet."""
        # LevelInfo leaves the bundle out: not reading it keeps listings (polled by the
        # terminal view and the student's schedule) cheap however large the pools are.
        query = select(Level).options(defer(Level.bundle)).where(Level.run_id == run_id)
        if sampled is not None:
            query = query.where(Level.times_sampled > 0 if sampled else Level.times_sampled == 0)
        if status is not None:
            query = query.where(Level.status == status)
        if active is not None:
            query = query.where(Level.active == active)
        query = query.order_by(Level.id).offset(offset).limit(limit)
        with self._reading() as session:
            return [_level_info(level) for level in session.scalars(query)]

    def add_edge(self, parent_id: int, child_id: int) -> bool:
        """Record that ``child_id`` came from ``parent_id``; False if the edge existed."""
        if parent_id == child_id:
            raise InvalidRecordError(f"level {parent_id} cannot be its own parent")
        with self._writing() as session:
            parent = _require(session, Level, parent_id)
            child = _require(session, Level, child_id)
            if parent.run_id != child.run_id:
                raise InvalidRecordError(
                    f"levels {parent_id} and {child_id} belong to different runs"
                )
            stmt = (
                self._insert(LineageEdge)
                .values(parent_id=parent_id, child_id=child_id, run_id=child.run_id)
                .on_conflict_do_nothing(index_elements=["parent_id", "child_id"])
                .returning(LineageEdge.child_id)
            )
            created = session.execute(stmt).scalar_one_or_none() is not None
            if created:
                self._log_changes(session, child.run_id, [("edge", child_id, parent_id)])
            return created

    def parents(self, level_id: int) -> list[int]:
        with self._reading() as session:
            return list(
                session.scalars(
                    select(LineageEdge.parent_id)
                    .where(LineageEdge.child_id == level_id)
                    .order_by(LineageEdge.parent_id)
                )
            )

    def children(self, level_id: int) -> list[int]:
        with self._reading() as session:
            return list(
                session.scalars(
                    select(LineageEdge.child_id)
                    .where(LineageEdge.parent_id == level_id)
                    .order_by(LineageEdge.child_id)
                )
            )

    def update_level(
        self,
        level_id: int,
        *,
        score: float | None = None,
        status: str | None = None,
        success_rate: float | None = None,
    ) -> None:
        """Overwrite a level's score, status letter and/or success rate."""
        if status is not None and status not in STATUS_LETTERS:
            raise InvalidRecordError(f"status must be one of {STATUS_LETTERS}, got {status!r}")
        with self._writing() as session:
            level = _require(session, Level, level_id)
            if score is not None:
                level.score = score
            if status is not None:
                level.status = status
            if success_rate is not None:
                level.success_rate = success_rate
            session.flush()
            self._log_changes(session, level.run_id, [("level", level_id, None)])

    def mark_sampled(self, level_ids: Sequence[int], step: int) -> None:
        """Note that the student drew these levels at replay step ``step``."""
        ids = sorted(set(level_ids))
        if not ids:
            return
        with self._writing() as session:
            run_ids = set(session.scalars(select(Level.run_id).where(Level.id.in_(ids))))
            if len(run_ids) != 1:
                raise InvalidRecordError(f"levels {ids} must exist and share one run")
            result = session.execute(
                update(Level)
                .where(Level.id.in_(ids))
                .values(last_sampled=step, times_sampled=Level.times_sampled + 1)
            )
            if result.rowcount != len(ids):  # type: ignore[attr-defined]
                raise InvalidRecordError(f"some of levels {ids} do not exist")
            self._log_changes(session, run_ids.pop(), [("level", i, None) for i in ids])

    # ------------------------------------------------------------------ attempts
    def record_attempt(
        self, run_id: int, attempt: NewAttempt, level: NewLevel | None = None
    ) -> RecordedAttempt:
        """Store a generation attempt; an accepted one inserts its level in the same transaction."""
        if attempt.verdict not in VERDICTS:
            raise InvalidRecordError(f"verdict must be one of {VERDICTS}, got {attempt.verdict!r}")
        if attempt.verdict == "accepted" and level is None:
            raise InvalidRecordError("an accepted attempt must come with its level")
        if attempt.verdict == "rejected" and level is not None:
            raise InvalidRecordError("a rejected attempt cannot carry a level")
        if attempt.verdict == "rejected" and not (attempt.failing_stage and attempt.error):
            raise InvalidRecordError("a rejected attempt needs failing_stage and error")
        with self._writing() as session:
            if session.get(Run, run_id) is None:
                raise NotFoundError(f"no run {run_id} in the archive")
            inserted = None if level is None else self._insert_level(session, run_id, level)
            row = GenerationAttempt(
                run_id=run_id,
                parent_id=attempt.parent_id,
                level_id=None if inserted is None else inserted.id,
                teacher=attempt.teacher,
                stage_reached=attempt.stage_reached,
                prompts=list(attempt.prompts),
                responses=list(attempt.responses),
                code=attempt.code,
                verdict=attempt.verdict,
                failing_stage=attempt.failing_stage,
                error=None if attempt.error is None else bounded_text(attempt.error),
                latency_s=attempt.latency_s,
                tokens_in=attempt.tokens_in,
                tokens_out=attempt.tokens_out,
            )
            session.add(row)
            session.flush()
            return RecordedAttempt(attempt_id=row.id, level=inserted)

    def get_attempt(self, attempt_id: int) -> AttemptInfo:
        with self._reading() as session:
            return _attempt_info(_require(session, GenerationAttempt, attempt_id))

    def list_attempts(
        self,
        run_id: int,
        *,
        verdict: str | None = None,
        failing_stage: str | None = None,
        teacher: str | None = None,
        parent_id: int | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[AttemptInfo]:
        """Attempts of a run, oldest first, optionally filtered."""
        query = select(GenerationAttempt).where(GenerationAttempt.run_id == run_id)
        for column, value in (
            (GenerationAttempt.verdict, verdict),
            (GenerationAttempt.failing_stage, failing_stage),
            (GenerationAttempt.teacher, teacher),
            (GenerationAttempt.parent_id, parent_id),
        ):
            if value is not None:
                query = query.where(column == value)
        query = query.order_by(GenerationAttempt.id).offset(offset).limit(limit)
        with self._reading() as session:
            return [_attempt_info(a) for a in session.scalars(query)]

    # ------------------------------------------------------------------ evaluations
    def record_evaluation(
        self,
        level_id: int,
        *,
        student_iteration: int,
        episodes: int,
        successes: int,
        mean_return: float | None = None,
        per_goal: dict[str, Any] | None = None,
    ) -> EvaluationInfo:
        """Store a measurement and refresh the level's success rate, status letter and score.

        Success rate = successes / episodes (None when no episode finished, i.e. status D and
        learnability 0); score = learnability p(1−p).
        """
        if episodes < 0 or not 0 <= successes <= episodes:
            raise InvalidRecordError(
                f"need 0 <= successes <= episodes, got {successes} of {episodes}"
            )
        rate = successes / episodes if episodes else None
        with self._writing() as session:
            level = _require(session, Level, level_id)
            row = Evaluation(
                run_id=level.run_id,
                level_id=level_id,
                student_iteration=student_iteration,
                episodes=episodes,
                successes=successes,
                success_rate=rate,
                mean_return=mean_return,
                per_goal=per_goal or {},
            )
            session.add(row)
            level.success_rate = rate
            level.status = status_letter(rate)
            level.score = learnability(rate)
            session.flush()
            self._log_changes(session, level.run_id, [("level", level_id, None)])
            return _evaluation_info(row)

    def level_history(self, level_id: int) -> list[EvaluationInfo]:
        """Every evaluation of a level, in student-iteration order."""
        with self._reading() as session:
            rows = session.scalars(
                select(Evaluation)
                .where(Evaluation.level_id == level_id)
                .order_by(Evaluation.student_iteration, Evaluation.id)
            )
            return [_evaluation_info(r) for r in rows]

    # ------------------------------------------------------------------ active set
    def active_set(self, run_id: int) -> ActiveSet:
        """The run's active levels (by id) with their scores, and the set's version."""
        with self._snapshot.begin() as session:
            version = session.scalars(
                select(Run.active_version).where(Run.id == run_id)
            ).one_or_none()
            if version is None:
                raise NotFoundError(f"no run {run_id} in the archive")
            rows = session.execute(
                select(Level.id, Level.score)
                .where(Level.run_id == run_id, Level.active.is_(True))
                .order_by(Level.id)
            ).all()
            return ActiveSet(
                version=version,
                level_ids=tuple(r[0] for r in rows),
                scores=tuple(r[1] for r in rows),
            )

    def compare_and_swap_active(
        self, run_id: int, expected_version: int, *, admit: int | None, evict: int | None
    ) -> bool:
        """Admit and/or evict one level iff the active set is still at ``expected_version``.

        Returns False (and changes nothing) if another writer changed the set first, or if
        ``admit`` is already active / ``evict`` is not active any more.
        """
        try:
            with self._writing() as session:
                bumped = session.execute(
                    update(Run)
                    .where(Run.id == run_id, Run.active_version == expected_version)
                    .values(active_version=Run.active_version + 1)
                )
                if bumped.rowcount != 1:  # type: ignore[attr-defined]
                    raise _CasFailed
                for level_id, new_state in ((evict, False), (admit, True)):
                    if level_id is None:
                        continue
                    flipped = session.execute(
                        update(Level)
                        .where(
                            and_(
                                Level.id == level_id,
                                Level.run_id == run_id,
                                Level.active.is_(not new_state),
                            )
                        )
                        .values(active=new_state)
                    )
                    if flipped.rowcount != 1:  # type: ignore[attr-defined]
                        raise _CasFailed
                changed = [i for i in (evict, admit) if i is not None]
                self._log_changes(session, run_id, [("level", i, None) for i in changed])
                return True
        except _CasFailed:
            return False

    def set_active(self, level_id: int, active: bool) -> None:
        """Force a level in or out of the active set (no capacity check; admin use)."""
        with self._writing() as session:
            level = _require(session, Level, level_id)
            if level.active == active:
                return
            level.active = active
            session.execute(
                update(Run)
                .where(Run.id == level.run_id)
                .values(active_version=Run.active_version + 1)
            )
            session.flush()
            self._log_changes(session, level.run_id, [("level", level_id, None)])

    # ------------------------------------------------------------------ checkpoints, events
    def add_checkpoint(
        self, run_id: int, path: str, iteration: int, meta: dict[str, Any] | None = None
    ) -> CheckpointInfo:
        with self._writing() as session:
            _require(session, Run, run_id)
            row = Checkpoint(run_id=run_id, path=path, iteration=iteration, meta=meta or {})
            session.add(row)
            session.flush()
            return _checkpoint_info(row)

    def latest_checkpoint(self, run_id: int) -> CheckpointInfo | None:
        with self._reading() as session:
            row = session.scalars(
                select(Checkpoint)
                .where(Checkpoint.run_id == run_id)
                .order_by(Checkpoint.iteration.desc(), Checkpoint.id.desc())
                .limit(1)
            ).one_or_none()
            return None if row is None else _checkpoint_info(row)

    def list_checkpoints(self, run_id: int) -> list[CheckpointInfo]:
        with self._reading() as session:
            rows = session.scalars(
                select(Checkpoint)
                .where(Checkpoint.run_id == run_id)
                .order_by(Checkpoint.iteration, Checkpoint.id)
            )
            return [_checkpoint_info(r) for r in rows]

    def add_event(
        self, kind: str, payload: dict[str, Any] | None = None, *, run_id: int | None = None
    ) -> EventInfo:
        with self._writing() as session:
            row = Event(run_id=run_id, kind=kind, payload=payload or {})
            session.add(row)
            session.flush()
            return _event_info(row)

    def list_events(
        self,
        *,
        run_id: int | None = None,
        kind: str | None = None,
        after_id: int = 0,
        limit: int | None = None,
    ) -> list[EventInfo]:
        query = select(Event).where(Event.id > after_id)
        if run_id is not None:
            query = query.where(Event.run_id == run_id)
        if kind is not None:
            query = query.where(Event.kind == kind)
        with self._reading() as session:
            return [_event_info(e) for e in session.scalars(query.order_by(Event.id).limit(limit))]

    # ------------------------------------------------------------------ graph view feed
    def load_graph_snapshot(self, run_id: int) -> GraphChanges:
        """Every level and edge of a run, with the cursor for `changes_since`."""
        return self.changes_since(run_id, 0)

    def changes_since(self, run_id: int, cursor: int) -> GraphChanges:
        """Levels (current state) and edges changed after ``cursor``, read as one snapshot."""
        with self._snapshot.begin() as session:
            new_cursor = session.scalars(
                select(func.coalesce(func.max(Change.id), 0)).where(Change.run_id == run_id)
            ).one()
            if cursor == 0:
                level_filter = Level.run_id == run_id
                edge_rows = [
                    (p, c)
                    for p, c in session.execute(
                        select(LineageEdge.parent_id, LineageEdge.child_id)
                        .where(LineageEdge.run_id == run_id)
                        .order_by(LineageEdge.child_id, LineageEdge.parent_id)
                    )
                ]
            else:
                window = and_(Change.run_id == run_id, Change.id > cursor, Change.id <= new_cursor)
                changed_levels = select(Change.entity_id).where(window, Change.entity == "level")
                level_filter = Level.id.in_(changed_levels)
                # An edge's change row holds the child in entity_id, the parent in other_id.
                edge_rows = [
                    (p, c)
                    for p, c in session.execute(
                        select(LineageEdge.parent_id, LineageEdge.child_id)
                        .join(
                            Change,
                            and_(
                                Change.entity_id == LineageEdge.child_id,
                                Change.other_id == LineageEdge.parent_id,
                            ),
                        )
                        .where(window, Change.entity == "edge")
                        .order_by(Change.id)
                    )
                ]
            levels = session.execute(_NODE_QUERY.where(level_filter).order_by(Level.id)).all()
            return GraphChanges(
                cursor=new_cursor,
                levels=tuple(LevelNode(*row) for row in levels),
                edges=tuple(Edge(parent=p, child=c) for p, c in edge_rows),
            )

    # ------------------------------------------------------------------ statistics
    def stats(self, run_id: int | None = None) -> ArchiveStats:
        """Counts for one run, or for the whole archive when ``run_id`` is None."""

        def scoped(query: Any, column: Any) -> Any:
            return query if run_id is None else query.where(column == run_id)

        with self._snapshot.begin() as session:
            levels = session.scalar(scoped(select(func.count(Level.id)), Level.run_id)) or 0
            edges = (
                session.scalar(
                    scoped(select(func.count()).select_from(LineageEdge), LineageEdge.run_id)
                )
                or 0
            )
            active = (
                session.scalar(
                    scoped(select(func.count(Level.id)).where(Level.active.is_(True)), Level.run_id)
                )
                or 0
            )
            verdicts: dict[str, int] = dict(
                session.execute(
                    scoped(
                        select(GenerationAttempt.verdict, func.count()).group_by(
                            GenerationAttempt.verdict
                        ),
                        GenerationAttempt.run_id,
                    )
                ).all()
            )
            by_status = dict.fromkeys(STATUS_LETTERS, 0)
            by_status.update(
                session.execute(
                    scoped(select(Level.status, func.count()).group_by(Level.status), Level.run_id)
                ).all()
            )
            return ArchiveStats(
                levels=levels,
                accepted=verdicts.get("accepted", 0),
                rejected=verdicts.get("rejected", 0),
                edges=edges,
                active=active,
                by_status=by_status,
            )


_CHANGES = cast(Table, Change.__table__)
_EDGES = cast(Table, LineageEdge.__table__)
_NODE_QUERY = select(
    Level.id,
    Level.status,
    Level.success_rate,
    Level.score,
    Level.active,
    Level.last_sampled,
    Level.times_sampled,
    Level.teacher,
    Level.created_iteration,
)


def _require(session: Session, model: type[Any], key: int) -> Any:
    row = session.get(model, key)
    if row is None:
        raise NotFoundError(f"no {model.__tablename__[:-1]} {key} in the archive")
    return row


def _run_info(run: Run) -> RunInfo:
    return RunInfo(
        id=run.id,
        name=run.name,
        domain=run.domain,
        config=dict(run.config),
        seed=run.seed,
        status=run.status,
        created_at=run.created_at,
        updated_at=run.updated_at,
    )


def _level_info(level: Level) -> LevelInfo:
    return LevelInfo(
        id=level.id,
        run_id=level.run_id,
        domain=level.domain,
        name=level.name,
        description=level.description,
        reasoning=level.reasoning,
        code=level.code,
        bundle_format=level.bundle_format,
        content_hash=level.content_hash,
        teacher=level.teacher,
        meta=dict(level.meta),
        created_iteration=level.created_iteration,
        created_at=level.created_at,
        status=level.status,
        success_rate=level.success_rate,
        score=level.score,
        active=level.active,
        last_sampled=level.last_sampled,
        times_sampled=level.times_sampled,
    )


def _attempt_info(a: GenerationAttempt) -> AttemptInfo:
    return AttemptInfo(
        id=a.id,
        run_id=a.run_id,
        parent_id=a.parent_id,
        level_id=a.level_id,
        teacher=a.teacher,
        stage_reached=a.stage_reached,
        prompts=list(a.prompts),
        responses=list(a.responses),
        code=a.code,
        verdict=a.verdict,
        failing_stage=a.failing_stage,
        error=a.error,
        latency_s=a.latency_s,
        tokens_in=a.tokens_in,
        tokens_out=a.tokens_out,
        created_at=a.created_at,
    )


def _evaluation_info(e: Evaluation) -> EvaluationInfo:
    return EvaluationInfo(
        id=e.id,
        level_id=e.level_id,
        student_iteration=e.student_iteration,
        episodes=e.episodes,
        successes=e.successes,
        success_rate=e.success_rate,
        mean_return=e.mean_return,
        per_goal=dict(e.per_goal),
        created_at=e.created_at,
    )


def _checkpoint_info(c: Checkpoint) -> CheckpointInfo:
    return CheckpointInfo(
        id=c.id,
        run_id=c.run_id,
        path=c.path,
        iteration=c.iteration,
        meta=dict(c.meta),
        created_at=c.created_at,
    )


def _event_info(e: Event) -> EventInfo:
    return EventInfo(
        id=e.id, run_id=e.run_id, kind=e.kind, payload=dict(e.payload), created_at=e.created_at
    )
