"""Uses methodcaller to call a method chosen at run time."""
# expect-stage: static_policy
# expect-error: attribute 'methodcaller' is not allowed
def call(ops, target, name):
    return ops.methodcaller(name)(target)


def build(level, rng):
    call(level, level, "to_arrays")
