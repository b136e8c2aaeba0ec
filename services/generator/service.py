"""The generator: keeps several generation attempts in flight and stores every one.

Each attempt: pick a parent (DiCode's strict rule, lenient fallback, ∝ learnability) from the
lineage view → build the teacher request (parent code and profile, target profile, the
instruction its status letter implies) → the teacher writes and validates a child in the
sandbox pool → the attempt (and its level, when accepted) is written to the archive in one
transaction as soon as it finishes. Nothing else is kept in memory that matters: after a
`kill -9` a fresh generator re-reads the archive and carries on; an attempt that was in flight
is simply made again.

With ``feedback`` off (open loop) the parent is drawn uniformly from every level, the
instruction uniformly from harder/vary/easier, and the request carries no performance profile.

Back-pressure: no new attempt starts while the run has ``max_untrained`` or more accepted
levels the student has not trained on yet, or while generation is paused (`control`).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from archive_db import ArchiveRepository
from archive_db.kinds import GENERATOR_STAGE, SEED_TEACHER, TARGET_EVENT
from archive_db.recording import attempt_rows, record_result, record_verdict
from dicode import domains
from dicode.archive.config import ArchiveConfig
from dicode.archive.graph import LineageView
from dicode.archive.selection import select_parents
from dicode.levels.pipeline import Validator
from dicode.levels.verdict import SANDBOX_UNAVAILABLE, Verdict, bounded_text
from dicode.settings import GeneratorSettings
from dicode.teachers.base import (
    MutationInstruction,
    ParentLevel,
    PerformanceProfile,
    Teacher,
    TeacherRequest,
    TeacherResult,
)
from dicode.teachers.registry import TeacherContext, make_teacher
from services.generator.control import is_paused

log = logging.getLogger(__name__)
DEFAULT_ARCHIVE = ArchiveConfig()
# Open loop draws the direction uniformly among these (the skill instruction needs feedback).
OPEN_LOOP_INSTRUCTIONS = (
    MutationInstruction.HARDER,
    MutationInstruction.VARY,
    MutationInstruction.EASIER,
)


@dataclass
class GeneratorStats:
    """Counters of this process's life (the archive holds the totals)."""

    started: int = 0
    accepted: int = 0
    rejected: int = 0
    waits: int = 0
    last_latency_s: float | None = None
    latencies: list[float] = field(default_factory=list)

    def as_dict(self) -> dict[str, float | int | None]:
        mean = float(np.mean(self.latencies[-50:])) if self.latencies else None
        return {
            "started": self.started,
            "accepted": self.accepted,
            "rejected": self.rejected,
            "waits": self.waits,
            "last_latency_s": self.last_latency_s,
            "mean_latency_s": mean,
        }


