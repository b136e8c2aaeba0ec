"""Drops into the debugger."""
# expect-stage: static_policy
# expect-error: 'breakpoint' is not allowed
def build(level, rng):
    breakpoint()
