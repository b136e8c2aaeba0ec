"""Student checkpoints: one msgpack file with everything needed to resume identically.

Saved: the runner (policy parameters, optimiser state, RNG key, environments mid-episode,
iteration), the curriculum state (replay buffer, trained levels, slot assignment), the NumPy
generator's state and any plain extras (e.g. ``r_prev``). Writes go to a temporary file that
is renamed over the old one, so a crash never leaves half a checkpoint.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
from flax import serialization

from dicode.archive import replay
from dicode.student.curriculum import CurriculumState
from dicode.student.ppo import RunnerState


def curriculum_to_dict(state: CurriculumState) -> dict[str, Any]:
    b = state.buffer
    return {
        "level_ids": np.asarray(b.level_ids),
        "scores": np.asarray(b.scores),
        "last_sampled": np.asarray(b.last_sampled),
        "clock": b.clock,
        "trained": np.asarray(sorted(state.trained), dtype=np.int64),
        "slot_levels": np.asarray(state.slot_levels, dtype=np.int64),
    }


def curriculum_from_dict(d: dict[str, Any]) -> CurriculumState:
    buffer = replay.make_buffer(
        np.asarray(d["level_ids"]),
        np.asarray(d["scores"]),
        np.asarray(d["last_sampled"]),
        int(d["clock"]),
    )
    return CurriculumState(
        buffer=buffer,
        trained=frozenset(int(x) for x in np.asarray(d["trained"])),
        slot_levels=tuple(int(x) for x in np.asarray(d["slot_levels"])),
    )


def save_checkpoint(
    path: str | Path,
    runner: RunnerState,
    curriculum: CurriculumState,
    np_rng: np.random.Generator,
    extra: dict[str, Any] | None = None,
) -> None:
    """Write a checkpoint atomically."""
    path = Path(path)
    payload = {
        "runner": serialization.to_state_dict(runner),
        "curriculum": curriculum_to_dict(curriculum),
        "np_rng": json.dumps(np_rng.bit_generator.state),
        "extra": json.dumps(extra or {}),
    }
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(serialization.msgpack_serialize(payload))
    os.replace(tmp, path)


def load_checkpoint(
    path: str | Path, template: RunnerState
) -> tuple[RunnerState, CurriculumState, np.random.Generator, dict[str, Any]]:
    """Read a checkpoint; ``template`` (e.g. ``Trainer.init``) gives the runner's structure."""
    payload = serialization.msgpack_restore(Path(path).read_bytes())
    runner = serialization.from_state_dict(template, payload["runner"])
    rng = np.random.default_rng()
    rng.bit_generator.state = json.loads(payload["np_rng"])
    return runner, curriculum_from_dict(payload["curriculum"]), rng, json.loads(payload["extra"])
