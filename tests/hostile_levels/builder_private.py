"""Writes the builder's private board directly, bypassing validation."""
# expect-stage: static_policy
# expect-error: private or internal attribute '_board'
def build(level, rng):
    level._board[:] = 1
