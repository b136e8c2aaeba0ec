"""Writes to raw memory through an array's ctypes bridge."""
# expect-stage: static_policy
# expect-error: attribute 'ctypes' is not allowed
import numpy as np


def build(level, rng):
    pointer = np.zeros(1).ctypes.data
    np.zeros(1).ctypes.data_as(None)
    level.fill(0, pointer % 10)
