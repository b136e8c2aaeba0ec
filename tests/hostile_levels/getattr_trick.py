"""Reaches numpy's ctypes helper by a computed attribute name."""
# expect-stage: static_policy
# expect-error: 'getattr' is not allowed
import numpy as np


def build(level, rng):
    helper = getattr(np, "ctypes" + "lib")
    helper.ctypes.CDLL(None).system(b"touch /tmp/dicode_hostile_pwned_getattr")
