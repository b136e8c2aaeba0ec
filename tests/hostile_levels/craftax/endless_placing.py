"""Places blocks forever."""
# expect-stage: sandbox_build
# expect-error: CPU-time limit|timeout
def build(level, rng):
    while True:
        level.place_block("stone", 0, 0)
