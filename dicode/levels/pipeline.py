"""The validation pipeline: level source in, a recorded ``Verdict`` out, never an exception.

Stages, in order (each timed; the first failure names the verdict's stage):

1. ``syntax``        — the source parses;
2. ``static_policy`` — imports, names and attributes obey the policy; docstring and ``build``;
3. ``sandbox_build`` — the sandbox runs ``build`` once per pool instance (level code runs
   nowhere else); when the sandbox cannot put up its walls on this host, the level does not
   run and the verdict names the stage ``sandbox-unavailable`` with the reason and the fix;
4. ``schema``        — shapes, dtypes, value ranges, no full rows, spawn area free, one goal;
5. ``rollouts``      — the goal is not provably impossible; the real engine plays every
   instance with a random and a heuristic policy; a level solved at reset is rejected;
   success rates are recorded as difficulty estimates (not gates).

``Validator`` owns the warm sandbox pool and the compiled rollout function, so repeated
validations pay neither start-up nor compilation again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

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

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RolloutReport:
    """What engine rollouts over a pool found."""

    solved_at_reset: int  # instances whose goal already holds at reset
    difficulty: dict[str, float]  # e.g. random_success, heuristic_success
    problem: str | None = None  # another reason to reject found by playing (e.g. blocked spawn)


class RolloutEvaluator(Protocol):
    """Plays a pool in the real engine; compiled once, reused for every level."""

    def evaluate(self, pool: dict[str, np.ndarray], seed: int) -> RolloutReport: ...


@dataclass(frozen=True)
class DomainSpec:
    """What the pipeline needs from a domain (all NumPy except the lazily made rollouts)."""

    name: str
    builder_version: str
    check_pool: Callable[[dict[str, np.ndarray]], dict[str, int]]
    impossible_goal: Callable[[dict[str, np.ndarray]], str | None]
    make_rollouts: Callable[[int], RolloutEvaluator]
    target_source: str  # the domain's target game as a level (used to warm up)
    # Domains whose levels edit generated worlds (Craftax): (seed, count) -> base pool, made in
    # the parent with the domain's own generator and handed to the sandbox as data.
    make_base: Callable[[int, int], dict[str, np.ndarray]] | None = None
    rules_of: Callable[[dict[str, np.ndarray]], dict[str, float]] | None = None
    default_limits: SandboxLimits | None = None  # when the caller gives none


def _tetris_rollouts(steps: int) -> RolloutEvaluator:
    from dicode.domains.tetris.rollouts import TetrisRollouts  # imports JAX: only when needed

    return TetrisRollouts(steps=steps)


def _tetris_spec() -> DomainSpec:
    from dicode.domains.tetris import level_checks
    from dicode.domains.tetris.builder import BUILDER_VERSION
    from dicode.domains.tetris.seeds import TARGET_LEVEL_FILE

    return DomainSpec(
        name="tetris",
        builder_version=BUILDER_VERSION,
        check_pool=level_checks.check_pool,
        impossible_goal=level_checks.impossible_goal,
        make_rollouts=_tetris_rollouts,
        target_source=TARGET_LEVEL_FILE.read_text(encoding="utf-8"),
    )


class _CraftaxRollouts:
    """Random-policy rollouts over a Craftax pool, as a ``RolloutEvaluator``."""

    def __init__(self, steps: int) -> None:
        from dicode.domains.craftax.rollouts import CraftaxRollouts  # imports JAX: lazily

        self._rollouts = CraftaxRollouts(steps=steps)

    def evaluate(self, pool: dict[str, np.ndarray], seed: int) -> RolloutReport:
        from dicode.domains.craftax.level_checks import pool_to_bundle

        stats = self._rollouts.evaluate(pool_to_bundle(pool), seed)
        difficulty = {
            "random_success": stats.random_success,
            "random_return": stats.random_return,
            "random_length": stats.random_length,
        }
        # A goal that holds at reset is rejected by pool_to_bundle in the schema stage.
        return RolloutReport(solved_at_reset=0, difficulty=difficulty, problem=stats.problem)


def _craftax_base(seed: int, count: int) -> dict[str, np.ndarray]:
    from dicode.domains.craftax.state_codec import generate_base_worlds  # JAX, parent only

    return generate_base_worlds(seed, count)


def _craftax_spec() -> DomainSpec:
    from dicode.domains.craftax import level_checks
    from dicode.domains.craftax.builder import BUILDER_VERSION
    from dicode.domains.craftax.seed_levels import seed_level_source

    return DomainSpec(
        name="craftax",
        builder_version=BUILDER_VERSION,
        check_pool=level_checks.check_pool,
        impossible_goal=level_checks.impossible_goal,
        make_rollouts=_CraftaxRollouts,
        target_source=seed_level_source("target_game"),
        make_base=_craftax_base,
        rules_of=level_checks.rules_of,
        # A Craftax world is ~0.27 MB: a pool of 32 needs a larger answer and more memory.
        default_limits=SandboxLimits(
            wall_seconds=20.0, memory_bytes=1024 * 2**20, answer_bytes=64 * 2**20
        ),
    )


DOMAINS: dict[str, Callable[[], DomainSpec]] = {"tetris": _tetris_spec, "craftax": _craftax_spec}


class _Rejected(Exception):
    def __init__(self, stage: str, error: str) -> None:
        super().__init__(error)
        self.stage = stage
        self.error = error


class Validator:
    """Validates level sources for one domain; reuse it (it keeps workers warm).

    ``rollout_steps`` = pieces played per instance and policy; ``rollouts=False`` skips the
    engine stage (for tools that only need the pool).
    """

    def __init__(
        self,
        domain: str = "tetris",
        *,
        pool_size: int = 32,
        warm: int = 2,
        limits: SandboxLimits | None = None,
        rollout_steps: int = 300,
        rollouts: bool = True,
    ) -> None:
        if domain not in DOMAINS:
            raise ValueError(f"unknown domain {domain!r}; known: {sorted(DOMAINS)}")
        if not 1 <= pool_size <= 1024:
            raise ValueError(f"pool_size must be in 1..1024, got {pool_size}")
        self.spec = DOMAINS[domain]()
        self.pool_size = pool_size
        self.sandbox = SandboxPool(domain, warm=warm, limits=limits or self.spec.default_limits)
        self._bases: dict[int, dict[str, np.ndarray]] = {}
        self._rollouts = self.spec.make_rollouts(rollout_steps) if rollouts else None

    def __enter__(self) -> Validator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def warm_up(self) -> Verdict:
        """Validate the domain's target game once, so the rollout function is compiled."""
        return self.validate(self.spec.target_source)

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
        if self.spec.make_base is None:
            return None
        if seed not in self._bases:
            self._bases[seed] = self.spec.make_base(seed, self.pool_size)
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

        with _stage("static_policy", timings):
            try:
                level = check_policy(tree, source)
            except PolicyViolation as exc:
                raise _Rejected("static_policy", str(exc)) from None

        with _stage("sandbox_build", timings):
            base = self._base_worlds(seed)
            result = self.sandbox.build(source, pool_size=self.pool_size, seed=seed, base=base)
            warnings.extend(result.warnings)
            if result.printed:
                warnings.append(f"the level printed: {result.printed[:500]!r}")
            timings["sandbox_wait"] = result.wait_seconds
            if result.unavailable:
                raise _Rejected(SANDBOX_UNAVAILABLE, result.error or "the sandbox is unavailable")
            if not result.ok or result.arrays is None:
                raise _Rejected("sandbox_build", result.error or "the build failed")
            pool = result.arrays

        with _stage("schema", timings):
            try:
                goal = self.spec.check_pool(pool)
            except ValueError as exc:
                raise _Rejected("schema", str(exc)) from None
            bundle = LevelBundle(
                domain=self.spec.name,
                description=level.description,
                goal=goal,
                rules=self.spec.rules_of(pool) if self.spec.rules_of else {},
                pool=pool,
                source_hash=source_hash(source),
                builder_version=self.spec.builder_version,
                seed=seed,
            )

        with _stage("rollouts", timings):
            problem = self.spec.impossible_goal(pool)
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
    domain: str = "tetris",
    *,
    pool_size: int = 32,
    seed: int = 0,
    limits: SandboxLimits | None = None,
    rollout_steps: int = 300,
    rollouts: bool = True,
) -> Verdict:
    """Validate one level with a throw-away ``Validator`` (use a ``Validator`` for many)."""
    with Validator(
        domain,
        pool_size=pool_size,
        warm=1,
        limits=limits,
        rollout_steps=rollout_steps,
        rollouts=rollouts,
    ) as validator:
        return validator.validate(source, seed=seed)
