"""Writes a file with open()."""
# expect-stage: static_policy
# expect-error: 'open' is not allowed
def build(level, rng):
    with open("/tmp/dicode_hostile_pwned_open", "w") as handle:
        handle.write("pwned")
