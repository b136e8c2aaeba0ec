"""Reaches numpy.random.mtrand through a list, which plain module tracking cannot follow."""
# expect-stage: static_policy
# expect-error: attribute 'mtrand' names a module
import numpy as np


def build(level, rng):
    inner = [np.random][0].mtrand
    raise ValueError(str(inner))
