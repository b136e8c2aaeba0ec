"""A curriculum run of the benchmark's runner logs its slot mix and figures for TensorBoard."""

from __future__ import annotations

from pathlib import Path

import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from dicode.levels.pipeline import Validator
from services.curricula import run_method
from tests.services.test_curricula import STEPS, TINY_METHODS


def test_a_dicode_run_logs_its_slot_mix_and_its_evaluations(
    tmp_path: Path, validator: Validator
) -> None:
    result = run_method("dicode", STEPS, 0, tmp_path, TINY_METHODS, validator, tensorboard=True)
    events = EventAccumulator(str(tmp_path / "dicode_s0" / "tensorboard"))
    events.Reload()
    logged = {
        tag: [(e.step, e.value) for e in events.Scalars(tag)] for tag in events.Tags()["scalars"]
    }
    session = STEPS // 2  # two sessions of one iteration
    # The slot-sessions by kind after each session; the last ones are the run's record.
    for kind, count in result.slots.items():
        assert [step for step, _ in logged[f"slots/{kind}"]] == [session, STEPS]
        assert logged[f"slots/{kind}"][-1][1] == count
    assert [step for step, _ in logged["ppo/entropy"]] == [session, STEPS]
    assert [step for step, _ in logged["target/mean_lines"]] == [0, STEPS]
    assert logged["target/mean_lines"][-1][1] == pytest.approx(result.target["mean_lines"])
