"""The Tetris benchmark's students: target-only PPO and five curricula, each run in one process.

Every method trains ONE student — `StudentLoop` with the `PPOConfig` defaults except the slot
layout (5 slots: the target game in one, 20 %) — for the same number of environment steps
(every slot's pieces count), in sessions of ``iterations_per_session`` PPO iterations. Before
every session the mutation teacher writes ``levels_per_session`` levels through the real
`Generator` (sandbox validation, SQLite archive in the run's folder), synchronously and seeded,
so a run is reproducible from its seed. The methods differ in two choices only:

| method | generation | the free slots (after the target's) |
|---|---|---|
| ``ppo`` | none | the target game |
| ``dr`` | open loop | uniform over every level (seed levels + generated) |
| ``plr`` | open loop | new first, then PLR replay over every measured level |
| ``sfl`` | open loop | new first, then uniform over the ``sfl_top_k`` most learnable |
| ``dicode`` | closed loop | new first, then PLR replay over the archive's active set |
| ``dicode_ol`` | open loop | as ``dicode`` |

PLR replay = rank of learnability p(1−p) mixed with staleness (``dicode.archive.replay``); the
active set is bounded (``active_capacity``) and admits by learnability. Closed loop = the
generator's DiCode parent selection (strict candidates ∝ learnability) and the instruction from
the parent's status letter (A harder, B/C vary, D easier); open loop =
``GeneratorSettings.feedback=False`` (parent and instruction uniform, no profile). Every method
that generates writes the student's outcomes back (``ArchiveLevelSource.record``), so statuses
and learnability are in the archive whether or not the method reads them. ``plr`` and
``dicode_ol`` differ only in the replay buffer: every measured level vs the bounded active set.

This lives in ``services/`` because it composes the generator service and the student
service's active-set source; the library (``dicode/``) never imports services.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from archive_db import ArchiveRepository
from dicode.archive.config import ArchiveConfig
from dicode.archive.status import learnability
from dicode.levels.pipeline import Validator
from dicode.student.archive_source import ArchiveLevelSource
from dicode.student.config import PPOConfig
from dicode.student.curriculum import (
    CurriculumConfig,
    CurriculumState,
    plan_learnable,
    plan_slots,
    plan_uniform,
)
from dicode.student.train import (
    CompiledStudent,
    CurvePoint,
    SlotPlanner,
    StudentLoop,
    train,
    write_curve,
)
from services.generator.service import Generator
from services.settings import GeneratorSettings
from services.student.loop import ActiveSetSource

METHODS = ("ppo", "dr", "plr", "sfl", "dicode", "dicode_ol")
_CLOSED_LOOP = frozenset({"dicode"})
_ACTIVE_SET = frozenset({"dicode", "dicode_ol"})


@dataclass(frozen=True)
class MethodConfig:
    """What every method shares; only the layout of the PPO student departs from defaults."""

    # 5 slots: one (20 %) on the target game; 13 envs each = the 64-env batch the defaults were
    # tuned with (more envs per update = fewer updates per env step); pools of 8 = the bundles.
    ppo: PPOConfig = field(
        default_factory=lambda: PPOConfig(num_slots=5, envs_per_slot=13, pool_size=8)
    )
    generator: GeneratorSettings = field(default_factory=GeneratorSettings)
    # DiCode keeps 100 active levels for 15 level slots; the same ratio for our 4 is 27.
    archive: ArchiveConfig = field(default_factory=lambda: ArchiveConfig(active_capacity=27))
    curriculum: CurriculumConfig = field(default_factory=CurriculumConfig)
    iterations_per_session: int = 4  # PPO iterations with fixed slots (~8k pieces)
    levels_per_session: int = 2  # generation attempts before every session (half the free slots)
    sfl_top_k: int = 8  # SFL's buffer: the k most learnable measured levels
    eval_games: int = 20  # target protocol (docs/evaluation.md)
    eval_max_pieces: int = 1_000
    eval_points: int = 4  # curve evaluations after the one at step 0


@dataclass(frozen=True)
class MethodResult:
    """One run: the final greedy target figure, its cost and what the teacher produced."""

    method: str
    seed: int
    target_lines: float
    target_lines_std: float
    env_steps: int
    wall_s: float
    train_s: float
    generation_s: float
    attempts: int
    accepted: int
    run_dir: str


def run_method(
    method: str,
    env_steps: int,
    seed: int,
    out: Path,
    config: MethodConfig = MethodConfig(),
    validator: Validator | None = None,
    compiled: CompiledStudent | None = None,
) -> MethodResult:
    """Train ``method`` from training seed ``seed`` for ``env_steps`` steps under ``out``.

    Writes ``out/<method>_s<seed>/``: ``config.json`` (settings and result), ``curve.csv``,
    ``curve.png`` and, for the curricula, ``archive.sqlite`` (a fresh one every run).
    ``validator`` lets several runs share one warm sandbox pool (it is not closed here) and
    ``compiled`` one compiled student (see :func:`warm_up`).
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; known: {', '.join(METHODS)}")
    started = time.perf_counter()
    run_dir = out / f"{method}_s{seed}"
    run_dir.mkdir(parents=True, exist_ok=True)
    for stale in run_dir.glob("archive.sqlite*"):
        stale.unlink()
    ppo = replace(config.ppo, seed=seed)
    settings = {"method": method, "seed": seed, "env_steps": env_steps, **asdict(config)}
    settings["ppo"] = ppo.to_dict()
    every = max(env_steps // config.eval_points, 1)
    generation_s, attempts, accepted = 0.0, 0, 0
    if method == "ppo":
        loop = _loop(ppo, None, None, config, compiled)
        curve = train(loop, env_steps, config.iterations_per_session, every, log=False)
    else:
        repo = ArchiveRepository.open(f"sqlite:///{run_dir / 'archive.sqlite'}")
        feedback = method in _CLOSED_LOOP
        generator_settings = replace(config.generator, feedback=feedback)
        settings["generator"] = asdict(generator_settings)
        run = repo.create_run(f"{method}_s{seed}", domain="tetris", seed=seed, config=settings)
        generator = Generator(
            repo, run.id, generator_settings, config.archive, seed=seed, validator=validator
        )
        try:
            generator.seed_archive()
            source = (
                ActiveSetSource(repo, run.id, config.archive)
                if method in _ACTIVE_SET
                else ArchiveLevelSource(repo, run.id)
            )
            planner = _planner(method, source, config.sfl_top_k)
            loop = _loop(ppo, source, planner, config, compiled)

            def generate() -> None:
                nonlocal generation_s
                t0 = time.perf_counter()
                generator.generate(config.levels_per_session)
                generation_s += time.perf_counter() - t0

            curve = train(
                loop,
                env_steps,
                config.iterations_per_session,
                every,
                log=False,
                before_session=generate,
            )
            attempts = generator.stats.accepted + generator.stats.rejected
            accepted = generator.stats.accepted
        finally:
            if validator is None:
                generator.close()
            repo.close()
    result = _result(method, seed, curve, started, generation_s, attempts, accepted, run_dir)
    write_curve(curve, run_dir / "curve.csv", run_dir / "curve.png")
    settings["result"] = asdict(result)
    (run_dir / "config.json").write_text(json.dumps(settings, indent=2, default=str) + "\n")
    return result


def warm_up(config: MethodConfig, validator: Validator, compiled: CompiledStudent) -> None:
    """Pay the process's one-off costs before any run is timed: the sandbox's rollout function,
    the student's eager set-up, its compiled iteration and evaluator (one throwaway session)."""
    validator.warm_up()
    loop = _loop(config.ppo, None, None, config, compiled)
    loop.run_session(1)
    loop.evaluate()


def _loop(
    ppo: PPOConfig,
    source: ArchiveLevelSource | None,
    planner: SlotPlanner | None,
    config: MethodConfig,
    compiled: CompiledStudent | None,
) -> StudentLoop:
    return StudentLoop(
        ppo,
        source,
        config.curriculum,
        eval_games=config.eval_games,
        eval_max_pieces=config.eval_max_pieces,
        planner=planner,
        compiled=compiled,
    )


def _planner(method: str, source: ArchiveLevelSource, top_k: int) -> SlotPlanner | None:
    """The slot rule of a baseline; None = the student's default (PLR over the active set)."""

    def uniform(
        state: CurriculumState, num_slots: int, rng: np.random.Generator, config: CurriculumConfig
    ) -> tuple[np.ndarray, np.ndarray, CurriculumState]:
        ids = [level.id for level in source.levels()]
        return plan_uniform(state, num_slots, ids, rng, config)

    def replay_measured(
        state: CurriculumState, num_slots: int, rng: np.random.Generator, config: CurriculumConfig
    ) -> tuple[np.ndarray, np.ndarray, CurriculumState]:
        ids, rates = source.measured()
        scores = [learnability(p) for p in rates]
        return plan_slots(state, num_slots, source.new_levels(), ids, scores, rng, config)

    def learnable(
        state: CurriculumState, num_slots: int, rng: np.random.Generator, config: CurriculumConfig
    ) -> tuple[np.ndarray, np.ndarray, CurriculumState]:
        ids, rates = source.measured()
        new = source.new_levels()
        return plan_learnable(state, num_slots, new, ids, rates, rng, top_k, config)

    planners: dict[str, SlotPlanner] = {
        "dr": uniform,
        "plr": replay_measured,
        "sfl": learnable,
    }
    return planners.get(method)


def _result(
    method: str,
    seed: int,
    curve: Sequence[CurvePoint],
    started: float,
    generation_s: float,
    attempts: int,
    accepted: int,
    run_dir: Path,
) -> MethodResult:
    final = curve[-1]
    return MethodResult(
        method=method,
        seed=seed,
        target_lines=final.target_lines_mean,
        target_lines_std=final.target_lines_std,
        env_steps=final.env_steps,
        wall_s=round(time.perf_counter() - started, 1),
        train_s=final.train_seconds,
        generation_s=round(generation_s, 1),
        attempts=attempts,
        accepted=accepted,
        run_dir=str(run_dir),
    )
