"""A run over time, for its dashboard: student progress, status letters, attempts per stage,
the teacher's latency, learnability. Counting and bucketing happen in SQL where the database
can do it, so each series comes back as at most a few hundred rows."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, Integer, case, cast, func, select
from sqlalchemy.orm import Session

from archive_db.kinds import SESSION_EVENT
from archive_db.models import STATUS_LETTERS, Evaluation, Event, GenerationAttempt, Level
from archive_db.records import (
    LatencyBucket,
    LearnabilityPoint,
    ProgressPoint,
    RunTimeline,
    StageCount,
    StatusPoint,
)
from archive_db.sessions import Sessions
from dicode.archive.status import STATUS_THRESHOLDS

MAX_POINTS = 200  # per series: more than a chart's width in useful detail


class Timelines:
    def __init__(self, sessions: Sessions) -> None:
        self._sessions = sessions

    def of_run(self, run_id: int, points: int = MAX_POINTS) -> RunTimeline:
        """Every series of the run's dashboard, read as one snapshot."""
        with self._sessions.snapshot() as session:
            return RunTimeline(
                progress=tuple(_progress(session, run_id)),
                status=tuple(_status(session, run_id, self._sessions.postgres, points)),
                stages=tuple(_stages(session, run_id)),
                latency=tuple(_latency(session, run_id, points)),
                learnability=tuple(_learnability(session, run_id, points)),
                active_scores=tuple(
                    session.scalars(
                        select(Level.score)
                        .where(Level.run_id == run_id, Level.active.is_(True))
                        .order_by(Level.id)
                    )
                ),
            )


def _progress(session: Session, run_id: int) -> Iterable[ProgressPoint]:
    # Only two numbers of each session's payload (which also lists every level it evaluated).
    rows = session.execute(
        select(
            Event.created_at,
            Event.payload["iteration"].as_integer(),
            Event.payload["env_steps"].as_integer(),
        )
        .where(Event.run_id == run_id, Event.kind == SESSION_EVENT)
        .order_by(Event.id)
    )
    for time, iteration, env_steps in rows:
        if iteration is not None:
            yield ProgressPoint(time=time, iteration=iteration, env_steps=env_steps)


def _status(session: Session, run_id: int, postgres: bool, points: int) -> list[StatusPoint]:
    # Each level adds a D when it is created; each evaluation moves its level from the letter
    # of the previous evaluation (D before the first) to its own. Counted per time bucket in
    # SQL (one pass of a window over the evaluations), so only a few hundred rows come back.
    bounds = [
        session.execute(select(func.min(t), func.max(t)).where(column == run_id)).one()
        for t, column in (
            (Level.created_at, Level.run_id),
            (Evaluation.created_at, Evaluation.run_id),
        )
    ]
    known = [value.timestamp() for pair in bounds for value in pair if value is not None]
    if not known:
        return []
    start = min(known)
    width = max(max(known) - start, 1e-6) / points

    def bucket(column: Any) -> ColumnElement[int]:
        return cast(func.floor((_epoch(column, postgres) - start) / width), Integer)

    moves = (
        select(
            bucket(Evaluation.created_at).label("b"),
            _letter(Evaluation.success_rate).label("after"),
            # lag() is NULL before a level's first evaluation: that moves it out of D.
            _letter(
                func.lag(Evaluation.success_rate).over(
                    partition_by=Evaluation.level_id, order_by=Evaluation.id
                )
            ).label("before"),
        )
        .where(Evaluation.run_id == run_id)
        .subquery()
    )
    created = bucket(Level.created_at)
    deltas: list[tuple[int, str, int]] = [
        (b, "D", n)
        for b, n in session.execute(
            select(created, func.count()).where(Level.run_id == run_id).group_by(created)
        )
    ]
    for b, after, before, n in session.execute(
        select(moves.c.b, moves.c.after, moves.c.before, func.count()).group_by(
            moves.c.b, moves.c.after, moves.c.before
        )
    ):
        deltas += [(b, after, n), (b, before, -n)]
    return accumulate(deltas, start, width, points)


