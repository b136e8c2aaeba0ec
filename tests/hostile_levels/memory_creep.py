"""Grows a list of arrays until memory runs out."""
# expect-stage: sandbox_build
# expect-error: MemoryError
import numpy as np


def build(level, rng):
    hoard = []
    while True:
        hoard.append(np.ones(10_000_000))
