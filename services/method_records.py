"""What every curriculum run shares and leaves behind: its configuration, its result, and the
files written into its folder (``services/curricula.py`` for runs one at a time,
``services/seed_runs.py`` for an arm's seeds in one device program)."""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from dicode.archive.config import ArchiveConfig
from dicode.domains.maze.student.config import ReverseConfig, UEDConfig
from dicode.settings import EvaluatorSettings, GeneratorSettings, StudentSettings
from dicode.student.loop import CurvePoint, write_curve

#: The literature's curricula (maze only; ``dicode.domains.maze.student.ued``): method -> its
#: UED method.
UED_METHODS = {"ued_dr": "dr", "robust_plr": "robust_plr", "accel": "accel"}
#: The hand-written reverse curriculum on the maze's own target mazes
#: (``dicode.domains.maze.student.reverse``).
REVERSE_METHOD = "reverse"


@dataclass(frozen=True)
class MethodConfig:
    """What every method of one comparison shares."""

    domain: str = "tetris"
    student: StudentSettings = field(default_factory=StudentSettings)  # ppo: the world's
    evaluator: EvaluatorSettings = field(default_factory=EvaluatorSettings)  # the protocol
    generator: GeneratorSettings = field(default_factory=GeneratorSettings)
    archive: ArchiveConfig = field(default_factory=ArchiveConfig)
    levels_per_session: int = 2  # generation attempts before every session
    # True: those attempts stop, as the generator service's back-pressure does, once
    # ``generator.max_untrained`` levels await training, so new levels are written for the
    # student as it is (False: every attempt runs and new levels queue for their slots).
    back_pressure: bool = False
    sfl_top_k: int = 8  # SFL's buffer: the k most learnable measured levels
    eval_points: int = 4  # curve evaluations after the one at step 0
    ued: UEDConfig | None = None  # the UED methods' settings (None: JaxUED's defaults)
    reverse: ReverseConfig | None = None  # the reverse curriculum's (None: its defaults)

    def to_dict(self) -> dict[str, Any]:
        values = {k: v for k, v in asdict(self).items() if k != "student"}
        # Absent when unset, so configs (and run keys) from before the setting are unchanged.
        for name in ("ued", "reverse"):
            if values[name] is None:
                values.pop(name)
        if not self.back_pressure:
            values.pop("back_pressure")
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
    # (env steps first; the literature's loops fill it, ``ued.UEDRun``).
    trace: list[dict[str, float]] = field(default_factory=list)
    # The device program the run trained in (``seed_runs``): its seeds, which train together
    # (the run's seconds are its share of the program's); empty for a host loop's run.
    program: dict[str, Any] = field(default_factory=dict)


def write_run(
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


def method_result(
    method: str,
    seed: int,
    curve: list[CurvePoint],
    headline: str,
    wall_s: float,
    run_dir: Path,
    slots: dict[str, int],
    levels_trained: int,
    teacher: tuple[float, int, int] = (0.0, 0, 0),
    program: dict[str, Any] | None = None,
) -> MethodResult:
    """A run's result from its curve; ``teacher``: generation seconds, attempts, accepted."""
    final = curve[-1]
    generation_s, attempts, accepted = teacher
    return MethodResult(
        method=method,
        seed=seed,
        target=dict(final.target),
        env_steps=final.env_steps,
        wall_s=round(wall_s, 1),
        train_s=final.train_seconds,
        train_cpu_s=final.train_cpu_seconds,
        generation_s=round(generation_s, 1),
        attempts=attempts,
        accepted=accepted,
        levels_trained=levels_trained,
        slots=slots,
        run_dir=str(run_dir),
        curve=[(p.env_steps, float(p.target[headline])) for p in curve],
        trace=[{"env_steps": p.env_steps} | p.curriculum for p in curve if p.curriculum],
        program=program or {},
    )


def elapsed(started: float) -> float:
    """Seconds since ``started`` (``time.perf_counter``)."""
    return time.perf_counter() - started
