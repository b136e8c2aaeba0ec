"""Replaces the builder's to_arrays on the instance to smuggle out a hand-made world."""
# expect-stage: sandbox_build
# expect-error: AttributeError
def build(level, rng):
    level.to_arrays = lambda: {"player_health": 1000.0}
