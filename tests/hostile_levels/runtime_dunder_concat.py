"""Builds a dunder attribute name at run time so no string literal names it."""
# expect-stage: static_policy
# expect-error: a string built at run time contains '__'
# wall: rejected
def find_os(get):
    name = "_" * 2 + "class" + "_" * 2
    return get(name)


def build(level, rng):
    find_os(level)
