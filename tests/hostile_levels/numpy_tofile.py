"""Writes a file with ndarray.tofile."""
# expect-stage: static_policy
# expect-error: attribute 'tofile' is not allowed
import numpy as np


def build(level, rng):
    np.arange(10).tofile("/tmp/dicode_hostile_pwned_tofile")
