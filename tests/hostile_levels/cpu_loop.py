"""Spins the CPU forever."""
# expect-stage: sandbox_build
# expect-error: CPU-time limit|timeout
def build(level, rng):
    n = 0
    while True:
        n += 1
