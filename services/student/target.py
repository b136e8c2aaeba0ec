"""Target evaluations: the greedy student on the target protocol, on the newest checkpoint.

The protocol is `dicode.student.evaluate` (the standard game, fixed seeds, a piece cap, lines
per game). Each measurement is stored as a `target_eval` event of the run, which the API serves
as a time series and the terminal view shows as "target lines".
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from archive_db import ArchiveRepository
from dicode.domains.tetris.schema import stack_levels, target_level
from dicode.student.checkpoint import load_checkpoint
from dicode.student.curriculum import TARGET, build_slots
from dicode.student.evaluate import evaluate_greedy, make_greedy_evaluator
from dicode.student.ppo import Trainer
from services.settings import EvaluatorSettings, StudentSettings

TARGET_EVENT = "target_eval"


@dataclass(frozen=True)
class TargetReport:
    iteration: int
    mean_lines: float
    std_lines: float
    mean_pieces: float
    games: int
    piece_cap: int
    seconds: float

    def payload(self) -> dict[str, Any]:
        return {
            "iteration": self.iteration,
            "mean_lines": self.mean_lines,
            "std_lines": self.std_lines,
            "mean_pieces": self.mean_pieces,
            "games": self.games,
            "piece_cap": self.piece_cap,
            "seconds": self.seconds,
        }


class TargetEvaluator:
    """Evaluates each new student checkpoint of a run once (compiled once, reused)."""

    def __init__(
        self,
        repository: ArchiveRepository,
        run_id: int,
        student: StudentSettings,
        settings: EvaluatorSettings,
    ) -> None:
        if settings.games < 1:
            raise ValueError(f"games must be >= 1, got {settings.games}")
        self.repo = repository
        self.run_id = run_id
        self.settings = settings
        ppo = student.ppo
        trainer = Trainer(ppo)
        # The runner's structure, for reading checkpoints (values are overwritten).
        slots = build_slots(
            [TARGET] * ppo.num_slots, {}, stack_levels([target_level()]), ppo.pool_size
        )
        self._template = trainer.init(ppo.seed, slots)
        self._play = make_greedy_evaluator(trainer.network, settings.games, settings.piece_cap)
        done = repository.list_events(run_id=run_id, kind=TARGET_EVENT)
        self.last_iteration: int | None = int(done[-1].payload["iteration"]) if done else None

    def evaluate_latest(self) -> TargetReport | None:
        """Evaluate the newest checkpoint if it was not evaluated yet; None otherwise."""
        latest = self.repo.latest_checkpoint(self.run_id)
        if latest is None or latest.iteration == self.last_iteration:
            return None
        try:
            runner, *_ = load_checkpoint(latest.path, self._template)
        except FileNotFoundError:  # pruned between the query and the read: next time
            return None
        return self.evaluate(runner.train.params, latest.iteration)

    def evaluate(self, params: Any, iteration: int) -> TargetReport:
        """Run the protocol on ``params`` and store the result as an event."""
        started = time.perf_counter()
        result = evaluate_greedy(self._play, params)
        report = TargetReport(
            iteration=iteration,
            mean_lines=result.mean_lines,
            std_lines=result.std_lines,
            mean_pieces=float(result.pieces.mean()),
            games=self.settings.games,
            piece_cap=self.settings.piece_cap,
            seconds=time.perf_counter() - started,
        )
        self.repo.add_event(TARGET_EVENT, report.payload(), run_id=self.run_id)
        self.last_iteration = iteration
        return report
