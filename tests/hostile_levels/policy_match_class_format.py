"""Binds str.format through a match class pattern, to read attributes by a format field."""
# expect-stage: static_policy
# expect-error: attribute 'format' is not allowed
def build(level, rng):
    match "{0}":
        case str(format=render):
            raise ValueError(render(level))
