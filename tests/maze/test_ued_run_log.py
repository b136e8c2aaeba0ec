"""The maze's literature loops, run as a device program (``services/seed_runs.py``), log for
TensorBoard what they trained: losses where a gradient step was taken, branch counts and the
held-out figures at every evaluation, one log per seed."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from dicode.domains.maze.student.config import UEDConfig
from dicode.settings import EvaluatorSettings, StudentSettings
from services.method_records import MethodConfig
from services.seed_runs import run_seeds
from tests.maze.conftest import TINY

# One level per env, as the literature's loops play.
ONE_LEVEL_PER_ENV = replace(
    TINY, num_slots=4, envs_per_slot=1, pool_size=1, target_refresh=0, num_minibatches=1,
    heldout="jaxued",
)  # fmt: skip


def test_robust_plr_logs_its_updates_branches_and_evaluations(tmp_path: Path) -> None:
    steps = 12 * ONE_LEVEL_PER_ENV.batch_size
    config = MethodConfig(
        domain="maze", student=StudentSettings(ONE_LEVEL_PER_ENV),
        evaluator=EvaluatorSettings(games=1, max_steps=20), eval_points=1,
        ued=UEDConfig(capacity=8),
    )  # fmt: skip
    results = run_seeds("robust_plr", steps, [0, 1], tmp_path, config, tensorboard=True)
    for result in results:
        events = EventAccumulator(str(Path(result.run_dir) / "tensorboard"))
        events.Reload()
        logged = {
            tag: [(e.step, e.value) for e in events.Scalars(tag)]
            for tag in events.Tags()["scalars"]
        }
        # Losses only where the loop took a gradient step (replayed levels), one point each.
        assert 0 < len(logged["ppo/entropy"]) == result.slots["gradient"] < 12
        # At each evaluation: the branch counts so far, the held-out figures, the trained mix.
        for kind, count in result.slots.items():
            assert logged[f"slots/{kind}"] == [(0, 0), (steps, count)]
        assert logged["slots/levels_trained"][-1] == (steps, result.levels_trained)
        solve = [tag for tag in logged if tag.startswith("target/solve_")]
        assert solve and all([s for s, _ in logged[tag]] == [0, steps] for tag in solve)
        trace = result.trace[-1]
        assert logged["curriculum/trained_plays"] == [(steps, trace["trained_plays"])]
        assert result.program == {"kind": "device", "seeds": [0, 1]}
    assert results[0].slots != results[1].slots or results[0].curve != results[1].curve
