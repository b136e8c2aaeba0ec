"""Tries to end the worker quietly with SystemExit."""
# expect-stage: sandbox_build
# expect-error: SystemExit
def build(level, rng):
    raise SystemExit(0)
