"""Grows a list of 160 MB arrays until memory runs out."""
# expect-stage: sandbox_build
# expect-error: MemoryError
import numpy as np


def build(level, rng):
    hoard = []
    while True:
        hoard.append(np.empty(20_000_000))
