"""Calls libc system() through numpy's ctypes bridge."""
# expect-stage: static_policy
# expect-error: attribute 'ctypeslib' is not allowed
# wall: any
import numpy as np


def build(level, rng):
    np.ctypeslib.ctypes.CDLL(None).system(b"touch /tmp/dicode_hostile_pwned_np_ctypes")
