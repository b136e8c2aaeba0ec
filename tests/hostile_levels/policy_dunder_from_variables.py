"""Builds the string '__class__' from variables, then looks it up in a mapping of attributes."""
# expect-stage: static_policy
# expect-error: contains '__'
def build(level, rng):
    edge = "_"
    edge += "_"
    name = f"{edge}class{edge}"
    raise ValueError(name)
