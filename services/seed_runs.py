"""An arm's training seeds as one device program: target-only PPO and the literature's loops.

The methods whose iterations need nothing from the host between evaluations train several
seeds in one compiled program (``dicode.student.seed_program``: the iteration chained on the
device and ``jax.vmap``ped over seeds, each seed with its own parameters, optimiser state,
curriculum state and keys): ``target`` on a world whose trainer runs its target game on the
device (``target_program.DeviceTargetTrainer``: the maze, Tetris), and ``ued_dr``,
``robust_plr`` and ``accel`` on the maze (``dicode.domains.maze.student.ued``), and the
hand-written ``reverse`` curriculum on the maze's target mazes (``...maze.student.reverse``).
Each seed still gets its own run folder and :class:`~services.method_records.MethodResult`,
exactly as a run of ``services/curricula.py``; ``MethodResult.program`` names the seeds it
trained with. A lone seed is a program of one (no vmap). The program saves itself beside the
run folders after every evaluation (``<method>_program_s<seeds>.ckpt``, removed once its runs
are written), and the same program started again goes on from there: an interrupted arm loses
one chunk, not the run (its wall time then counts the last process only; the curve's training
seconds count all). DiCode's methods stay on the host:
their sessions wait on the generator, the sandbox and the archive.
"""

from __future__ import annotations

import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import numpy as np

from dicode import domains
from dicode.domains.maze.student.config import ReverseConfig, UEDConfig
from dicode.student.curriculum import SlotCounts
from dicode.student.loop import CurvePoint, log_evaluation
from dicode.student.run_log import RunLog, TensorBoardLog
from dicode.student.seed_program import Checkpoint
from dicode.student.target_program import DeviceTargetTrainer, train_target_seeds
from services.method_records import (
    REVERSE_METHOD,
    UED_METHODS,
    MethodConfig,
    MethodResult,
    method_result,
    write_run,
)
from services.run_figures import content_digest


def log_updates(log: RunLog, curve: list[CurvePoint], rows: Any, batch_size: int) -> None:
    """The PPO losses of every iteration of the chunk before ``curve``'s newest point that
    took a gradient step (``rows["learn"]``; every one when absent), at its env steps."""
    first = curve[-2].iteration + 1
    losses = {name: np.asarray(values) for name, values in rows["losses"].items()}
    learnt = np.asarray(rows.get("learn", np.ones(len(losses["entropy"]), bool)), bool)
    for j in np.flatnonzero(learnt):
        step = (first + int(j)) * batch_size
        log.scalars(step, {f"ppo/{name}": float(values[j]) for name, values in losses.items()})


#: What ``MethodResult.program`` and the records call a run of this module.
PROGRAM_KIND = "device"


def batches_seeds(method: str, config: MethodConfig) -> bool:
    """Does ``method`` on ``config``'s world train its seeds as one device program?"""
    if method in UED_METHODS or method == REVERSE_METHOD:
        return config.domain == "maze"
    if method != "target":
        return False
    return domains.get(config.domain).trains_target_on_device()


def program_checkpoint(
    method: str, env_steps: int, seeds: list[int], out: Path, config: MethodConfig
) -> Checkpoint:
    """Where the program of ``seeds`` saves itself, named for what makes it that program."""
    what = {"method": method, "steps": env_steps, "seeds": seeds, "config": config.to_dict()}
    name = f"{method}_program_s{'-'.join(map(str, seeds))}.ckpt"
    return Checkpoint(out / name, content_digest(what))


