"""Allocates far more memory than the sandbox allows."""
# expect-stage: sandbox_build
# expect-error: MemoryError
import numpy as np


def build(level, rng):
    blob = np.ones((60_000, 60_000))
    level.fill(0, int(blob[0, 0]))