def accumulate(
    deltas: Iterable[tuple[int, str, int]], start: float, width: float, points: int
) -> list[StatusPoint]:
    """Letter counts at the end of each of ``points`` buckets of ``width`` seconds from the
    epoch second ``start``, from per-bucket changes (bucket, letter, change)."""
    per_bucket: dict[int, dict[str, int]] = {}
    for b, letter, change in deltas:
        # Clamped: SQLite's julianday() rounds to about 10 µs, so the first and last changes
        # can land just outside the range.
        slot = per_bucket.setdefault(min(max(b, 0), points - 1), dict.fromkeys(STATUS_LETTERS, 0))
        slot[letter] += change
    counts = dict.fromkeys(STATUS_LETTERS, 0)
    samples = []
    for b in range(points):
        for letter, change in per_bucket.get(b, {}).items():
            counts[letter] += change
        time = datetime.fromtimestamp(start + width * (b + 1), UTC)
        samples.append(StatusPoint(time=time, counts=dict(counts)))
    return samples


def _epoch(column: Any, postgres: bool) -> ColumnElement[Any]:
    """Seconds since 1970 of a stored timestamp (SQLite keeps text, PostgreSQL a timestamptz)."""
    if postgres:
        return func.extract("epoch", column)
    return (func.julianday(column) - 2440587.5) * 86400.0


def _letter(rate: Any) -> ColumnElement[str]:
    # `status_letter` in SQL: the first threshold the rate reaches; NULL (no data) is D.
    return case(*((rate >= bound, letter) for letter, bound in STATUS_THRESHOLDS), else_="D")


def _stages(session: Session, run_id: int) -> Iterable[StageCount]:
    stage = func.coalesce(GenerationAttempt.failing_stage, GenerationAttempt.stage_reached)
    rows = session.execute(
        select(stage, GenerationAttempt.verdict, func.count())
        .where(GenerationAttempt.run_id == run_id)
        .group_by(stage, GenerationAttempt.verdict)
        .order_by(stage, GenerationAttempt.verdict)
    )
    for name, verdict, count in rows:
        yield StageCount(stage=name, verdict=verdict, attempts=count)


def _latency(session: Session, run_id: int, points: int) -> Iterable[LatencyBucket]:
    run = GenerationAttempt.run_id == run_id
    low, high = session.execute(
        select(func.min(GenerationAttempt.id), func.max(GenerationAttempt.id)).where(run)
    ).one()
    if low is None:
        return
    # Integer division on both backends: attempts fall into `points` runs of consecutive ids.
    bucket = ((GenerationAttempt.id - low) * points // (high - low + 1)).cast(Integer)
    rows = session.execute(
        select(
            func.min(GenerationAttempt.id),
            func.min(GenerationAttempt.created_at),
            func.count(),
            func.avg(GenerationAttempt.latency_s),
            func.max(GenerationAttempt.latency_s),
        )
        .where(run)
        .group_by(bucket)
        .order_by(func.min(GenerationAttempt.id))
    )
    for first, time, count, mean, longest in rows:
        yield LatencyBucket(
            first_attempt=first,
            time=time,
            attempts=count,
            mean_s=None if mean is None else float(mean),
            max_s=longest,
        )


def _learnability(session: Session, run_id: int, points: int) -> list[LearnabilityPoint]:
    rate = Evaluation.success_rate
    query = (
        select(Evaluation.student_iteration, func.count(), func.sum(rate * (1 - rate)))
        .where(Evaluation.run_id == run_id, rate.is_not(None))
        .group_by(Evaluation.student_iteration)
        .order_by(Evaluation.student_iteration)
    )
    rows = [
        (iteration, count, float(total or 0.0))
        for iteration, count, total in session.execute(query)
    ]
    per = max(1, -(-len(rows) // points))  # iterations merged into one point (ceil)
    merged: list[LearnabilityPoint] = []
    for start in range(0, len(rows), per):
        chunk = rows[start : start + per]
        evaluations = sum(count for _, count, _ in chunk)
        total = sum(value for _, _, value in chunk)
        merged.append(
            LearnabilityPoint(
                iteration=chunk[0][0],
                last_iteration=chunk[-1][0],
                evaluations=evaluations,
                mean=total / evaluations,
            )
        )
    return merged

