"""Fills a cell above the top of the board."""
# expect-stage: sandbox_build
# expect-error: level.fill: row must be in 0..19, got 25
def build(level, rng):
    level.fill(25, 3)
