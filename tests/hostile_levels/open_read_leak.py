"""Reads a secret file and leaks it through the error message."""
# expect-stage: static_policy
# expect-error: 'open' is not allowed
def build(level, rng):
    raise RuntimeError(open("/tmp/dicode_hostile_secret.txt").read())
