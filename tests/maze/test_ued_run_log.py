"""The maze's literature loops, run as a device program (``services/seed_runs.py``), log for
TensorBoard what they trained: losses where a gradient step was taken, branch counts and the
held-out figures at every evaluation, one log per seed; cut mid-run, they go on from their
checkpoint to the records of an uncut run."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from dicode.domains.maze.student.config import UEDConfig
from dicode.domains.maze.student.evaluate import MazeEvaluator
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


def test_an_arm_cut_mid_run_goes_on_from_its_checkpoint_to_the_same_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    steps = 12 * ONE_LEVEL_PER_ENV.batch_size
    config = MethodConfig(
        domain="maze", student=StudentSettings(ONE_LEVEL_PER_ENV),
        evaluator=EvaluatorSettings(games=1, max_steps=20), eval_points=2,
        ued=UEDConfig(capacity=8, min_fill=0.25),
    )  # fmt: skip
    whole = run_seeds("robust_plr", steps, [0, 1], tmp_path / "whole", config)

    # The process dies at the last evaluation: after the checkpoint of the middle one.
    real_batch, calls = MazeEvaluator.batch, []

    def dies_at_the_third(self: MazeEvaluator, params: Any) -> Any:
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("the process dies")
        return real_batch(self, params)

    out = tmp_path / "cut"
    with monkeypatch.context() as patch:
        patch.setattr(MazeEvaluator, "batch", dies_at_the_third)
        with pytest.raises(RuntimeError, match="the process dies"):
            run_seeds("robust_plr", steps, [0, 1], out, config)
    (saved,) = out.glob("*.ckpt")
    resumed = run_seeds("robust_plr", steps, [0, 1], out, config)
    assert "going on from evaluation 1 (iteration 6)" in capsys.readouterr().out
    assert not saved.exists()  # the runs are written
    for got, want in zip(resumed, whole, strict=True):
        batch = ONE_LEVEL_PER_ENV.batch_size
        assert [p[0] for p in got.curve] == [p[0] for p in want.curve] == [0, 6 * batch, steps]
        np.testing.assert_allclose([p[1] for p in got.curve], [p[1] for p in want.curve], rtol=1e-5)
        assert got.slots == want.slots
        assert got.levels_trained == want.levels_trained > 0  # the trained set came back
        assert got.trace[-1] == want.trace[-1]
