"""Passes a string where the builder wants a row count."""
# expect-stage: sandbox_build
# expect-error: level.garbage: rows must be an integer
def build(level, rng):
    level.garbage("3")
