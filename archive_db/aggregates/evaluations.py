"""Evaluations: the student's measurements of a level, each refreshing the level's success
rate, status letter and score (learnability, or the caller's priority) in the same transaction,
and the target changes credited to it, which sum to its transfer (`dicode.archive.transfer`)."""

from __future__ import annotations

import math
from typing import Any

from sqlalchemy import Float, func, select

from archive_db.aggregates.feed import levels_changed, log_changes
from archive_db.convert import record_from
from archive_db.errors import InvalidRecordError
from archive_db.models import Evaluation, Level
from archive_db.records import EvaluationInfo
from archive_db.sessions import Sessions, require
from dicode.archive.status import judged_status, learnability
from dicode.archive.transfer import Credit


class Evaluations:
    def __init__(self, sessions: Sessions) -> None:
        self._sessions = sessions

    def record(
        self,
        level_id: int,
        *,
        student_iteration: int,
        episodes: int,
        successes: int,
        mean_return: float | None = None,
        per_goal: dict[str, Any] | None = None,
        min_sessions: int = 1,
        target_change: float | None = None,
        score: float | None = None,
    ) -> EvaluationInfo:
        """Store a measurement and refresh the level's success rate, status letter and score.

        Success rate = successes / episodes (None when no episode finished, i.e. status D and
        learnability 0); score = ``score`` when given (the priority the student ranks levels by,
        e.g. with transfer), else learnability p(1−p). The letter may say A or D only once the
        level has ``min_sessions`` measurements with a finished episode (`judged_status`).
        ``target_change`` is the target's change over the session, credited to the level.
        """
        if episodes < 0 or not 0 <= successes <= episodes:
            raise InvalidRecordError(
                f"need 0 <= successes <= episodes, got {successes} of {episodes}"
            )
        for name, value in (("target_change", target_change), ("score", score)):
            if value is not None and not math.isfinite(value):
                raise InvalidRecordError(f"{name} must be a finite number, got {value}")
        rate = successes / episodes if episodes else None
        with self._sessions.writing() as session:
            level = require(session, Level, level_id)
            row = Evaluation(
                run_id=level.run_id,
                level_id=level_id,
                student_iteration=student_iteration,
                episodes=episodes,
                successes=successes,
                success_rate=rate,
                mean_return=mean_return,
                per_goal=per_goal or {},
                target_change=target_change,
            )
            measured = session.scalar(
                select(func.count())
                .select_from(Evaluation)
                .where(Evaluation.level_id == level_id, Evaluation.episodes > 0)
            )
            session.add(row)
            level.success_rate = rate
            level.status = judged_status(rate, int(measured or 0) + (episodes > 0), min_sessions)
            level.score = learnability(rate) if score is None else score
            session.flush()
            log_changes(session, level.run_id, levels_changed([level_id]))
            return record_from(EvaluationInfo, row)

    def history(self, level_id: int) -> list[EvaluationInfo]:
        """Every evaluation of a level, in student-iteration order."""
        return self._sessions.read_records(
            EvaluationInfo,
            select(Evaluation)
            .where(Evaluation.level_id == level_id)
            .order_by(Evaluation.student_iteration, Evaluation.id),
        )

    def transfer_credits(self, run_id: int) -> dict[int, Credit]:
        """`TrainingStore.transfer_credits`: per level of the run, the sum, sum of squares and
        count of the target changes credited to it, in one grouped query (the run's own sums,
        for the noise scale, are these added up); levels never credited are absent."""
        change = Evaluation.target_change
        with self._sessions.reading() as session:
            rows = session.execute(
                select(
                    Evaluation.level_id,
                    # Never NULL (every group holds a credited change): typed as floats.
                    func.sum(change).cast(Float),
                    func.sum(change * change).cast(Float),
                    func.count(change),
                )
                .where(Evaluation.run_id == run_id, change.is_not(None))
                .group_by(Evaluation.level_id)
            ).all()
        return {level: Credit(total, squares, count) for level, total, squares, count in rows}
