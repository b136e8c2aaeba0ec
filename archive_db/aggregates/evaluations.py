"""Evaluations: the student's measurements of a level, each refreshing the level's success
rate, status letter and score (learnability) in the same transaction."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from archive_db.aggregates.feed import levels_changed, log_changes
from archive_db.convert import record_from
from archive_db.errors import InvalidRecordError
from archive_db.models import Evaluation, Level
from archive_db.records import EvaluationInfo
from archive_db.sessions import Sessions, require
from dicode.archive.status import judged_status, learnability


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
    ) -> EvaluationInfo:
        """Store a measurement and refresh the level's success rate, status letter and score.

        Success rate = successes / episodes (None when no episode finished, i.e. status D and
        learnability 0); score = learnability p(1−p). The letter may say A or D only once the
        level has ``min_sessions`` measurements with a finished episode (`judged_status`).
        """
        if episodes < 0 or not 0 <= successes <= episodes:
            raise InvalidRecordError(
                f"need 0 <= successes <= episodes, got {successes} of {episodes}"
            )
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
            )
            measured = session.scalar(
                select(func.count())
                .select_from(Evaluation)
                .where(Evaluation.level_id == level_id, Evaluation.episodes > 0)
            )
            session.add(row)
            level.success_rate = rate
            level.status = judged_status(rate, int(measured or 0) + (episodes > 0), min_sessions)
            level.score = learnability(rate)
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
