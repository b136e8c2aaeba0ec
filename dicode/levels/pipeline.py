"""The validation pipeline: level source in, a recorded ``Verdict`` out, never an exception.

Stages, in order (each timed; the first failure names the verdict's stage):

1. ``syntax``        — the source parses;
2. ``static_policy`` — imports, names and attributes obey the policy; docstring and ``build``;
3. ``sandbox_build`` — the sandbox runs ``build`` once per pool instance (level code runs
   nowhere else); when the sandbox cannot put up its walls on this host, the level does not
   run and the verdict names the stage ``sandbox-unavailable`` with the reason and the fix;
4. ``sandbox_answer`` — the worker's answer, hostile data, follows the answer contract: a
   short header, stored members only, exactly the world's fields, dtypes and the requested
   pool size, checked before anything is unpacked (``dicode.levels.answer``);
5. ``schema``        — shapes, dtypes, value ranges, no full rows, spawn area free, one goal;
6. ``rollouts``      — the goal is not provably impossible; the real engine plays every
   instance with a random and a heuristic policy; a level solved at reset is rejected;
   success rates are recorded as difficulty estimates (not gates).

``Validator`` owns the warm sandbox pool and the compiled rollout function, so repeated
validations pay neither start-up nor compilation again.
"""

from __future__ import annotations

import logging
import time

import numpy as np

from dicode.levels.bundle import LevelBundle, source_hash
from dicode.levels.sandbox import SandboxLimits, SandboxPool
from dicode.levels.static_policy import PolicyViolation, check_policy, parse_level
from dicode.levels.verdict import (
    ACCEPTED,
    MAX_WARNING_CHARS,
    SANDBOX_UNAVAILABLE,
    Verdict,
    bounded_text,
)
from dicode.levels.world import LevelWorld

log = logging.getLogger(__name__)


_TOO_DEEP = (
    "the source nests too deeply to {what} (an expression or block nested hundreds of levels "
    "deep); write it flatter"
)


class _Rejected(Exception):
    def __init__(self, stage: str, error: str) -> None:
        super().__init__(error)
        self.stage = stage
        self.error = error