class Generator:
    """Generation for one run of the archive."""

    def __init__(
        self,
        repository: ArchiveRepository,
        run_id: int,
        settings: GeneratorSettings,
        archive: ArchiveConfig = DEFAULT_ARCHIVE,
        *,
        domain: str = "tetris",
        seed: int = 0,
        validator: Validator | None = None,
        teacher: Teacher | None = None,
    ) -> None:
        self.repo = repository
        self.run_id = run_id
        self.settings = settings
        self.archive = archive
        self.domain = domain
        self.seed = seed
        self.validator = validator or Validator(
            domain,
            pool_size=settings.pool_size,
            warm=settings.warm_workers,
            rollout_steps=settings.rollout_steps,
        )
        # One validation at a time: the rollouts share one compiled function and the CPU.
        self._validate_lock = threading.Lock()
        self.teacher = teacher or make_teacher(
            settings.teacher,
            TeacherContext(domain, self._validate, seed, dict(settings.teacher_options)),
        )
        self.view = LineageView()
        self.stats = GeneratorStats()
        self._held_until = 0.0  # no attempt starts before this (monotonic seconds)
        # Parent draws differ per process start (seeded by run seed and attempts so far).
        self._rng = np.random.default_rng([seed, self._attempt_count()])

    # ------------------------------------------------------------------ public
    def close(self) -> None:
        self.validator.close()

    def seed_archive(self) -> int:
        """Validate and store the domain's seed levels not yet recorded for this run.

        Returns how many seed attempts were recorded (0 when the run was already seeded; a
        start interrupted half-way records only the missing ones).
        """
        done = {a.code for a in self.repo.list_attempts(self.run_id, teacher=SEED_TEACHER)}
        count = 0
        for name, source in domains.get(self.domain).seed_sources().items():
            if source in done:
                continue
            started = time.perf_counter()
            verdict = self._validate(source)
            record_verdict(
                self.repo,
                self.run_id,
                self.domain,
                SEED_TEACHER,
                source,
                verdict,
                time.perf_counter() - started,
                name=name,
            )
            count += 1
        return count

    def untrained(self) -> int:
        """Accepted levels the student has not trained on yet (capped at the threshold)."""
        limit = self.settings.max_untrained
        return len(self.repo.list_levels(self.run_id, sampled=False, limit=limit))

    def may_start(self) -> bool:
        """Neither paused, nor held back by untrained levels or an unavailable sandbox."""
        if time.monotonic() < self._held_until:
            return False
        return not is_paused(self.repo, self.run_id) and (
            self.untrained() < self.settings.max_untrained
        )

    async def run(
        self, stop: asyncio.Event | None = None, max_attempts: int | None = None
    ) -> GeneratorStats:
        """Keep ``in_flight`` attempts going until ``stop`` is set or ``max_attempts`` ran."""
        stop = stop or asyncio.Event()
        await asyncio.to_thread(self.seed_archive)
        running: set[asyncio.Task[None]] = set()
        while not stop.is_set():
            if max_attempts is not None and self.stats.started >= max_attempts:
                break
            if len(running) >= self.settings.in_flight or not await asyncio.to_thread(
                self.may_start
            ):
                self.stats.waits += 1
                await _wait_any(running, stop, self.settings.poll_s)
                running = {t for t in running if not t.done()}
                continue
            self.stats.started += 1
            running.add(asyncio.create_task(self.attempt(self.stats.started)))
        if running:
            await asyncio.gather(*running, return_exceptions=True)
        return self.stats

    def generate(self, attempts: int) -> GeneratorStats:
        """``attempts`` attempts one after another, in this thread (no back-pressure, no pause):
        for callers that interleave generation with training, such as the benchmark."""

        async def one_by_one() -> None:
            for _ in range(attempts):
                self.stats.started += 1
                await self.attempt(self.stats.started)

        asyncio.run(one_by_one())
        return self.stats

    async def attempt(self, number: int) -> None:
        """One attempt from parent selection to its archive row; never raises.

        An attempt that fails outside the teacher (parent selection, the archive write) is
        stored too, as rejected at the stage ``generator`` with its error, when the archive
        can still take it.
        """
        parent_id: int | None = None
        result: TeacherResult | None = None
        try:
            request, parent_id = await asyncio.to_thread(self.next_request, number)
            result = await self.teacher.propose(request)
            await asyncio.to_thread(
                record_result, self.repo, self.run_id, result, self.domain, parent_id
            )
            self.stats.last_latency_s = result.latency_s
            self.stats.latencies.append(result.latency_s)
            if result.accepted:
                self.stats.accepted += 1
            else:
                self.stats.rejected += 1
            if result.failing_stage == SANDBOX_UNAVAILABLE:
                self._hold_for_sandbox(result.error)
        except Exception as exc:  # a broken attempt is stored and logged; generation goes on
            log.exception("generation attempt %d failed outside the teacher", number)
            self.stats.rejected += 1
            await asyncio.to_thread(self._record_failure, parent_id, result, exc)

    def _record_failure(
        self, parent_id: int | None, result: TeacherResult | None, exc: Exception
    ) -> None:
        attempt, _ = attempt_rows(
            domain=self.domain,
            teacher=self.teacher.name,
            code=None if result is None else result.code,
            verdict=None,
            latency_s=0.0 if result is None else result.latency_s,
            parent_id=parent_id,
            failing_stage=GENERATOR_STAGE,
            error=bounded_text(
                f"the attempt failed outside the teacher: {type(exc).__name__}: {exc}"
            ),
        )
        try:
            self.repo.record_attempt(self.run_id, attempt)
        except Exception:  # the archive itself is down: nothing more can be kept
            log.exception("could not store the failed attempt either")

    def _hold_for_sandbox(self, reason: str | None) -> None:
        """The sandbox cannot run levels here: say so loudly and start no attempt for a while
        (each would be rejected the same way)."""
        log.error("%s; next attempt in %g s", reason, self.settings.sandbox_retry_s)
        self._held_until = time.monotonic() + self.settings.sandbox_retry_s

    # ------------------------------------------------------------------ internals
    def _validate(self, source: str) -> Verdict:
        with self._validate_lock:
            return self.validator.validate(source, seed=self.seed)

    def _attempt_count(self) -> int:
        stats = self.repo.stats(self.run_id)  # counts rows; no attempt is loaded
        return stats.accepted + stats.rejected

    def next_request(self, number: int) -> tuple[TeacherRequest, int]:
        """The teacher request of attempt ``number`` and its parent's id (draws the parent)."""
        self.view.refresh(self.repo, self.run_id)
        columns = self.view.columns()
        if columns.ids.size == 0:
            raise RuntimeError("the run has no level to generate from (seed it first)")
        if not self.settings.feedback:
            parent_id = int(self._rng.choice(columns.ids))
            level = self.repo.get_level(parent_id)
            parent = ParentLevel(level.description, level.code, level_id=str(parent_id))
            instruction = MutationInstruction(self._rng.choice(list(OPEN_LOOP_INSTRUCTIONS)))
            seed = int(self._rng.integers(2**31)) + number
            return TeacherRequest(parent, PerformanceProfile(), instruction, seed=seed), parent_id
        parent_id = int(select_parents(columns, 1, self._rng, self.archive)[0])
        level = self.repo.get_level(parent_id)
        history = tuple(
            e.success_rate for e in self.repo.level_history(parent_id) if e.success_rate is not None
        )
        parent = ParentLevel(
            description=level.description,
            code=level.code,
            profile=PerformanceProfile(success_rate_history=history),
            level_id=str(parent_id),
        )
        newest = self._newest_target_evaluation()
        profile = self._target_profile(newest)
        seed = int(self._rng.integers(2**31)) + number
        skill = self._skill_to_teach(newest)
        if skill is not None:
            skilled = MutationInstruction.SKILL
            request = TeacherRequest(parent, profile, skilled, seed=seed, skill=skill)
        else:
            request = TeacherRequest.for_parent(parent, profile, seed=seed)
        return request, parent_id

    def _newest_target_evaluation(self) -> dict[str, Any]:
        evals = self.repo.list_events(run_id=self.run_id, kind=TARGET_EVENT)
        return dict(evals[-1].payload) if evals else {}

    def _target_profile(self, newest: dict[str, Any]) -> PerformanceProfile:
        """The target student's profile: headline figures, skills and the world's reading."""
        if not newest:
            return PerformanceProfile()
        world = domains.get(self.domain)
        numbers = {
            k: float(v)
            for k, v in newest.items()
            if isinstance(v, int | float) and not isinstance(v, bool)
        }
        skills = {k: float(v) for k, v in dict(newest.get("skills", {})).items()}
        return PerformanceProfile(
            goal_metrics={name: numbers[name] for name in world.target_metrics if name in numbers},
            skills=skills,
            figures=numbers,
            notes=world.describe_skills(newest),
        )

    def _skill_to_teach(self, newest: dict[str, Any]) -> str | None:
        """With probability ``skill_share``, one of the world's first frontier skills."""
        if not newest or self._rng.random() >= self.settings.skill_share:
            return None
        frontier = domains.get(self.domain).frontier_skills(newest)[: self.settings.skill_choices]
        return str(self._rng.choice(frontier)) if frontier else None


async def _wait_any(running: set[asyncio.Task[None]], stop: asyncio.Event, timeout: float) -> None:
    """Until an attempt finishes, ``stop`` is set, or ``timeout`` passes."""
    stopper = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({*running, stopper}, timeout=timeout, return_when="FIRST_COMPLETED")
    finally:
        stopper.cancel()
