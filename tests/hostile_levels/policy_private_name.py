"""Reads a module's private global by a bare name from a borrowed namespace."""
# expect-stage: static_policy
# expect-error: private name '_sys' is not allowed
class Borrowed:
    found = _sys


def build(level, rng):
    raise ValueError(str(Borrowed.found))
