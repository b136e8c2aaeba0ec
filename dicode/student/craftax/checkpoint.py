"""Craftax student checkpoints: one msgpack file, written atomically.

Saved: the train state (policy parameters, optimiser state, update count), the RNG key, the
iteration, and plain extras (``r_prev``, the target pool's world counter). Not saved: the
environments mid-episode and the GRU states — a resumed student restarts every env (a few
hundred MB of Craftax states are not worth keeping for one partial episode per env).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import serialization
from flax.training.train_state import TrainState

from dicode.student.craftax.ppo import RunnerState


def save_checkpoint(path: str | Path, runner: RunnerState, extra: dict[str, Any]) -> None:
    """Write the runner's learning state and ``extra`` to ``path``."""
    path = Path(path)
    payload = {
        "train": serialization.to_state_dict(runner.train),
        "rng": np.asarray(runner.rng),  # a raw uint32 PRNGKey
        "iteration": np.asarray(runner.iteration),
        "extra": json.dumps(extra),
    }
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(serialization.msgpack_serialize(payload))
    os.replace(tmp, path)


def load_checkpoint(
    path: str | Path, template: TrainState
) -> tuple[TrainState, jax.Array, jax.Array, dict[str, Any]]:
    """``(train, rng, iteration, extra)`` from ``path``; ``template`` (e.g.
    ``Trainer.init_train``) gives the train state's structure."""
    payload = serialization.msgpack_restore(Path(path).read_bytes())
    train = serialization.from_state_dict(template, payload["train"])
    rng = jnp.asarray(payload["rng"], jnp.uint32)
    iteration = jnp.asarray(payload["iteration"], jnp.int32)
    return train, rng, iteration, json.loads(payload["extra"])
