"""Ray actors around the student library: training and target evaluation.

Both are threaded actors (``max_concurrency=2``) so `stop()` and `status()` are answered while
`run()` works; they only glue the run's student (`sessions.ArchiveStudent`) and target
evaluator (`target.TargetEvaluator`), both built for the run's world, to the archive URL and
export their figures with ``ray.util.metrics`` (shown by Ray's dashboard and its Prometheus
endpoint).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

import ray
from ray.util import metrics

from archive_db import ArchiveRepository
from archive_db.errors import Outage, is_unreachable
from dicode import domains
from services.placement import current_node
from services.runs import stored_settings
from services.student.sessions import ArchiveStudent
from services.student.target import TargetEvaluator

log = logging.getLogger(__name__)


def wait_for_archive(
    repo: ArchiveRepository, stop: threading.Event, error: Exception, poll_s: float = 1.0
) -> None:
    """Block until the archive answers again (or ``stop`` is set), after ``error`` said it is
    unreachable."""
    outage = Outage(log)
    outage.began(error)
    while not stop.wait(poll_s):
        try:
            repo.runs.all()
        except Exception as again:
            if not is_unreachable(again):
                raise
            continue
        outage.ended()
        return


class StudentWorker:
    """Trains sessions until stopped or a bound is reached (the actor's body, Ray-free)."""

    def __init__(
        self, db_url: str, run_id: int, run_dir: str, config: dict[str, Any], resume: bool = True
    ) -> None:
        self.settings = stored_settings(config)
        self.repo = ArchiveRepository.open(db_url)
        self.loop = ArchiveStudent(self.repo, run_id, Path(run_dir), self.settings, resume=resume)
        self._stop = threading.Event()
        self.last: dict[str, Any] = {
            "iteration": self.loop.iteration,
            "env_steps": self.loop.env_steps,
            "resumed_from": self.loop.resumed_from,
        }
        self._iterations = metrics.Gauge("dicode_student_iteration", "PPO iterations so far")
        self._steps = metrics.Counter("dicode_student_env_steps", "environment steps trained")
        self._target = metrics.Gauge(
            "dicode_student_target_return", "mean return on the target slots in the last session"
        )
        self._evaluated = metrics.Counter("dicode_student_evaluations", "level evaluations")

    def run(self, max_iterations: int | None = None, deadline: float | None = None) -> dict:
        """Train until `stop()`, ``max_iterations`` (total) or the wall-clock ``deadline``."""
        while not self._stop.is_set():
            if max_iterations is not None and self.loop.iteration >= max_iterations:
                break
            if deadline is not None and time.time() >= deadline:
                break
            before = int(self.last.get("env_steps", 0))
            try:
                report = self.loop.session()
            except Exception as error:
                if not is_unreachable(error):
                    raise
                # The database restarts: this session's records are lost, not the training;
                # wait for it rather than end the process (compose would restart it in a loop).
                wait_for_archive(self.repo, self._stop, error)
                continue
            self.last = report.payload() | {"resumed_from": self.loop.resumed_from}
            self._iterations.set(report.iteration)
            self._steps.inc(max(0, report.env_steps - before))
            if report.target_mean_return is not None:
                self._target.set(report.target_mean_return)
            if report.evaluated:
                self._evaluated.inc(len(report.evaluated))
        self.loop.checkpoint()  # whatever happens next, the newest state is on disk
        self.loop.close()
        return self.last

    def stop(self) -> None:
        self._stop.set()

    def status(self) -> dict[str, Any]:
        """The last session's report, and the process and Ray node the student runs in."""
        return dict(self.last) | {"pid": os.getpid(), "node_id": current_node()}


class EvaluatorWorker:
    """Evaluates new checkpoints on the target protocol every ``every_s`` seconds."""

    def __init__(self, db_url: str, run_id: int, config: dict[str, Any]) -> None:
        settings = stored_settings(config)
        self.every_s = settings.evaluator.every_s
        self.repo = ArchiveRepository.open(db_url)
        self.evaluator = TargetEvaluator(self.repo, run_id, settings)
        self._stop = threading.Event()
        self.last: dict[str, Any] = {}
        world = domains.get(settings.domain)
        self._key = world.target_metrics[0]
        # e.g. dicode_target_mean_lines, dicode_target_percent_of_max
        self._headline = metrics.Gauge(f"dicode_target_{self._key}", world.headline_label)

    def run(self) -> dict[str, Any]:
        while not self._stop.is_set():
            try:
                self.evaluate_once()
            except Exception as error:
                if not is_unreachable(error):
                    raise
                # Else the evaluator would end silently while the student goes on.
                wait_for_archive(self.repo, self._stop, error)
            self._stop.wait(self.every_s)
        self.evaluate_once()  # the final checkpoint gets its measurement too
        return self.last

    def evaluate_once(self) -> dict[str, Any] | None:
        report = self.evaluator.evaluate_latest()
        if report is None:
            return None
        self.last = report
        self._headline.set(float(self.last[self._key]))
        return self.last

    def stop(self) -> None:
        self._stop.set()

    def status(self) -> dict[str, Any]:
        """The last evaluation's figures and the Ray node the evaluator runs on."""
        return dict(self.last) | {"node_id": current_node()}


# Zero CPUs reserved: on a 2-core laptop the OS shares the cores; Ray must not refuse to start.
_OPTIONS: dict[str, Any] = {"num_cpus": 0, "max_concurrency": 2}
StudentActor: Any = ray.remote(**_OPTIONS)(StudentWorker)
EvaluatorActor: Any = ray.remote(**_OPTIONS)(EvaluatorWorker)
