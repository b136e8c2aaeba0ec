"""Reads the builder's class through a match class pattern's keyword attribute."""
# expect-stage: static_policy
# expect-error: private or internal attribute '__class__'
def build(level, rng):
    match level:
        case object(__class__=found):
            raise ValueError(str(found))
