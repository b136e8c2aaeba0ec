"""Fills the cell where new pieces appear."""
# expect-stage: schema
# expect-error: spawn area
def build(level, rng):
    level.fill(19, 4)
