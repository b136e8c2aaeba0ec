"""Builds code from a string and evaluates it."""
# expect-stage: static_policy
# expect-error: 'eval' is not allowed
def build(level, rng):
    eval("__imp" + "ort__('os').system('touch /tmp/dicode_hostile_pwned_eval')")
