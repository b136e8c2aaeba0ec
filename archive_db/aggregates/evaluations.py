"""Evaluations: the student's measurements of a level, each refreshing the level's success
rate, status letter and score (learnability) in the same transaction."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from archive_db.aggregates.feed import levels_changed, log_changes
from archive_db.convert import record_from
from archive_db.errors import InvalidRecordError
from archive_db.models import Evaluation, Level
from archive_db.records import EvaluationInfo
from archive_db.sessions import Sessions, require
from dicode.archive.status import learnability, status_letter


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
            session.add(row)
            level.success_rate = rate
            level.status = status_letter(rate)
            level.score = learnability(rate)
            session.flush()
            log_changes(session, level.run_id, levels_changed([level_id]))
            return record_from(EvaluationInfo, row)

    def history(self, level_id: int) -> list[EvaluationInfo]:
        """Every evaluation of a level, in student-iteration order."""
        with self._sessions.reading() as session:
            rows = session.scalars(
                select(Evaluation)
                .where(Evaluation.level_id == level_id)
                .order_by(Evaluation.student_iteration, Evaluation.id)
            )
            return [record_from(EvaluationInfo, r) for r in rows]
