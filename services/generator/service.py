"""The generator: keeps several generation attempts in flight and stores every one.

Each attempt: pick a parent (DiCode's strict rule, lenient fallback, ∝ learnability) from the
lineage view → build the teacher request (parent code and profile, target profile, the
instruction its status letter implies) → the teacher writes and validates a child in the
sandbox pool → the attempt (and its level, when accepted) is written to the archive in one
transaction as soon as it finishes. Nothing else is kept in memory that matters: after a
`kill -9` a fresh generator re-reads the archive and carries on; an attempt that was in flight
is simply made again.

With ``target_aim`` above 0 (closed loop), that share of attempts is aimed at the target. The
first ones take as parent the target game itself aimed at what the target student fails there
(``Domain.target_parent``, written by the world from the run's student configuration and the
newest target evaluation; not an archive level, so its child is stored without a parent id, its
kind and reasoning saying so) and ask for an easier child: the root of a *target line*. Once a
level of a target line has been measured, aimed attempts take the line's newest measured rung
as parent and step it on the ladder (``ladder_instruction``: its latest success against 0.5 ±
``ladder_band``: harder, vary or easier), so the line walks towards the student's frontier on
the target's own levels. The other archive parents step the same ladder instead of following
their status letters. A world that cannot write a target-derived parent (yet) gets an archive
parent instead. The counters (`GeneratorStats`) say how many attempts had which origin of
parent (``PARENT_ORIGINS``) and which instruction.

With ``feedback`` off (open loop) the parent is drawn uniformly from every level, the
instruction uniformly from harder/vary/easier, and the request carries no performance profile.

Back-pressure: no new attempt starts while the run has ``max_untrained`` or more accepted
levels the student has not trained on yet, or while generation is paused (`control`).

Several generators may share one archive. A parent drawn under the strict rule counts this
process's attempts still in flight on it as children, and its child is stored only if the
parent has fewer than ``max_children`` children when the level is written (the parent row is
locked for that), else the attempt is stored as rejected at stage ``generator``. Seed levels
are recorded once per run, whoever seeds first.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

import networkx as nx
import numpy as np

from archive_db import ArchiveRepository
from archive_db.errors import Outage, ParentFullError, is_unreachable
from archive_db.kinds import GENERATOR_STAGE, HUMAN_TEACHER, SEED_TEACHER, TARGET_EVENT
from archive_db.recording import attempt_rows, record_result
from archive_db.records import AttemptFilter, LevelFilter
from dicode import domains
from dicode.archive.config import ArchiveConfig
from dicode.archive.graph import LevelColumns, LineageView
from dicode.archive.selection import select_parents, strict_in_force
from dicode.levels.pipeline import Validator
from dicode.levels.sandbox import SandboxUnavailable
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
GENERATING = "seeding done, generating:"  # logged once the loop starts (fleets wait for it)
# Levels no teacher wrote: without a parent they are not target-derived.
_NOT_TAUGHT = frozenset({SEED_TEACHER, HUMAN_TEACHER})
# Open loop draws the direction uniformly among these (the skill instruction needs feedback).
OPEN_LOOP_INSTRUCTIONS = (
    MutationInstruction.HARDER,
    MutationInstruction.VARY,
    MutationInstruction.EASIER,
)


# Where an attempt's parent came from, as the counters say it: an archive level drawn by the
# archive's rule, the world's target-derived parent, or the newest measured rung of a target line
# (an archive level descended from a target-derived parent; `Generator._target_rung`).
ARCHIVE_ORIGIN, TARGET_ORIGIN, TARGET_LINE_ORIGIN = "archive", "target", "target_line"
PARENT_ORIGINS = (ARCHIVE_ORIGIN, TARGET_ORIGIN, TARGET_LINE_ORIGIN)


@dataclass(frozen=True)
class ParentDraw:
    """One attempt's parent and teacher request; ``parent_id`` is None for a target-derived
    parent (not an archive level); ``child_limit`` is set when the parent was drawn under the
    strict rule (the child is then stored only while the parent has room)."""

    request: TeacherRequest
    parent_id: int | None
    child_limit: int | None = None
    origin: str = ARCHIVE_ORIGIN  # one of ``PARENT_ORIGINS``, for the counters


@dataclass
class GeneratorStats:
    """Counters of this process's life (the archive holds the totals). ``parents`` and
    ``instructions`` count the attempts drawn by parent kind (``archive`` / ``target``) and by
    the instruction asked, so a record can say whether the teacher aimed at the target."""

    started: int = 0
    accepted: int = 0
    rejected: int = 0
    parent_full: int = 0  # rejected: a concurrent attempt gave the strict parent its last child
    waits: int = 0
    last_latency_s: float | None = None
    latencies: list[float] = field(default_factory=list)
    parents: Counter[str] = field(default_factory=Counter)
    instructions: Counter[str] = field(default_factory=Counter)

    def count(self, draw: ParentDraw) -> None:
        """One attempt drawn: where its parent came from and its instruction."""
        self.parents[draw.origin] += 1
        self.instructions[str(draw.request.instruction)] += 1

    def as_dict(self) -> dict[str, Any]:
        mean = float(np.mean(self.latencies[-50:])) if self.latencies else None
        return {
            "started": self.started,
            "accepted": self.accepted,
            "rejected": self.rejected,
            "parent_full": self.parent_full,
            "waits": self.waits,
            "last_latency_s": self.last_latency_s,
            "mean_latency_s": mean,
            "parents": {origin: self.parents[origin] for origin in PARENT_ORIGINS},
            "instructions": dict(sorted(self.instructions.items())),
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
        stream: int | None = None,
    ) -> None:
        """``stream`` separates the parent draws of generators started together on one run
        (the process id does); without it the draws depend on the run alone (reproducible)."""
        self.repo = repository
        self.run_id = run_id
        self.settings = settings
        self.archive = archive
        self.world = domains.get(domain)
        self.seed = seed
        self.validator = validator or Validator(
            self.world,
            pool_size=settings.pool_size,
            warm=settings.warm_workers,
            rollout_steps=settings.rollout_steps,
        )
        # One validation at a time: the rollouts share one compiled function and the CPU.
        self._validate_lock = threading.Lock()
        self.teacher = teacher or make_teacher(
            settings.teacher,
            TeacherContext(
                self.world,
                self._validate,
                seed,
                _teacher_options(settings, seed),
                settings.in_flight,
            ),
        )
        # The run's student configuration names the target game's variant (the maze's family)
        # a target-derived parent is written for; read from the run's stored config, as every
        # service reads its settings.
        self._student = self._stored_student() if settings.target_aim > 0 else None
        self.view = LineageView()
        self.stats = GeneratorStats()
        self._held_until = 0.0  # no attempt starts before this (monotonic seconds)
        self._outage = Outage(log)
        # Parent draws differ per process start (seeded by run seed and attempts so far).
        key = [seed, self._attempt_count()] + ([] if stream is None else [stream])
        self._rng = np.random.default_rng(key)
        # Draws read and refresh the view and count in-flight strict children: one at a time.
        self._draw_lock = threading.Lock()
        self._in_flight_children: Counter[int] = Counter()

    # ------------------------------------------------------------------ public
    def close(self) -> None:
        self.validator.close()

    def seed_archive(self) -> int:
        """Validate and store the domain's seed levels not yet recorded for this run.

        Returns how many seed attempts were recorded (0 when the run was already seeded; a
        start interrupted half-way records only the missing ones). Raises `SandboxUnavailable`
        when the sandbox cannot run the seeds here: nothing is recorded then, since the verdict
        says nothing about the level, and a stored rejection would keep the seed from ever
        being validated once the sandbox is back.
        """
        seeded = self.repo.attempts.listing(self.run_id, AttemptFilter(teacher=SEED_TEACHER))
        done = {a.code for a in seeded}
        count = 0
        for name, source in self.world.seed_sources().items():
            if source in done:
                continue
            started = time.perf_counter()
            verdict = self._validate(source)
            if verdict.stage == SANDBOX_UNAVAILABLE:
                raise SandboxUnavailable(verdict.error or "the sandbox is unavailable")
            attempt, level = attempt_rows(
                domain=self.world.name,
                teacher=SEED_TEACHER,
                code=source,
                verdict=verdict,
                latency_s=time.perf_counter() - started,
                name=name,
            )
            # Another generator of the run may have recorded it while this one validated.
            if self.repo.attempts.record_once(self.run_id, attempt, level) is not None:
                count += 1
        return count

    def untrained(self) -> int:
        """Accepted levels the student has not trained on yet (capped at the threshold)."""
        limit = self.settings.max_untrained
        return len(self.repo.levels.listing(self.run_id, LevelFilter(sampled=False), limit=limit))

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
        if not await self._seed_when_possible(stop):
            return self.stats
        running: set[asyncio.Task[None]] = set()
        while not stop.is_set():
            if max_attempts is not None and self.stats.started >= max_attempts:
                break
            if len(running) >= self.settings.in_flight or not await self._may_start_now():
                self.stats.waits += 1
                await _wait_any(running, stop, self.settings.poll_s)
                running = {t for t in running if not t.done()}
                continue
            self.stats.started += 1
            running.add(asyncio.create_task(self.attempt(self.stats.started)))
        if running:
            await asyncio.gather(*running, return_exceptions=True)
        return self.stats

    async def _seed_when_possible(self, stop: asyncio.Event) -> bool:
        """`seed_archive`, retried while the sandbox cannot run the seeds (the service keeps
        running and says why); False when ``stop`` came first."""
        while not stop.is_set():
            try:
                seeded = await asyncio.to_thread(self.seed_archive)
            except SandboxUnavailable as unavailable:
                self._hold_for_sandbox(str(unavailable))
                await _wait_any(set(), stop, self.settings.sandbox_retry_s)
                continue
            log.info("%s %d seed level(s) stored by this process", GENERATING, seeded)
            return True
        return False

    async def _may_start_now(self) -> bool:
        """`may_start`, or False while the archive is unreachable (a database restart): the
        generator waits for it instead of exiting, so compose does not restart it in a loop."""
        try:
            allowed = await asyncio.to_thread(self.may_start)
        except Exception as error:
            if not is_unreachable(error):
                raise
            self._outage.began(error)
            return False
        self._outage.ended()
        return allowed

    def generate(self, attempts: int, hold_back: bool = False) -> GeneratorStats:
        """``attempts`` attempts one after another, in this thread (no pause): for callers that
        interleave generation with training, such as the benchmark. With ``hold_back`` it stops
        early once ``max_untrained`` accepted levels await training, as the service's
        back-pressure does, so each level is written for the student as it is now instead of
        queueing behind levels written for an earlier one."""

        async def one_by_one() -> None:
            for _ in range(attempts):
                if hold_back and self.untrained() >= self.settings.max_untrained:
                    break
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
        draw: ParentDraw | None = None
        parent_id: int | None = None
        result: TeacherResult | None = None
        try:
            draw = await asyncio.to_thread(self._draw, number)
            parent_id = draw.parent_id
            self.stats.count(draw)
            result = await self.teacher.propose(draw.request)
            await asyncio.to_thread(
                record_result,
                self.repo,
                self.run_id,
                result,
                self.world.name,
                parent_id,
                child_limit=draw.child_limit,
            )
            self.stats.last_latency_s = result.latency_s
            self.stats.latencies.append(result.latency_s)
            if result.accepted:
                self.stats.accepted += 1
            else:
                self.stats.rejected += 1
            if result.failing_stage == SANDBOX_UNAVAILABLE:
                self._hold_for_sandbox(result.error)
        except ParentFullError as full:  # lost the race for the parent's last child slot
            log.info("generation attempt %d: %s", number, full)
            self.stats.rejected += 1
            self.stats.parent_full += 1
            await asyncio.to_thread(self._record_failure, parent_id, result, full)
        except Exception as exc:  # a broken attempt is stored and logged; generation goes on
            log.exception("generation attempt %d failed outside the teacher", number)
            self.stats.rejected += 1
            await asyncio.to_thread(self._record_failure, parent_id, result, exc)
        finally:
            if draw is not None and draw.parent_id is not None and draw.child_limit is not None:
                with self._draw_lock:
                    self._in_flight_children[draw.parent_id] -= 1

    def _record_failure(
        self, parent_id: int | None, result: TeacherResult | None, exc: Exception
    ) -> None:
        attempt, _ = attempt_rows(
            domain=self.world.name,
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
            self.repo.attempts.record(self.run_id, attempt)
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
        stats = self.repo.statistics.counts(self.run_id)  # counts rows; no attempt is loaded
        return stats.accepted + stats.rejected

    def _stored_student(self) -> Any:
        """The run's student configuration as its world reads it (the world's defaults where
        the run stored none)."""
        stored = self.repo.runs.get(self.run_id).config.get("student") or {}
        try:
            return self.world.ppo_config(stored.get("ppo") or {})
        except (TypeError, ValueError) as error:
            raise ValueError(f"run {self.run_id}'s stored student config: {error}") from error

    def next_request(self, number: int) -> tuple[TeacherRequest, int | None]:
        """The teacher request of attempt ``number`` and its parent's id (draws the parent;
        None for a target-derived parent)."""
        with self._draw_lock:
            draw = self._request(number)
        return draw.request, draw.parent_id

    def _draw(self, number: int) -> ParentDraw:
        """`next_request` for an attempt about to run: a strict parent's count of children in
        flight goes up until the attempt ends (`attempt` brings it down)."""
        with self._draw_lock:
            draw = self._request(number)
            if draw.parent_id is not None and draw.child_limit is not None:
                self._in_flight_children[draw.parent_id] += 1
            return draw

    def _request(self, number: int) -> ParentDraw:
        self.view.refresh(self.repo, self.run_id)
        columns = self._with_children_in_flight(self.view.columns())
        if columns.ids.size == 0:
            counts = self.repo.statistics.counts(self.run_id)
            raise RuntimeError(
                f"the run has no level to generate from ({counts.levels} levels, "
                f"{counts.active} active, {counts.rejected} attempts rejected): seed it first"
            )
        if not self.settings.feedback:
            parent_id = int(self._rng.choice(columns.ids))
            level = self.repo.levels.get(parent_id)
            parent = ParentLevel(level.description, level.code, level_id=str(parent_id))
            instruction = MutationInstruction(self._rng.choice(list(OPEN_LOOP_INSTRUCTIONS)))
            seed = int(self._rng.integers(2**31)) + number
            request = TeacherRequest(parent, PerformanceProfile(), instruction, seed=seed)
            return ParentDraw(request, parent_id)
        newest = self._newest_target_evaluation()
        profile = self._target_profile(newest)
        aimed = self._aimed_draw(profile, number)
        if aimed is not None:
            return aimed
        limit = self.archive.max_children if strict_in_force(columns, self.archive) else None
        parent_id = int(select_parents(columns, 1, self._rng, self.archive)[0])
        parent = self._archive_parent(parent_id)
        seed = int(self._rng.integers(2**31)) + number
        skill = self._skill_to_teach(newest)
        if skill is not None:
            skilled = MutationInstruction.SKILL
            request = TeacherRequest(parent, profile, skilled, seed=seed, skill=skill)
        else:
            band = self.settings.ladder_band if self.settings.target_aim > 0 else None
            request = TeacherRequest.for_parent(parent, profile, seed=seed, ladder_band=band)
        return ParentDraw(request, parent_id, limit)

    def _archive_parent(self, parent_id: int) -> ParentLevel:
        """An archive level as a parent, with its measured success history."""
        level = self.repo.levels.get(parent_id)
        measured = self.repo.evaluations.history(parent_id)
        history = tuple(e.success_rate for e in measured if e.success_rate is not None)
        return ParentLevel(
            description=level.description,
            code=level.code,
            profile=PerformanceProfile(success_rate_history=history),
            level_id=str(parent_id),
        )

    def _aimed_draw(self, profile: PerformanceProfile, number: int) -> ParentDraw | None:
        """With probability ``target_aim``, an attempt aimed at the target (None otherwise, or
        when the world cannot write a target-derived parent from this profile): the newest
        measured rung of the target's lines, stepped on the ladder by its success, or — before
        any rung was measured — the world's target game aimed at the student's failures, asked
        for an easier child (the student fails the target)."""
        aim = self.settings.target_aim
        # No draw at all when aiming is off: the parent draws stay as they were without it.
        if aim <= 0 or self._rng.random() >= aim:
            return None
        rung = self._target_rung()
        if rung is not None:
            parent = self._archive_parent(rung)
            seed = int(self._rng.integers(2**31)) + number
            request = TeacherRequest.for_parent(
                parent, profile, seed=seed, ladder_band=self.settings.ladder_band
            )
            return ParentDraw(request, rung, origin=TARGET_LINE_ORIGIN)
        target = self.world.target_parent(self._student, profile, self._rng)
        if target is None:
            return None
        seed = int(self._rng.integers(2**31)) + number
        request = TeacherRequest(target, profile, MutationInstruction.EASIER, seed=seed)
        return ParentDraw(request, None, origin=TARGET_ORIGIN)

    def _target_rung(self) -> int | None:
        """The newest measured level on a target line — a target-derived child or one of its
        descendants — or None. A teacher-written level without a parent is target-derived:
        every other child is stored with its parent. Stepping the newest rung by its success
        walks the line towards p = 0.5 one measured level at a time, as a reverse curriculum
        steps its start (Florensa et al. 2017)."""
        graph = self.view.graph
        roots = [
            node
            for node, teacher in graph.nodes(data="teacher")
            if teacher is not None and teacher not in _NOT_TAUGHT and graph.in_degree(node) == 0
        ]
        line: set[int] = set(roots)
        for root in roots:
            line |= nx.descendants(graph, root)
        measured = [node for node in line if graph.nodes[node].get("success_rate") is not None]
        return max(measured, default=None)

    def _with_children_in_flight(self, columns: LevelColumns) -> LevelColumns:
        """The view's columns with this process's attempts in flight counted as children."""
        pending = {p: n for p, n in self._in_flight_children.items() if n > 0}
        if not pending:
            return columns
        extra = np.array([pending.get(int(i), 0) for i in columns.ids], dtype=np.int32)
        return replace(columns, n_children=columns.n_children + extra)

    def _newest_target_evaluation(self) -> dict[str, Any]:
        """The newest target evaluation's payload, with ``skills_best``: each skill's best rate
        over the run's evaluations so far (a world's frontier may read what regressed)."""
        evals = self.repo.events.listing(run_id=self.run_id, kind=TARGET_EVENT)
        if not evals:
            return {}
        best: dict[str, float] = {}
        for event in evals:
            for name, rate in dict(event.payload.get("skills", {})).items():
                best[name] = max(best.get(name, float(rate)), float(rate))
        return dict(evals[-1].payload) | {"skills_best": best}

    def _target_profile(self, newest: dict[str, Any]) -> PerformanceProfile:
        """The target student's profile: headline figures, skills and the world's reading."""
        if not newest:
            return PerformanceProfile()
        numbers = {
            k: float(v)
            for k, v in newest.items()
            if isinstance(v, int | float) and not isinstance(v, bool)
        }
        skills = {k: float(v) for k, v in dict(newest.get("skills", {})).items()}
        return PerformanceProfile(
            goal_metrics={k: numbers[k] for k in self.world.target_metrics if k in numbers},
            skills=skills,
            figures=numbers,
            start_states=tuple(newest.get("start_states", ())),
            notes=self.world.describe_skills(newest),
        )

    def _skill_to_teach(self, newest: dict[str, Any]) -> str | None:
        """With probability ``skill_share``, one of the world's first frontier skills."""
        if not newest or self._rng.random() >= self.settings.skill_share:
            return None
        frontier = self.world.frontier_skills(newest)[: self.settings.skill_choices]
        return str(self._rng.choice(frontier)) if frontier else None


def _teacher_options(settings: GeneratorSettings, seed: int) -> dict[str, Any]:
    """The run's teacher options as the teacher factories take them.

    A run's settings are stored as JSON, so an ``llm_config`` there is a mapping (e.g.
    ``{"timeout_s": 30, "max_retries": 2}``); the LLM teacher wants an `LLMConfig`. The mapping
    overrides the ``DICODE_LLM_*`` environment (which still names the server), so a deployed
    generator's call deadline and retries can be set per run.
    """
    options = dict(settings.teacher_options)
    llm = options.get("llm_config")
    if settings.teacher == "llm" and isinstance(llm, dict):
        from dicode.llm.client import LLMConfig  # only the LLM teacher needs the openai SDK

        defaults = {"seed": seed, "max_concurrency": settings.in_flight}
        options["llm_config"] = LLMConfig.from_env(**(defaults | llm))
    return options


async def _wait_any(running: set[asyncio.Task[None]], stop: asyncio.Event, timeout: float) -> None:
    """Until an attempt finishes, ``stop`` is set, or ``timeout`` passes."""
    stopper = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({*running, stopper}, timeout=timeout, return_when="FIRST_COMPLETED")
    finally:
        stopper.cancel()
