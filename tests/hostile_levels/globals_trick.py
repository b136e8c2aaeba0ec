"""Digs the real built-ins out of globals()."""
# expect-stage: static_policy
# expect-error: 'globals' is not allowed
def build(level, rng):
    builtins = globals()["__buil" + "tins__"]
    builtins["open"]("/tmp/dicode_hostile_pwned_globals", "w")
