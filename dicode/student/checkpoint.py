"""Student checkpoints: one msgpack file per checkpoint, written atomically.

A world's trainer decides what its learning state is (a pytree: parameters, optimiser state,
RNG key, iteration, and for some worlds the environments mid-episode); the loop adds plain
extras (``r_prev``, ...). Writes go to a temporary file renamed over the old one, so a crash
never leaves half a checkpoint.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, TypeVar

from flax import serialization

State = TypeVar("State")


def save_checkpoint(path: str | Path, state: Any, extra: dict[str, Any]) -> None:
    """Write ``state`` (any pytree) and the JSON-able ``extra`` to ``path``."""
    path = Path(path)
    payload = {"state": serialization.to_state_dict(state), "extra": json.dumps(extra)}
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(serialization.msgpack_serialize(payload))
    os.replace(tmp, path)


def load_checkpoint(path: str | Path, template: State) -> tuple[State, dict[str, Any]]:
    """``(state, extra)`` from ``path``; ``template`` gives the state's structure."""
    payload = serialization.msgpack_restore(Path(path).read_bytes())
    return serialization.from_state_dict(template, payload["state"]), json.loads(payload["extra"])
