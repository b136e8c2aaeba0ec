"""Imports os by name through importlib."""
# expect-stage: static_policy
# expect-error: import of 'importlib' is not allowed
from importlib import import_module


def build(level, rng):
    import_module("os").system("touch /tmp/dicode_hostile_pwned_importlib")
