"""Builds a format field that reads an attribute ("{0.x}") from pieces."""
# expect-stage: static_policy
# expect-error: format field that reads attributes
def build(level, rng):
    dot = "."
    template = "{0" + dot + "bit_gen}"
    raise ValueError(template)
