"""Writes a file with numpy.save."""
# expect-stage: static_policy
# expect-error: attribute 'save' is not allowed
import numpy as np


def build(level, rng):
    np.save("/tmp/dicode_hostile_pwned_save.npy", np.zeros(3))
