"""Replaces a builder method on the instance to smuggle a value out."""
# expect-stage: sandbox_build
# expect-error: AttributeError
def build(level, rng):
    level.to_arrays = lambda: {"board": None}
