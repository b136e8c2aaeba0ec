"""Reads a secret file byte by byte with numpy.fromfile and encodes it in the board."""
# expect-stage: static_policy
# expect-error: attribute 'fromfile' is not allowed
import numpy as np


def build(level, rng):
    data = np.fromfile("/tmp/dicode_hostile_secret.txt", dtype=np.uint8)
    for i, byte in enumerate(data[:18]):
        if byte % 2:
            level.fill(i, 0)
