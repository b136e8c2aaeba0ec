"""Target evaluations: the student on the target protocol, on the newest checkpoint.

`CheckpointEvaluator` is what every domain shares (each new checkpoint evaluated once, the
measurement stored as a `target_eval` event of the run, which the API serves as a time series
and the terminal view shows by the domain's `HEADLINE` figure). The Tetris protocol here is
`dicode.student.evaluate` (the greedy student, the standard game, fixed seeds, a piece cap,
lines per game); Craftax's is in `services.student.craftax`.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from archive_db import ArchiveRepository
from dicode.domains.tetris.schema import stack_levels, target_level
from dicode.student.checkpoint import load_checkpoint
from dicode.student.curriculum import TARGET, build_slots
from dicode.student.evaluate import evaluate_greedy, make_greedy_evaluator
from dicode.student.ppo import Trainer
from services.settings import EvaluatorSettings, StudentSettings

TARGET_EVENT = "target_eval"
# Per domain: the figures of a target evaluation a teacher is shown, the headline first.
TARGET_METRICS = {
    "tetris": ("mean_lines", "mean_pieces"),
    "craftax": ("percent_of_max", "mean_return"),
}
# Per domain: the headline figure's payload key and its label in the terminal view.
HEADLINE = {
    domain: (TARGET_METRICS[domain][0], label)
    for domain, label in (("tetris", "target lines"), ("craftax", "target % of max"))
}


class Measurement(Protocol):
    def payload(self) -> dict[str, Any]: ...


ReportT = TypeVar("ReportT", bound=Measurement)


class CheckpointEvaluator(Generic[ReportT]):
    """Evaluates each new student checkpoint of a run once; subclasses read the parameters
    (`read_params`) and run their domain's protocol (`measure`)."""

    def __init__(self, repository: ArchiveRepository, run_id: int, games: int) -> None:
        if games < 1:
            raise ValueError(f"games must be >= 1, got {games}")
        self.repo = repository
        self.run_id = run_id
        done = repository.list_events(run_id=run_id, kind=TARGET_EVENT)
        self.last_iteration: int | None = int(done[-1].payload["iteration"]) if done else None

    def read_params(self, path: Path) -> Any:
        raise NotImplementedError

    def measure(self, params: Any, iteration: int) -> ReportT:
        raise NotImplementedError

    def evaluate_latest(self) -> ReportT | None:
        """Evaluate the newest checkpoint if it was not evaluated yet; None otherwise."""
        latest = self.repo.latest_checkpoint(self.run_id)
        if latest is None or latest.iteration == self.last_iteration:
            return None
        try:
            params = self.read_params(Path(latest.path))
        except FileNotFoundError:  # pruned between the query and the read: next time
            return None
        return self.evaluate(params, latest.iteration)

    def evaluate(self, params: Any, iteration: int) -> ReportT:
        """Run the protocol on ``params`` and store the result as an event."""
        report = self.measure(params, iteration)
        self.repo.add_event(TARGET_EVENT, report.payload(), run_id=self.run_id)
        self.last_iteration = iteration
        return report


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
        return asdict(self)


class TargetEvaluator(CheckpointEvaluator[TargetReport]):
    """The Tetris protocol (compiled once, reused)."""

    def __init__(
        self,
        repository: ArchiveRepository,
        run_id: int,
        student: StudentSettings,
        settings: EvaluatorSettings,
    ) -> None:
        super().__init__(repository, run_id, settings.games)
        self.settings = settings
        ppo = student.ppo
        trainer = Trainer(ppo)
        # The runner's structure, for reading checkpoints (values are overwritten).
        slots = build_slots(
            [TARGET] * ppo.num_slots, {}, stack_levels([target_level()]), ppo.pool_size
        )
        self._template = trainer.init(ppo.seed, slots)
        self._play = make_greedy_evaluator(trainer.network, settings.games, settings.piece_cap)

    def read_params(self, path: Path) -> Any:
        runner, *_ = load_checkpoint(path, self._template)
        return runner.train.params

    def measure(self, params: Any, iteration: int) -> TargetReport:
        started = time.perf_counter()
        result = evaluate_greedy(self._play, params)
        return TargetReport(
            iteration=iteration,
            mean_lines=result.mean_lines,
            std_lines=result.std_lines,
            mean_pieces=float(result.pieces.mean()),
            games=self.settings.games,
            piece_cap=self.settings.piece_cap,
            seconds=time.perf_counter() - started,
        )
