"""Curriculum methods at equal environment steps, for any world, each run in one process.

Every method trains ONE student — the world's trainer (``Domain.make_trainer``) with the same
configuration — for the same number of environment steps (every slot's steps count), in
sessions of ``iterations_per_session`` iterations. Before every session the mutation teacher
writes ``levels_per_session`` levels through the real `Generator` (sandbox validation, a fresh
SQLite archive in the run's folder), synchronously and seeded, so a run is reproducible from its
seed. The methods differ in two choices only:

| method | generation | the free slots (after the target's), ``ArchiveSchedule`` rule |
|---|---|---|
| ``target`` | none | the target game |
| ``dr`` | open loop | ``dr``: uniform over every level (seed levels + generated) |
| ``plr`` | open loop | ``plr``: new levels up to their share, PLR replay over the measured |
| ``sfl`` | open loop | ``sfl``: new levels up to their share, uniform over the most learnable |
| ``dicode`` | closed loop | ``dicode``: new levels up to their share, PLR over the active set |
| ``dicode_ol`` | open loop | as ``dicode`` |
| ``ued_dr``, ``robust_plr``, ``accel`` | none | maze only: the literature's curricula (below) |

Closed loop = the generator's DiCode parent selection (strict candidates ∝ learnability) and
the instruction from the parent's status letter, and — once the target student has been
evaluated (every curve point is written to the run as a target event) — with probability
``GeneratorSettings.skill_share`` a SKILL instruction for one of the world's frontier skills;
open loop = ``GeneratorSettings.feedback =
False`` (parent and instruction uniform, no profile). Every method that generates writes the
student's outcomes back, so statuses and learnability are in the archive whether or not the
method reads them; only ``dicode`` and ``dicode_ol`` admit levels to the bounded active set.

``ued_dr``, ``robust_plr`` and ``accel`` are the literature's curricula on the maze (one level
per env, no target slot, no teacher; ``dicode.domains.maze.student.ued``, settings
``MethodConfig.ued``).

This lives in ``services/`` because it composes the generator service with the library's
student; the library (``dicode/``) never imports services.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from archive_db import ArchiveRepository
from archive_db.kinds import TARGET_EVENT
from dicode import domains
from dicode.archive.config import ArchiveConfig
from dicode.domains.maze.student.config import UEDConfig
from dicode.levels.pipeline import Validator
from dicode.settings import EvaluatorSettings, GeneratorSettings, StudentSettings
from dicode.student.archive_schedule import ArchiveSchedule
from dicode.student.curriculum import SlotCounts
from dicode.student.loop import CurvePoint, StudentLoop, train, write_curve
from dicode.student.run_log import TensorBoardLog
from services.generator.service import Generator


@dataclass(frozen=True)
class Method:
    """How a method generates levels and fills the free slots."""

    generation: str | None  # None, "open" or "closed" loop
    rule: str | None  # the ArchiveSchedule slot rule; None: every slot plays the target
    admit: bool  # DiCode's active-set admission after every session


METHODS: dict[str, Method] = {
    "target": Method(None, None, admit=False),
    "dr": Method("open", "dr", admit=False),
    "plr": Method("open", "plr", admit=False),
    "sfl": Method("open", "sfl", admit=False),
    "dicode": Method("closed", "dicode", admit=True),
    "dicode_ol": Method("open", "dicode", admit=True),
}
#: The literature's curricula (maze only; ``dicode.domains.maze.student.ued``): method -> its
#: UED method.
UED_METHODS = {"ued_dr": "dr", "robust_plr": "robust_plr", "accel": "accel"}


@dataclass(frozen=True)
class MethodConfig:
    """What every method of one comparison shares."""

    domain: str = "tetris"
    student: StudentSettings = field(default_factory=StudentSettings)  # ppo: the world's
    evaluator: EvaluatorSettings = field(default_factory=EvaluatorSettings)  # the protocol
    generator: GeneratorSettings = field(default_factory=GeneratorSettings)
    archive: ArchiveConfig = field(default_factory=ArchiveConfig)
    levels_per_session: int = 2  # generation attempts before every session
    sfl_top_k: int = 8  # SFL's buffer: the k most learnable measured levels
    eval_points: int = 4  # curve evaluations after the one at step 0
    ued: UEDConfig | None = None  # the UED methods' settings (None: JaxUED's defaults)

    def to_dict(self) -> dict[str, Any]:
        values = {k: v for k, v in asdict(self).items() if k != "student"}
        if self.ued is None:  # absent, so configs (and run keys) without it are unchanged
            values.pop("ued")
        return values | {"student": self.student.to_dict()}


@dataclass(frozen=True)
class MethodResult:
    """One run: the final target figures, their cost and what the teacher produced."""

    method: str
    seed: int
    target: dict[str, Any]  # the protocol's figures, the headline first, skills under "skills"
    env_steps: int
    wall_s: float
    train_s: float
    train_cpu_s: float
    generation_s: float
    attempts: int
    accepted: int
    levels_trained: int  # distinct levels the student trained on
    slots: dict[str, int]  # slot-sessions by kind: target, new, replay, new_over_share
    run_dir: str
    curve: list[tuple[int, float]]  # (env steps, headline figure) at every target evaluation
    # Per evaluation after the first, what the curriculum trained on since the one before
    # (env steps first; the literature's loops fill it, ``ued.TrainedLevels``).
    trace: list[dict[str, float]] = field(default_factory=list)


def run_method(
    method: str,
    env_steps: int,
    seed: int,
    out: Path,
    config: MethodConfig,
    validator: Validator | None = None,
    tensorboard: bool = False,
) -> MethodResult:
    """Train ``method`` from training seed ``seed`` for ``env_steps`` steps under ``out``.

    Writes ``out/<method>_s<seed>/``: ``config.json`` (settings and result), ``curve.csv``,
    ``curve.png``, for the curricula ``archive.sqlite`` (a fresh one every run) and, with
    ``tensorboard``, TensorBoard's event files in ``tensorboard/``.
    ``validator`` lets several runs share one warm sandbox pool (it is not closed here).
    """
    if method in UED_METHODS:
        return _run_ued(method, env_steps, seed, out, config, tensorboard)
    if method not in METHODS:
        known = [*METHODS, *UED_METHODS]
        raise ValueError(f"unknown method {method!r}; known: {', '.join(known)}")
    chosen = METHODS[method]
    world = domains.get(config.domain)
    started = time.perf_counter()
    run_dir = out / f"{method}_s{seed}"
    run_dir.mkdir(parents=True, exist_ok=True)
    for stale in run_dir.glob("archive.sqlite*"):
        stale.unlink()
    student = replace(config.student, ppo=replace(config.student.ppo, seed=seed))
    settings = {"method": method, "seed": seed, "env_steps": env_steps} | config.to_dict()
    settings["student"] = student.to_dict()
    every = max(env_steps // config.eval_points, 1)
    sessions = student.iterations_per_session
    trainer = world.make_trainer(student, config.evaluator)
    generation_s, attempts, accepted, trained = 0.0, 0, 0, 0
    run_log = TensorBoardLog(run_dir / "tensorboard") if tensorboard else None
    if chosen.rule is None:
        curve = train(StudentLoop(trainer), env_steps, sessions, every, log=False, run_log=run_log)
        played = -(-curve[-1].iteration // sessions)  # sessions, the last one maybe short
        slots = SlotCounts(target=played * trainer.num_slots).to_dict()
    else:
        repo = ArchiveRepository.open(f"sqlite:///{run_dir / 'archive.sqlite'}")
        generator_settings = replace(config.generator, feedback=chosen.generation == "closed")
        settings["generator"] = asdict(generator_settings)
        run = repo.runs.create(f"{method}_s{seed}", domain=world.name, seed=seed, config=settings)
        generator = Generator(
            repo, run.id, generator_settings, config.archive, domain=world.name, seed=seed,
            validator=validator,
        )  # fmt: skip
        try:
            generator.seed_archive()
            schedule = ArchiveSchedule(
                repo, run.id, world, rule=chosen.rule, archive=config.archive,
                mix=student.curriculum, seed=seed, admit=chosen.admit,
                sfl_top_k=config.sfl_top_k,
            )  # fmt: skip

            def generate() -> None:
                nonlocal generation_s
                t0 = time.perf_counter()
                generator.generate(config.levels_per_session)
                generation_s += time.perf_counter() - t0

            def show_teacher(point: CurvePoint) -> None:
                # The generator reads the newest target evaluation of its run (closed loop).
                payload = {"iteration": point.iteration, **point.target}
                repo.events.add(TARGET_EVENT, payload, run_id=run.id)

            loop = StudentLoop(trainer, schedule)
            curve = train(
                loop, env_steps, sessions, every, log=False,
                before_session=generate, after_evaluation=show_teacher, run_log=run_log,
            )  # fmt: skip
            attempts = generator.stats.accepted + generator.stats.rejected
            accepted = generator.stats.accepted
            trained = len(repo.list_levels(run.id, sampled=True))
            slots = schedule.counts.to_dict()
        finally:
            if validator is None:
                generator.close()
            repo.close()
    if run_log is not None:
        run_log.close()
    headline = world.target_metrics[0]
    result = _result(
        method, seed, curve, headline, started, generation_s, attempts, accepted, trained,
        slots, run_dir,
    )  # fmt: skip
    return _record(run_dir, curve, headline, settings, result)


def _run_ued(
    method: str, env_steps: int, seed: int, out: Path, config: MethodConfig, tensorboard: bool
) -> MethodResult:
    """A literature curriculum on the maze (``dicode.domains.maze.student.ued``): the same records
    as every method; ``slots`` counts iterations by branch (new / replay / mutate) and those
    with a gradient step, ``levels_trained`` the distinct levels trained on."""
    if config.domain != "maze":
        raise ValueError(f"{method} runs on the maze only, not {config.domain!r}")
    from dicode.domains.maze.student.trainer import MazeSlotTrainer
    from dicode.domains.maze.student.ued import run_ued

    started = time.perf_counter()
    run_dir = out / f"{method}_s{seed}"
    run_dir.mkdir(parents=True, exist_ok=True)
    ued = replace(config.ued or UEDConfig(), method=UED_METHODS[method])
    student = replace(config.student, ppo=replace(config.student.ppo, seed=seed))
    settings = {"method": method, "seed": seed, "env_steps": env_steps} | config.to_dict()
    settings["student"], settings["ued"] = student.to_dict(), asdict(ued)
    trainer = MazeSlotTrainer(student.ppo, config.evaluator.games, config.evaluator.max_steps)
    every = max(env_steps // config.eval_points, 1)
    run_log = TensorBoardLog(run_dir / "tensorboard") if tensorboard else None
    curve, counts, _ = run_ued(trainer, ued, env_steps, every, seed, run_log=run_log)
    if run_log is not None:
        run_log.close()
    headline = domains.get("maze").target_metrics[0]
    result = _result(
        method, seed, curve, headline, started, 0.0, 0, 0, len(counts.trained),
        counts.to_dict(), run_dir,
    )  # fmt: skip
    return _record(run_dir, curve, headline, settings, result)


def _record(
    run_dir: Path,
    curve: list[CurvePoint],
    headline: str,
    settings: dict[str, Any],
    result: MethodResult,
) -> MethodResult:
    """Write a run's curve (CSV and PNG) and its settings with the result into ``run_dir``."""
    write_curve(curve, run_dir / "curve.csv", run_dir / "curve.png", headline)
    settings["result"] = asdict(result)
    (run_dir / "config.json").write_text(json.dumps(settings, indent=2, default=str) + "\n")
    return result


def _result(
    method: str,
    seed: int,
    curve: list[CurvePoint],
    headline: str,
    started: float,
    generation_s: float,
    attempts: int,
    accepted: int,
    trained: int,
    slots: dict[str, int],
    run_dir: Path,
) -> MethodResult:
    final = curve[-1]
    return MethodResult(
        method=method,
        seed=seed,
        target=dict(final.target),
        env_steps=final.env_steps,
        wall_s=round(time.perf_counter() - started, 1),
        train_s=final.train_seconds,
        train_cpu_s=final.train_cpu_seconds,
        generation_s=round(generation_s, 1),
        attempts=attempts,
        accepted=accepted,
        levels_trained=trained,
        slots=slots,
        run_dir=str(run_dir),
        curve=[(p.env_steps, float(p.target[headline])) for p in curve],
        trace=[{"env_steps": p.env_steps} | p.curriculum for p in curve if p.curriculum],
    )