def run_seeds(
    method: str,
    env_steps: int,
    seeds: list[int],
    out: Path,
    config: MethodConfig,
    tensorboard: bool = False,
) -> list[MethodResult]:
    """Train ``seeds`` of ``method`` for ``env_steps`` env steps each as one program; one run
    folder per seed under ``out`` (``<method>_s<seed>/``: ``config.json``, ``curve.csv``,
    ``curve.png`` and, with ``tensorboard``, ``tensorboard/``)."""
    if not batches_seeds(method, config):
        raise ValueError(f"{method} on {config.domain} does not train as a device program")
    if len(set(seeds)) != len(seeds) or not seeds:
        raise ValueError(f"give distinct seeds, got {seeds}")
    started = time.perf_counter()
    world = domains.get(config.domain)
    headline = world.target_metrics[0]
    run_dirs = [out / f"{method}_s{seed}" for seed in seeds]
    for run_dir in run_dirs:
        run_dir.mkdir(parents=True, exist_ok=True)
    logs = [TensorBoardLog(d / "tensorboard") if tensorboard else None for d in run_dirs]
    every = max(env_steps // config.eval_points, 1)
    checkpoint = program_checkpoint(method, env_steps, seeds, out, config)
    student = config.student
    # One compiled trainer for every seed (its own seed is never read by the program).
    trainer = world.make_trainer(
        replace(student, ppo=replace(student.ppo, seed=0)), config.evaluator
    )

    def on_point(
        index: int, curve: list[CurvePoint], rows: Any, counts: dict[str, int] | None = None
    ) -> None:
        log = logs[index]
        if log is not None:
            if rows is not None:
                log_updates(log, curve, rows, trainer.batch_size)
            log_evaluation(log, curve, {f"slots/{k}": n for k, n in (counts or {}).items()})

    if method in UED_METHODS:
        from dicode.domains.maze.student.ued import run_ued_seeds

        ued = replace(config.ued or UEDConfig(), method=UED_METHODS[method])
        ppo = trainer.ppo  # type: ignore[attr-defined]  # the maze trainer's compiled PPO
        evaluator = trainer.evaluator()  # type: ignore[attr-defined]
        runs = run_ued_seeds(ppo, evaluator, ued, seeds, env_steps, every, on_point, checkpoint)
        curves = [run.curve for run in runs]
        slots = [run.counts for run in runs]
        trained = [run.levels_trained for run in runs]
    elif method == REVERSE_METHOD:
        from dicode.domains.maze.student.reverse import run_reverse_seeds

        reverse = config.reverse or ReverseConfig()
        ppo = trainer.ppo  # type: ignore[attr-defined]
        evaluator = trainer.evaluator()  # type: ignore[attr-defined]
        backwards = run_reverse_seeds(
            ppo, evaluator, reverse, seeds, env_steps, every, on_point, checkpoint
        )
        curves = [run.curve for run in backwards]
        slots = [run.counts for run in backwards]
        trained = [0] * len(seeds)  # every maze is fresh: as many as the plays
    else:
        assert isinstance(trainer, DeviceTargetTrainer)
        sessions = student.iterations_per_session
        curves = train_target_seeds(
            trainer, seeds, env_steps, sessions, every, on_point, checkpoint
        )
        played = [-(-curve[-1].iteration // sessions) for curve in curves]
        slots = [SlotCounts(target=n * trainer.ppo.config.num_slots).to_dict() for n in played]
        trained = [0] * len(seeds)
    for log in logs:
        if log is not None:
            log.close()
    wall_share = (time.perf_counter() - started) / len(seeds)
    program = {"kind": PROGRAM_KIND, "seeds": list(seeds)}
    results = []
    for i, seed in enumerate(seeds):
        settings = {"method": method, "seed": seed, "env_steps": env_steps} | config.to_dict()
        settings["student"] = replace(student, ppo=replace(student.ppo, seed=seed)).to_dict()
        if method in UED_METHODS:
            settings["ued"] = asdict(replace(config.ued or UEDConfig(), method=UED_METHODS[method]))
        if method == REVERSE_METHOD:
            settings["reverse"] = asdict(config.reverse or ReverseConfig())
        settings["program"] = program
        result = method_result(
            method, seed, curves[i], headline, wall_share, run_dirs[i], slots[i], trained[i],
            program=program,
        )  # fmt: skip
        results.append(write_run(run_dirs[i], curves[i], headline, settings, result))
    checkpoint.path.unlink(missing_ok=True)  # the runs are written: nothing to go on from
    return results
