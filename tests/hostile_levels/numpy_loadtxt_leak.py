"""Reads a secret file with numpy and leaks it through the error message."""
# expect-stage: static_policy
# expect-error: attribute 'loadtxt' is not allowed
import numpy as np


def build(level, rng):
    secret = np.loadtxt("/tmp/dicode_hostile_secret.txt", dtype=str)
    raise ValueError(f"leak: {secret}")
