"""A level without a build function."""
# expect-stage: static_policy
# expect-error: must define a top-level function build
def make(level, rng):
    level.garbage(2)
