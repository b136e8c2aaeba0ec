"""Reads interpreter internals through str.format attribute lookups."""
# expect-stage: static_policy
# expect-error: strings naming dunder attributes
def build(level, rng):
    text = "{0.__class__.__init__.__globals__}".format(level)
    raise ValueError(text)
