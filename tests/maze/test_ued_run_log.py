"""The maze's literature loops (``ued.run_ued``) log for TensorBoard what they trained."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from dicode.domains.maze.student.config import UEDConfig
from dicode.domains.maze.student.trainer import MazeSlotTrainer
from dicode.domains.maze.student.ued import run_ued
from dicode.student.run_log import TensorBoardLog
from tests.maze.conftest import TINY

# One level per env, as the literature's loops play.
ONE_LEVEL_PER_ENV = replace(
    TINY, num_slots=4, envs_per_slot=1, pool_size=1, target_refresh=0, num_minibatches=1,
    heldout="jaxued",
)  # fmt: skip


def test_robust_plr_logs_its_updates_branches_and_evaluations(tmp_path: Path) -> None:
    trainer = MazeSlotTrainer(ONE_LEVEL_PER_ENV, 1)
    steps = 12 * trainer.batch_size
    log = TensorBoardLog(tmp_path)
    curve, counts, _ = run_ued(
        trainer, UEDConfig("robust_plr", capacity=8), steps, steps, 0, run_log=log
    )
    log.close()
    events = EventAccumulator(str(tmp_path))
    events.Reload()
    logged = {
        tag: [(e.step, e.value) for e in events.Scalars(tag)] for tag in events.Tags()["scalars"]
    }
    # Losses only where the loop took a gradient step (replayed levels), one point each.
    assert 0 < len(logged["ppo/entropy"]) == counts.gradient < 12
    # At each evaluation: the branch counts so far, the held-out figures, the trained mix.
    for kind, count in counts.to_dict().items():
        assert logged[f"slots/{kind}"] == [(0, 0), (steps, count)]
    assert logged["slots/levels_trained"][-1] == (steps, len(counts.trained))
    solve = [tag for tag in logged if tag.startswith("target/solve_")]
    assert solve and all([s for s, _ in logged[tag]] == [0, steps] for tag in solve)
    assert logged["curriculum/trained_plays"] == [(steps, curve[-1].curriculum["trained_plays"])]
