"""Recurses without a base case."""
# expect-stage: sandbox_build
# expect-error: RecursionError
def descend(n):
    return descend(n + 1) + 1


def build(level, rng):
    descend(0)
