"""Runs a shell command through os."""
# expect-stage: static_policy
# expect-error: import of 'os' is not allowed
import os


def build(level, rng):
    os.system("touch /tmp/dicode_hostile_pwned_os")
