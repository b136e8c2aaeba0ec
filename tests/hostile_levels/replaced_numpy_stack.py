"""Replaces np.stack on the shared numpy module so the worker would stack 512 copies of each
instance: a pool of 16,384 instead of 32."""
# expect-stage: static_policy
# expect-error: may not change the module 'numpy'
import numpy as np

real_stack = np.stack


def inflated(arrays, axis=0):
    return real_stack(list(arrays) * 512, axis)


def build(level, rng):
    np.stack = inflated
    level.garbage(2, holes=1)
