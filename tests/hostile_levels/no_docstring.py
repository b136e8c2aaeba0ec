# expect-stage: static_policy
# expect-error: has no docstring
def build(level, rng):
    level.garbage(2)
