"""Target evaluations: the student on its world's target protocol, on the newest checkpoint.

Each new checkpoint of a run is evaluated once with the world's protocol
(``Domain.make_target_protocol``: Tetris plays the greedy student on the standard game, Craftax
the paper's evaluation on the real game); the figures are stored as a `target_eval` event of the
run, which the API serves as a time series, the generator shows the teacher, and the terminal
view reads by the world's headline figure (``Domain.target_metrics[0]``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from archive_db import ArchiveRepository
from archive_db.kinds import TARGET_EVENT
from dicode import domains
from dicode.settings import RunSettings


class TargetEvaluator:
    """Evaluates each new student checkpoint of a run once (the protocol compiled once)."""

    def __init__(self, repository: ArchiveRepository, run_id: int, settings: RunSettings) -> None:
        if settings.evaluator.games < 1:
            raise ValueError(f"games must be >= 1, got {settings.evaluator.games}")
        self.repo = repository
        self.run_id = run_id
        world = domains.get(settings.domain)
        self.headline = world.target_metrics[0]
        self.protocol = world.make_target_protocol(settings.student, settings.evaluator)
        done = repository.events.listing(run_id=run_id, kind=TARGET_EVENT)
        self.last_iteration: int | None = int(done[-1].payload["iteration"]) if done else None

    def evaluate_latest(self) -> dict[str, Any] | None:
        """Evaluate the newest checkpoint if it was not evaluated yet; None otherwise."""
        latest = self.repo.checkpoints.latest(self.run_id)
        if latest is None or latest.iteration == self.last_iteration:
            return None
        try:
            params = self.protocol.read_params(Path(latest.path))
        except FileNotFoundError:  # pruned between the query and the read: next time
            return None
        return self.evaluate(params, latest.iteration)

    def evaluate(self, params: Any, iteration: int) -> dict[str, Any]:
        """Run the protocol on ``params`` and store the figures as an event."""
        started = time.perf_counter()
        figures = self.protocol.measure(params)
        payload = {"iteration": iteration, **figures, "seconds": time.perf_counter() - started}
        self.repo.events.add(TARGET_EVENT, payload, run_id=self.run_id)
        self.last_iteration = iteration
        return payload
