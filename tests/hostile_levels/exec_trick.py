"""Executes a string of code."""
# expect-stage: static_policy
# expect-error: 'exec' is not allowed
def build(level, rng):
    exec("import os\nos.system('touch /tmp/dicode_hostile_pwned_exec')")
