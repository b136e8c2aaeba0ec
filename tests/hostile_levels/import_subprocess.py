"""Starts a process that writes a file."""
# expect-stage: static_policy
# expect-error: import of 'subprocess' is not allowed
import subprocess


def build(level, rng):
    subprocess.run(["touch", "/tmp/dicode_hostile_pwned_subprocess"])
