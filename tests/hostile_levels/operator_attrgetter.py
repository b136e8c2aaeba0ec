"""Uses attrgetter handed in from elsewhere to read attributes by a computed name."""
# expect-stage: static_policy
# expect-error: attribute 'attrgetter' is not allowed
def peek(ops, target, name):
    return ops.attrgetter(name)(target)


def build(level, rng):
    import numpy as np

    peek(np.polynomial.polyutils.operator, level, "rng")
