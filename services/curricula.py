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
``MethodConfig.ued``). They, and ``target`` on a world that runs its target game on the device
(the maze, Tetris), train as a device program (``services/seed_runs.py``): here a program of
one seed; the experiment runner gives it an arm's seeds at once.

This lives in ``services/`` because it composes the generator service with the library's
student; the library (``dicode/``) never imports services.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from archive_db import ArchiveRepository
from archive_db.kinds import TARGET_EVENT
from dicode import domains
from dicode.levels.pipeline import Validator
from dicode.student.archive_schedule import ArchiveSchedule
from dicode.student.curriculum import SlotCounts
from dicode.student.loop import CurvePoint, StudentLoop, train
from dicode.student.run_log import TensorBoardLog
from services.generator.service import Generator
from services.method_records import (
    REVERSE_METHOD,
    UED_METHODS,
    MethodConfig,
    MethodResult,
    elapsed,
    method_result,
    write_run,
)
from services.seed_runs import batches_seeds, run_seeds

__all__ = ["METHODS", "UED_METHODS", "Method", "MethodConfig", "MethodResult", "run_method"]


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
    if batches_seeds(method, config):  # target-only and the literature's loops
        return run_seeds(method, env_steps, [seed], out, config, tensorboard)[0]
    if method in UED_METHODS or method == REVERSE_METHOD:
        raise ValueError(f"{method} runs on the maze only, not {config.domain!r}")
    if method not in METHODS:
        known = [*METHODS, *UED_METHODS, REVERSE_METHOD]
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
                generator.generate(config.levels_per_session, hold_back=config.back_pressure)
                generation_s += time.perf_counter() - t0

            def show_teacher(point: CurvePoint) -> None:
                # The generator reads the newest target evaluation of its run (closed loop).
                payload = {"iteration": point.iteration, **point.target}
                repo.events.add(TARGET_EVENT, payload, run_id=run.id)
                if point.iteration:  # the record's trace: did each mechanism run?
                    point.curriculum = teaching_figures(schedule, generator)

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
    result = method_result(
        method, seed, curve, headline, elapsed(started), run_dir, slots, trained,
        teacher=(generation_s, attempts, accepted),
    )  # fmt: skip
    return write_run(run_dir, curve, headline, settings, result)


def teaching_figures(schedule: ArchiveSchedule, generator: Generator) -> dict[str, float]:
    """What the curriculum's mechanisms did so far, for a curve point's ``curriculum`` (the
    record's ``trace``): the target's current share of the slots, the transfer scores' summary
    (``transfer_*``; ``ArchiveSchedule.transfer_summary``), and the teacher's attempts by parent
    origin (``parents_archive`` / ``parents_target`` / ``parents_target_line``: aimed at the
    target or not; ``services.generator.service.PARENT_ORIGINS``) and by
    instruction (``instruction_*``), all counted from the run's start; and the mean difficulty
    of what was trained since the point before (``trained_*``, where the world measures it)."""
    figures: dict[str, float] = {"target_share": schedule.mix.target_fraction}
    summary = schedule.transfer_summary()
    figures |= {
        (k if k.startswith("transfer") else f"transfer_{k}"): float(v)
        for k, v in summary.items()
        if v is not None
    }
    stats = generator.stats.as_dict()
    figures |= {f"parents_{kind}": n for kind, n in stats["parents"].items()}
    figures |= {f"instruction_{name}": n for name, n in stats["instructions"].items()}
    return figures | schedule.trained_difficulty()
