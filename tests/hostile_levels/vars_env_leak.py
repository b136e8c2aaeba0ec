"""Looks for secrets in vars() and leaks them in an error."""
# expect-stage: static_policy
# expect-error: 'vars' is not allowed
def build(level, rng):
    raise ValueError(str(vars()))