class Validator:
    """Validates level sources for one world; reuse it (it keeps workers warm).

    ``rollout_steps`` = pieces played per instance and policy; ``rollouts=False`` skips the
    engine stage (for tools that only need the pool).
    """

    def __init__(
        self,
        world: LevelWorld,
        *,
        pool_size: int = 32,
        warm: int = 2,
        limits: SandboxLimits | None = None,
        rollout_steps: int = 300,
        rollouts: bool = True,
    ) -> None:
        if not 1 <= pool_size <= 1024:
            raise ValueError(f"pool_size must be in 1..1024, got {pool_size}")
        self.world = world
        self.pool_size = pool_size
        self.sandbox = SandboxPool(
            self.world.builder_module,
            self.world.pool_schema,
            warm=warm,
            limits=limits or self.world.sandbox_limits,
        )
        self._bases: dict[int, dict[str, np.ndarray] | None] = {}
        self._rollouts = self.world.make_rollouts(rollout_steps) if rollouts else None

    def __enter__(self) -> Validator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def warm_up(self) -> Verdict:
        """Validate the world's target game once, so the rollout function is compiled."""
        return self.validate(self.world.target_source())

    def close(self) -> None:
        """Stop the sandbox pool (kills idle workers)."""
        self.sandbox.close()

    def validate(self, source: str, *, seed: int = 0) -> Verdict:
        """Run every stage on ``source``; always returns a Verdict (never raises for bad code)."""
        timings: dict[str, float] = {}
        warnings: list[str] = []
        difficulty: dict[str, float] = {}
        bundle: LevelBundle | None = None
        try:
            bundle = self._stages(source, seed, timings, warnings, difficulty)
        except _Rejected as rejected:
            error = bounded_text(rejected.error)
            return Verdict(False, rejected.stage, error, timings, difficulty, _bounded(warnings))
        except Exception as exc:  # a bug on our side: record it against the stage, keep serving
            log.exception("internal error while validating a level")
            stage = next(reversed(timings), "syntax")
            error = bounded_text(f"internal error: {type(exc).__name__}: {exc}")
            return Verdict(False, stage, error, timings, difficulty, _bounded(warnings))
        return Verdict(True, ACCEPTED, None, timings, difficulty, _bounded(warnings), bundle)

    def _base_worlds(self, seed: int) -> dict[str, np.ndarray] | None:
        """The base pool for ``seed`` (made once per seed, in this process), or None."""
        if seed not in self._bases:
            self._bases[seed] = self.world.base_worlds(seed, self.pool_size)
        return self._bases[seed]

    def _stages(
        self,
        source: str,
        seed: int,
        timings: dict[str, float],
        warnings: list[str],
        difficulty: dict[str, float],
    ) -> LevelBundle:
        with _stage("syntax", timings):
            try:
                tree = parse_level(source)
            except SyntaxError as exc:
                where = f"line {exc.lineno}: " if exc.lineno else ""
                raise _Rejected("syntax", f"{where}{exc.msg}") from None
            except ValueError as exc:  # e.g. null bytes in the source
                raise _Rejected("syntax", str(exc)) from None
            except (RecursionError, MemoryError):
                raise _Rejected("syntax", _TOO_DEEP.format(what="parse")) from None

        with _stage("static_policy", timings):
            try:
                level = check_policy(tree, source)
            except PolicyViolation as exc:
                raise _Rejected("static_policy", str(exc)) from None
            except RecursionError:
                raise _Rejected("static_policy", _TOO_DEEP.format(what="check")) from None

        with _stage("sandbox_build", timings):
            base = self._base_worlds(seed)
            result = self.sandbox.build(source, pool_size=self.pool_size, seed=seed, base=base)
            warnings.extend(result.warnings)
            if result.printed:
                warnings.append(f"the level printed: {result.printed[:500]!r}")
            timings["sandbox_wait"] = result.wait_seconds
            if result.unavailable:
                raise _Rejected(SANDBOX_UNAVAILABLE, result.error or "the sandbox is unavailable")
            if not result.bad_answer and (not result.ok or result.arrays is None):
                raise _Rejected("sandbox_build", result.error or "the build failed")

        with _stage("sandbox_answer", timings):
            if result.bad_answer or result.arrays is None:
                raise _Rejected("sandbox_answer", result.error or "the worker sent no pool")
            pool = result.arrays

        with _stage("schema", timings):
            try:
                goal = self.world.check_pool(pool)
            except ValueError as exc:
                raise _Rejected("schema", str(exc)) from None
            bundle = LevelBundle(
                domain=self.world.name,
                description=level.description,
                goal=goal,
                rules=self.world.rules_of(pool),
                pool=pool,
                source_hash=source_hash(source),
                builder_version=self.world.builder_version,
                seed=seed,
            )

        with _stage("rollouts", timings):
            problem = self.world.impossible_goal(pool)
            if problem:
                raise _Rejected("rollouts", problem)
            if self._rollouts is not None:
                report = self._rollouts.evaluate(pool, seed)
                difficulty.update(report.difficulty)
                if report.solved_at_reset:
                    raise _Rejected(
                        "rollouts",
                        f"solved at reset: the goal already holds in {report.solved_at_reset} "
                        f"of {bundle.pool_size} instances before any piece is placed",
                    )
                if report.problem:
                    raise _Rejected("rollouts", report.problem)
        return bundle


def _bounded(warnings: list[str]) -> list[str]:
    return [bounded_text(w, MAX_WARNING_CHARS) for w in warnings]


class _stage:
    """Times one stage into ``timings[name]`` (also when the stage rejects)."""

    def __init__(self, name: str, timings: dict[str, float]) -> None:
        self.name = name
        self.timings = timings

    def __enter__(self) -> None:
        self.started = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        self.timings[self.name] = time.perf_counter() - self.started


def validate_level(
    source: str,
    world: LevelWorld,
    *,
    pool_size: int = 32,
    seed: int = 0,
    limits: SandboxLimits | None = None,
    rollout_steps: int = 300,
    rollouts: bool = True,
) -> Verdict:
    """Validate one level with a throw-away ``Validator`` (use a ``Validator`` for many)."""
    with Validator(
        world,
        pool_size=pool_size,
        warm=1,
        limits=limits,
        rollout_steps=rollout_steps,
        rollouts=rollouts,
    ) as validator:
        return validator.validate(source, seed=seed)
