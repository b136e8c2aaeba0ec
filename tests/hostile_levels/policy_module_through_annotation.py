"""Reaches numpy.random.mtrand through an annotated assignment."""
# expect-stage: static_policy
# expect-error: attribute 'mtrand' names a module
import numpy as np

holder: object = np.random


def build(level, rng):
    raise ValueError(str(holder.mtrand))
