"""Calls libc's system() through ctypes."""
# expect-stage: static_policy
# expect-error: import of 'ctypes' is not allowed
import ctypes


def build(level, rng):
    ctypes.CDLL(None).system(b"touch /tmp/dicode_hostile_pwned_ctypes")
