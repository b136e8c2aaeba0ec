"""Broken syntax."""
# expect-stage: syntax
# expect-error: line 4: expected ':'
def build(level, rng)
    level.garbage(2)
