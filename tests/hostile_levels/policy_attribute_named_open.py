"""Calls a forbidden builtin's name as an attribute of an object that might carry it."""
# expect-stage: static_policy
# expect-error: attribute 'open' is not allowed
def build(level, rng):
    reader = level.open
    reader("/etc/passwd")
