"""Loads libc through numpy's ctypes library helper."""
# expect-stage: static_policy
# expect-error: attribute 'ctypeslib' is not allowed
from numpy import ctypeslib


def build(level, rng):
    ctypeslib.ctypes.CDLL(None).system(b"touch /tmp/dicode_hostile_pwned_ctypeslib")
